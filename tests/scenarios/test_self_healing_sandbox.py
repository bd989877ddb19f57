"""Self-healing on the sandbox: a recurring defect is promoted by a proposal PR, a person merges it, the defect
grows during the watch, and the scan rolls the promotion back with a revert PR of the merge.

The engine runs for real (``decide`` for every PR run, ``scan`` for the scheduled scans); its effects go
through Gauntlet's GitHub backend and PyGithub over HTTP to the sandbox (``world.apply``).
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

import numpy as np
from scenario import BOT, OWNER, Scenario

from gauntlet.config import Config
from gauntlet.effects.models import Effect
from gauntlet.engine.decide import decide
from gauntlet.engine.scan import scan
from gauntlet.errors import GitHubUnavailable
from gauntlet.github.proposals import proposal_pr_facts
from gauntlet.github.rules_file import read_rules
from gauntlet.models import Finding, Observation
from gauntlet.state.models import State
from gauntlet.state.pr import PRRecord

# The sandbox stamps a merge with the wall clock, and the watch starts at the merge: the story's days end now.
DAY0 = datetime.now(UTC).replace(microsecond=0) - timedelta(days=3, hours=2)
RULE = "Validate inputs at the module boundary"
CONFIG = Config.model_validate({"components": {"app": ["src/**"]}})


def pr_run(shared: State, number: int, at: datetime, findings: list[Finding], files: tuple[str, ...] = ()) -> State:
    """One CI run on PR ``number`` through the real engine; return the shared state it leaves."""
    obs = Observation(
        repository="octo/app", pr=number, head_sha=f"{number:040x}", findings=tuple(findings), changed_files=files
    )
    rng = np.random.default_rng(int.from_bytes(hashlib.sha256(obs.id.encode()).digest()[:8], "big"))
    state, _ = decide(shared.model_copy(update={"pr": PRRecord(number=number)}), obs, CONFIG, at, rng)
    return state.model_copy(update={"pr": None, "events": []})


def review(fp: str) -> Finding:
    return Finding(
        fingerprint=fp,
        source="review",
        kind="review",
        severity="minor",
        priority="P2",
        path="src/app.py",
        line=2,
        message=f"{fp}: unchecked input",
        rule_learned=RULE,
    )


def scheduled_scan(world: Scenario, shared: State, at: datetime) -> tuple[State, list[str], tuple[Effect, ...]]:
    """The scan, its effects applied on the sandbox, the results folded into state as the pipeline does."""
    facts = proposal_pr_facts(world.backend().hub, shared)  # what the Action's scan reads first
    outcome = scan(shared, CONFIG, at, repository="octo/app", base="main", proposal_prs=facts)
    world.state = outcome.state
    results = world.apply(*outcome.plan.effects)
    applied = [f"{r.key}={r.status}" for r in results]
    return world.state.model_copy(update={"events": []}), applied, outcome.plan.effects


def promote_then_grow(world: Scenario) -> tuple[State, datetime, str]:
    """Three recurrences, a scan that proposes SH-1, a person merging it, two more defects during the watch."""
    shared, proposed_at, number = proposed(world)
    proposal_pr = world.repo.get_pull(number)
    assert proposal_pr.user.login == BOT and proposal_pr.head.ref == "gauntlet/proposal-SH-1"
    assert read_rules(world.file_at("AGENTS.md", proposal_pr.head.sha) or "") == (RULE,)

    shared, applied, _ = scheduled_scan(world, shared, proposed_at + timedelta(minutes=30))
    assert applied == [] and shared.proposals.proposals[0].status == "pending"  # open, not merged: nothing watched

    merge = proposal_pr.merge()  # a person promotes the rules
    assert merge.merged
    assert read_rules(world.file_at("AGENTS.md", "main") or "") == (RULE,)
    merged_at = world.repo.get_pull(proposal_pr.number).merged_at.replace(tzinfo=UTC)
    shared, applied, _ = scheduled_scan(world, shared, merged_at + timedelta(minutes=1))
    [watching] = shared.proposals.proposals
    assert (watching.status, watching.pr, watching.merged_at) == ("watching", proposal_pr.number, merged_at)

    # The defect grows during the watch: 2 in 7 days after 3 in the 14 before.
    shared = pr_run(shared, 20, merged_at + timedelta(days=2), [review("r20")])
    shared = pr_run(shared, 21, merged_at + timedelta(days=4), [review("r21")])
    shared = pr_run(shared, 22, merged_at + timedelta(days=5), [], files=("src/app.py",))
    shared, applied, _ = scheduled_scan(world, shared, merged_at + timedelta(days=6))
    assert applied == []  # still watching
    return shared, merged_at, str(merge.sha)


def rollback_pulls(world: Scenario) -> list[int]:
    return [p.number for p in world.repo.get_pulls(state="all", head=f"{OWNER}:gauntlet/proposal-SH-1-rollback")]


def test_defects_growing_after_a_promotion_bring_its_revert_pr(world: Scenario) -> None:
    shared, proposed_at, merge_sha = promote_then_grow(world)
    shared, applied, rollback = scheduled_scan(world, shared, proposed_at + timedelta(days=7, hours=1))
    assert applied == ["proposal:SH-1:rollback=created"]
    [settled] = shared.proposals.proposals
    assert settled.status == "rolled_back"

    revert = world.repo.get_pull(world.index("proposal:SH-1:rollback") or 0)
    assert revert.head.ref == "gauntlet/proposal-SH-1-rollback" and revert.state == "open"
    assert revert.title.startswith("Revert ")
    assert f"This reverts commit {merge_sha}." in revert.body
    assert "Roll back proposal SH-1" in revert.body
    assert [f.filename for f in revert.get_files()] == ["AGENTS.md"]
    assert world.file_at("AGENTS.md", revert.head.sha) is None  # back to before the promotion

    # Later scans and a re-applied rollback create nothing more.
    shared, applied, _ = scheduled_scan(world, shared, proposed_at + timedelta(days=8))
    assert applied == []
    [again] = world.apply(*rollback, record=False)  # a rerun of the rollback scan that lost its state write
    assert again.status == "unchanged"
    assert rollback_pulls(world) == [revert.number]


def test_a_rollback_scan_killed_by_faults_and_rerun_opens_one_revert_pr(world: Scenario) -> None:
    shared, proposed_at, _ = promote_then_grow(world)
    world.retries = 0  # no retries: a fault kills the run where it happens
    world.sandbox.set_faults(0.3, seed=5, paths=("/repos/octo/app/",), kinds=("500", "502", "503", "drop"))
    failed = 0
    for _ in range(30):
        before = world.state
        try:
            # A scheduled run: the scan from the state as stored, its effects, then the state write.
            settled, applied, _ = scheduled_scan(world, shared, proposed_at + timedelta(days=7, hours=1))
        except GitHubUnavailable:
            world.state = before  # the run died: nothing was saved
            failed += 1
            continue
        break
    world.sandbox.set_faults(0.0)
    assert failed >= 1, "the seed should make a run fail part-way"
    assert applied in (["proposal:SH-1:rollback=created"], ["proposal:SH-1:rollback=unchanged"])
    assert settled.proposals.proposals[0].status == "rolled_back"
    assert rollback_pulls(world) == [world.index("proposal:SH-1:rollback")]


def proposed(world: Scenario) -> tuple[State, datetime, int]:
    """Three recurrences and the scan that opens SH-1's PR (pending)."""
    shared = State()
    for i in range(3):
        shared = pr_run(shared, 10 + i, DAY0 + timedelta(days=i), [review(f"r{i}")])
    shared, applied, _ = scheduled_scan(world, shared, DAY0 + timedelta(days=3))
    assert applied == ["proposal:SH-1=created"]
    return shared, DAY0 + timedelta(days=3), world.index("proposal:SH-1") or 0


