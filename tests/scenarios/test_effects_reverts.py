"""Revert PRs on the sandbox: exactly the culprit's files, back to its first parent, once per culprit, ever."""

from __future__ import annotations

from pathlib import Path

import pytest
from scenario import BOT, OWNER, REPO, Scenario, git

from gauntlet.effects.models import OpenRevertPR
from gauntlet.effects.views import RevertView
from gauntlet.github.reverts import revert_pr_facts


def revert_of(culprit: str, subject: str, author: str | None = None) -> OpenRevertPR:
    return OpenRevertPR(
        culprit=culprit,
        base="main",
        view=RevertView(
            repository=REPO,
            culprit=culprit,
            subject=subject,
            author=author,
            failing_runs=("CI #41 failed on main", "CI #42 failed on main"),
            evidence=("test_failure: tests/test_app.py::test_main",),
        ),
    )


def pulls_from(world: Scenario, branch: str) -> list[int]:
    return [p.number for p in world.repo.get_pulls(state="all", head=f"{OWNER}:{branch}")]


def test_the_revert_restores_exactly_the_culprits_files_to_its_parent(world: Scenario) -> None:
    parent = world.sandbox.head(REPO)
    assert parent is not None
    culprit = world.sandbox.commit(
        REPO,
        {"src/app.py": "def main():\n    return 2\n", "src/util.py": None, "src/extra.py": "E = 1\n"},
        "Make main return 2\n\nAnd tidy up.",
    )
    later = world.sandbox.commit(REPO, {"README.md": "# app, documented\n"}, "Document the app")
    effect = revert_of(culprit, "Make main return 2", author="alice")
    branch = f"gauntlet/revert-{culprit[:12]}"

    [result] = world.apply(effect)
    assert result.status == "created"
    assert world.index(effect.key) == result.number
    pr = world.repo.get_pull(result.number)
    assert (pr.head.ref, pr.base.ref, pr.user.login) == (branch, "main", BOT)
    assert pr.title == 'Revert "Make main return 2"'
    assert f"This reverts commit {culprit}." in pr.body
    assert "CI #41 failed on main" in pr.body and "tests/test_app.py::test_main" in pr.body
    assert f"<!-- gauntlet:key=revert:{culprit[:12]} -->" in pr.body

    # Exactly the culprit's files, each as its first parent had it (deleted if it had none); the rest as on main.
    assert sorted(f.filename for f in pr.get_files()) == ["src/app.py", "src/extra.py", "src/util.py"]
    head = pr.head.sha
    for path in ("src/app.py", "src/util.py", "src/extra.py"):
        assert world.file_at(path, head) == world.file_at(path, parent)
    assert world.file_at("src/extra.py", head) is None
    assert world.file_at("README.md", head) == "# app, documented\n"
    commit = world.repo.get_git_commit(head)
    assert [p.sha for p in commit.parents] == [later]
    assert commit.message == f'Revert "Make main return 2"\n\nThis reverts commit {culprit}.\n'
    # The culprit's author is asked to review (the sandbox has no reviewer requests yet: GitHub would accept).
    assert world.requests("POST", f"/pulls/{result.number}/requested_reviewers")
    assert "alice" in result.detail


def test_applied_twice_and_after_a_lost_state_write_there_is_one_revert_pr(world: Scenario) -> None:
    culprit = world.sandbox.commit(REPO, {"src/util.py": "X = 2\n"}, "Bump X")
    effect = revert_of(culprit, "Bump X")
    branch = f"gauntlet/revert-{culprit[:12]}"
    # A run that died after pushing the branch but before opening the PR left the branch at another commit.
    world.repo.create_git_ref(f"refs/heads/{branch}", culprit)

    [lost] = world.apply(effect, record=False)
    assert lost.status == "created"
    [found] = world.apply(effect)
    [again] = world.apply(effect)
    assert (found.status, found.number) == ("unchanged", lost.number)
    assert (again.status, again.number) == ("unchanged", lost.number)
    assert world.index(effect.key) == lost.number
    assert pulls_from(world, branch) == [lost.number]
    assert world.file_at("src/util.py", world.repo.get_pull(lost.number).head.sha) == "X = 1\n"


