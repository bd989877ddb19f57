"""Proposal PRs on the sandbox: only Gauntlet's section of the rules file changes; once per proposal; rollbacks."""

from __future__ import annotations

from scenario import BOT, OWNER, REPO, Scenario

from gauntlet.effects.models import OpenProposalPR
from gauntlet.effects.views import ProposalView
from gauntlet.github.rules_file import END_MARKER, START_MARKER, read_rules

CLAUDE = "# Working here\n\nRun `make test` first.\n\n<!-- a person's own comment -->\nNo trailing newline"
RULES = ("Close every file you open.", "Never log request bodies.")


def proposal(rules: tuple[str, ...] = RULES, *, rollback: bool = False, ident: str = "P-7") -> OpenProposalPR:
    return OpenProposalPR(
        proposal_id=ident,
        base="main",
        rules=rules,
        rollback_of=ident if rollback else None,
        view=ProposalView(
            repository=REPO,
            proposal_id=ident,
            level="PATCH",
            component="src/io",
            defect_type="resource_leak",
            rules=rules,
            evidence=("3 × P2 resource_leak in src/io over 14 days",),
        ),
    )


def pulls_from(world: Scenario, branch: str) -> list[int]:
    return [p.number for p in world.repo.get_pulls(state="all", head=f"{OWNER}:{branch}")]


def test_the_first_existing_rules_file_gets_only_a_section_appended(world: Scenario) -> None:
    world.sandbox.commit(REPO, {"CLAUDE.md": CLAUDE, ".cursor/rules/gauntlet.mdc": "cursor\n"}, "Add agent rules")
    [lost] = world.apply(proposal(), record=False)  # a run that died before saving its state
    [found] = world.apply(proposal())
    [again] = world.apply(proposal())
    assert lost.status == "created"
    assert (found.status, found.number) == ("unchanged", lost.number)
    assert (again.status, again.number) == ("unchanged", lost.number)
    assert world.index("proposal:P-7") == lost.number
    assert pulls_from(world, "gauntlet/proposal-P-7") == [lost.number]

    pr = world.repo.get_pull(lost.number)
    assert pr.user.login == BOT and pr.base.ref == "main"
    assert "<!-- gauntlet:key=proposal:P-7 -->" in pr.body
    assert [f.filename for f in pr.get_files()] == ["CLAUDE.md"]
    text = world.file_at("CLAUDE.md", pr.head.sha)
    assert text is not None
    assert text.startswith(CLAUDE + "\n\n" + START_MARKER)  # every byte the person wrote is kept
    assert text.endswith(END_MARKER + "\n")
    assert read_rules(text) == RULES


def test_proposals_of_one_run_read_the_rules_file_once_and_cost_three_calls_each(world: Scenario) -> None:
    world.sandbox.commit(REPO, {"CLAUDE.md": CLAUDE}, "Add agent rules")
    world.sandbox.clear_requests()
    results = world.apply(proposal(ident="P-8"), proposal(("Check the exit code.",), ident="P-9"))
    assert [r.status for r in results] == ["created", "created"]
    calls = [(r["method"], r["path"].removeprefix(f"/repos/{REPO}/")) for r in world.sandbox.requests()]
    shared = [("GET", "git/ref/heads/main"), ("GET", "contents/AGENTS.md"), ("GET", "contents/CLAUDE.md")]
    each = [("POST", "git/refs"), ("PUT", "contents/CLAUDE.md"), ("POST", "pulls")]
    assert calls == shared + each + each
    for result, rules in zip(results, (RULES, ("Check the exit code.",)), strict=True):
        text = world.file_at("CLAUDE.md", world.repo.get_pull(result.number or 0).head.sha) or ""
        assert text.startswith(CLAUDE) and read_rules(text) == rules