def test_a_proposal_pr_closed_unmerged_is_rejected(world: Scenario) -> None:
    shared, at, number = proposed(world)
    world.repo.get_pull(number).edit(state="closed")  # a person says no
    shared, applied, _ = scheduled_scan(world, shared, at + timedelta(hours=1))
    [p] = shared.proposals.proposals
    assert (p.status, p.pr, p.note) == ("rejected", number, f"proposal PR #{number} was closed without merging")
    assert applied == []


def test_a_recurrence_after_the_merge_is_said_on_the_proposal_pr_once(world: Scenario) -> None:
    shared, _, number = proposed(world)
    world.repo.get_pull(number).merge()
    merged_at = world.repo.get_pull(number).merged_at.replace(tzinfo=UTC)
    shared, _, _ = scheduled_scan(world, shared, merged_at + timedelta(minutes=1))
    for i in range(3):
        shared = pr_run(shared, 30 + i, merged_at + timedelta(days=1, hours=i), [review(f"again{i}")])
    later = merged_at + timedelta(days=2)
    shared, applied, effects = scheduled_scan(world, shared, later)
    assert applied == ["note:SH-1:escalated-MINOR=created"]
    [note] = [c for c in world.repo.get_issue(number).get_comments() if c.user.login == BOT]
    assert "<!-- gauntlet:key=proposal:SH-1:escalated-MINOR -->" in note.body
    assert "SH-1 escalated PATCH → MINOR" in note.body and "P2 on PR #30" in note.body
    assert [e.key for e in effects] == ["note:SH-1:escalated-MINOR"]
    [again] = world.apply(*effects, record=False)  # a rerun that lost its state write finds its comment
    assert again.status == "unchanged"
    assert len([c for c in world.repo.get_issue(number).get_comments() if c.user.login == BOT]) == 1