def test_a_merge_is_reverted_against_its_first_parent(world: Scenario, tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", world.sandbox.git_url(REPO, token=OWNER), str(clone))
    git(clone, "checkout", "-q", "-b", "feature")
    (clone / "src" / "util.py").write_text("X = 99\n")
    (clone / "src" / "feature.py").write_text("F = 1\n")
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", "Add the feature")
    git(clone, "checkout", "-q", "main")
    (clone / "docs" / "guide.md").write_text("Guide, updated on main meanwhile\n")
    git(clone, "commit", "-q", "-am", "Update the guide")
    first_parent = git(clone, "rev-parse", "HEAD")
    git(clone, "merge", "-q", "--no-ff", "feature", "-m", "Merge branch 'feature'")
    git(clone, "push", "-q", "origin", "main")
    merge = git(clone, "rev-parse", "HEAD")
    assert world.sandbox.head(REPO) == merge

    [result] = world.apply(revert_of(merge, "Merge branch 'feature'"))
    assert result.status == "created"
    pr = world.repo.get_pull(result.number)
    # Only what the merge brought into main; the guide changed on the first-parent side and stays.
    assert sorted(f.filename for f in pr.get_files()) == ["src/feature.py", "src/util.py"]
    assert world.file_at("src/util.py", pr.head.sha) == world.file_at("src/util.py", first_parent) == "X = 1\n"
    assert world.file_at("src/feature.py", pr.head.sha) is None
    assert world.file_at("docs/guide.md", pr.head.sha) == "Guide, updated on main meanwhile\n"


def test_a_file_changed_again_since_the_culprit_gives_a_needs_human_issue(world: Scenario) -> None:
    culprit = world.sandbox.commit(REPO, {"src/app.py": "def main():\n    return 2\n", "src/util.py": "X = 3\n"}, "Two")
    world.sandbox.commit(REPO, {"src/app.py": "def main():\n    return 3\n"}, "Three")
    effect = revert_of(culprit, "Two")

    first, second = world.apply(effect) + world.apply(effect, record=False)
    assert (first.status, second.status) == ("skipped", "skipped")
    assert first.detail.startswith("conflict: src/app.py;")
    assert first.number is None and world.index(effect.key) is None
    assert pulls_from(world, f"gauntlet/revert-{culprit[:12]}") == []
    assert world.requests("POST", "/git/refs") == []

    marker = f"<!-- gauntlet:key=needs-human:revert-conflict-{culprit[:12]} -->"
    issues = [i for i in world.repo.get_issues(state="all") if marker in (i.body or "")]
    assert len(issues) == 1
    assert first.url == issues[0].html_url
    assert "`src/app.py`" in issues[0].body and "src/util.py" not in issues[0].body
    assert {label.name for label in issues[0].labels} >= {"gauntlet", "needs-human"}


@pytest.mark.parametrize("merge", [False, True])
def test_a_revert_pr_closed_by_a_person_is_never_recreated(world: Scenario, merge: bool) -> None:
    culprit = world.sandbox.commit(REPO, {"src/util.py": "X = 5\n"}, "Five")
    effect = revert_of(culprit, "Five")
    [opened] = world.apply(effect)
    pr = world.repo.get_pull(opened.number)
    if merge:
        pr.merge()
    else:
        pr.edit(state="closed")

    world.state = world.state.model_copy(update={"index": world.state.index.model_copy(update={"entries": {}})})
    [later] = world.apply(effect)
    assert later.number == opened.number
    if merge:
        assert (later.status, later.detail) == ("unchanged", "revert PR already merged")
    else:
        assert later.status == "skipped" and "never recreated" in later.detail
    assert pulls_from(world, f"gauntlet/revert-{culprit[:12]}") == [opened.number]


def test_revert_pr_facts_report_the_known_revert_prs_that_are_gauntlets_and_their_states(world: Scenario) -> None:
    one = world.sandbox.commit(REPO, {"src/util.py": "X = 8\n"}, "Eight")
    [first] = world.apply(revert_of(one, "Eight"))
    world.repo.get_pull(first.number).edit(state="closed")
    two = world.sandbox.commit(REPO, {"README.md": "# nine\n"}, "Nine")
    [second] = world.apply(revert_of(two, "Nine"))
    # A person's PR from a look-alike branch is not Gauntlet's.
    world.repo.create_git_ref("refs/heads/gauntlet/revert-000000000000", two)
    world.sandbox.commit(REPO, {"x.txt": "x\n"}, "x", branch="gauntlet/revert-000000000000")
    mine = world.repo.create_pull(title="mine", body="", head="gauntlet/revert-000000000000", base="main")

    known = {one: first.number, two[:12]: second.number, "000000000000": mine.number, "1" * 12: 999}
    facts = revert_pr_facts(world.backend().hub, known)
    assert sorted((f.culprit, f.number, f.state) for f in facts) == sorted(
        [(two[:12], second.number, "open"), (one[:12], first.number, "closed_unmerged")]
    )
    # One call per PR asked about: nothing is listed.
    assert not [r for r in world.sandbox.requests() if r["method"] == "GET" and r["path"].endswith("/pulls")]