def test_without_a_rules_file_agents_md_is_created(world: Scenario) -> None:
    [opened] = world.apply(proposal())
    pr = world.repo.get_pull(opened.number)
    assert [f.filename for f in pr.get_files()] == ["AGENTS.md"]
    assert read_rules(world.file_at("AGENTS.md", pr.head.sha) or "") == RULES


def test_a_second_proposal_edits_the_section_in_place(world: Scenario) -> None:
    before = "# Agents\n\nKeep it short.\n"
    first = before + "\n" + "\n".join([START_MARKER, "- Old rule.", END_MARKER]) + "\nAfter the section.\n"
    world.sandbox.commit(REPO, {"AGENTS.md": first}, "Rules with an earlier Gauntlet section")
    [opened] = world.apply(proposal(("Old rule.", "New rule.")))
    text = world.file_at("AGENTS.md", world.repo.get_pull(opened.number).head.sha) or ""
    assert text.startswith(before + "\n" + START_MARKER)
    assert text.endswith(END_MARKER + "\nAfter the section.\n")
    assert read_rules(text) == ("Old rule.", "New rule.")


def test_rules_already_present_open_nothing(world: Scenario) -> None:
    world.sandbox.commit(REPO, {"AGENTS.md": "\n".join([START_MARKER, *(f"- {r}" for r in RULES), END_MARKER])})
    [result] = world.apply(proposal())
    assert result.status == "skipped" and "already in AGENTS.md" in result.detail
    assert pulls_from(world, "gauntlet/proposal-P-7") == []


def test_a_rollback_is_a_revert_pr_of_the_merged_proposal(world: Scenario) -> None:
    world.sandbox.commit(REPO, {"CLAUDE.md": CLAUDE}, "Add agent rules")
    before = world.sandbox.head(REPO)
    assert before is not None
    [opened] = world.apply(proposal())
    merged = world.repo.get_pull(opened.number).merge()
    assert merged.merged

    [rolled] = world.apply(proposal(rollback=True))
    [again] = world.apply(proposal(rollback=True), record=False)
    assert rolled.status == "created" and (again.status, again.number) == ("unchanged", rolled.number)
    assert world.index("proposal:P-7:rollback") == rolled.number
    pr = world.repo.get_pull(rolled.number)
    assert pr.head.ref == "gauntlet/proposal-P-7-rollback"
    assert pr.title.startswith('Revert "Gauntlet proposal P-7 (PATCH)')
    assert f"This reverts commit {merged.sha}." in pr.body
    assert "<!-- gauntlet:key=proposal:P-7:rollback -->" in pr.body
    assert [f.filename for f in pr.get_files()] == ["CLAUDE.md"]
    assert world.file_at("CLAUDE.md", pr.head.sha) == CLAUDE == world.file_at("CLAUDE.md", before)


def test_a_rollback_conflicts_when_the_rules_file_changed_since(world: Scenario) -> None:
    [opened] = world.apply(proposal())
    world.repo.get_pull(opened.number).merge()
    text = world.file_at("AGENTS.md", "main") or ""
    world.sandbox.commit(REPO, {"AGENTS.md": text + "\nA person's note.\n"}, "Edit AGENTS.md by hand")

    [rolled] = world.apply(proposal(rollback=True))
    assert rolled.status == "skipped" and rolled.detail.startswith("conflict: AGENTS.md;")
    assert pulls_from(world, "gauntlet/proposal-P-7-rollback") == []


def test_a_proposal_closed_without_merging_is_not_reopened_and_has_nothing_to_roll_back(world: Scenario) -> None:
    [opened] = world.apply(proposal())
    world.repo.get_pull(opened.number).edit(state="closed")
    [later] = world.apply(proposal())
    assert later.status == "skipped" and "never recreated" in later.detail
    [rollback] = world.apply(proposal(rollback=True))
    assert rollback.status == "skipped" and "not merged" in rollback.detail
    assert pulls_from(world, "gauntlet/proposal-P-7") == [opened.number]
