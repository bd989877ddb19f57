"""End to end on the default branch: the real engine decides a revert, the GitHub backend opens it once.

A green run records last-good; a commit breaks a test; the engine confirms the breakage and plans a revert PR;
(a red run, then the rerun Gauntlet asks for fails the same way) and plans a revert PR;
the revert is built on the sandbox with the Git Data API. Later red runs, fed the revert PRs Gauntlet finds on
GitHub (``revert_pr_facts``, by the numbers the state knows), open no second one, with or without the state of
the run that opened it.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np
from mainline import findings_of
from scenario import REPO, Scenario

from gauntlet.config import Config
from gauntlet.engine.decide import decide
from gauntlet.models import CommitFact, Observation
from gauntlet.sandbox import JobSeed
from gauntlet.state.branch import BranchRecord
from gauntlet.state.models import State

CALC = "def add(a, b):\n    return a + b\n"
BROKEN = "def add(a, b):\n    return a - b\n"


def fact(world: Scenario, sha: str, files: tuple[str, ...]) -> CommitFact:
    commit = world.repo.get_commit(sha)
    return CommitFact.of(
        sha=sha,
        message=commit.commit.message,
        author="bob",
        files=files,
        parents=tuple(p.sha for p in commit.parents),
        at=commit.commit.committer.date,
    )


def run(
    world: Scenario,
    head: str,
    history: tuple[CommitFact, ...],
    log: str | None,
    run_id: int,
    at: datetime,
    attempt: int = 1,
) -> None:
    """One CI run on main through the real engine; its plan applied on the sandbox, its results recorded."""
    observation = Observation(
        repository=REPO,
        event="workflow_run",
        branch="main",
        default_branch="main",
        head_sha=head,
        run_id=str(run_id),
        run_attempt=str(attempt),
        workflow="ci",
        job="test",
        findings=findings_of(log),
        commits=history,
        revert_prs=world.revert_facts(),
    )
    state = world.state if world.state.branch is not None else State(branch=BranchRecord(name="main"))
    state, plan = decide(state, observation, Config(), at, np.random.default_rng(run_id))
    world.state = state.model_copy(update={"events": []})
    world.apply(*plan.effects)


def test_a_confirmed_break_is_reverted_once_end_to_end(world: Scenario) -> None:
    good = world.sandbox.commit(REPO, {"src/app/calc.py": CALC}, "Add add()")
    bad = world.sandbox.commit(REPO, {"src/app/calc.py": BROKEN}, "Make add() faster", author="bob")
    history = (fact(world, bad, ("src/app/calc.py",)), fact(world, good, ("src/app/calc.py",)))
    at = history[0].at + timedelta(minutes=10)

    run(world, good, history[1:], "pytest-pass.log", 1, at)
    ci = world.sandbox.seed_run(REPO, jobs=[JobSeed(name="test", conclusion="failure", log="")], head_sha=bad)
    run(world, bad, history, "pytest-add-broken.log", ci.id, at)
    assert not list(world.repo.get_pulls(state="all")), "a single red run never opens a revert PR"
    assert [r["path"] for r in world.sandbox.requests() if r["path"].endswith("/rerun-failed-jobs")]
    for attempt in (2, 3, 4):  # a failing test blamed on the code under test takes four sightings
        world.sandbox.finish_jobs(REPO, ci.id, {"test": ("failure", "")})  # the rerun ran and failed again
        run(world, bad, history, "pytest-add-broken.log", ci.id, at + timedelta(minutes=attempt), attempt=attempt)

    [pr] = list(world.repo.get_pulls(state="all"))
    assert pr.title == 'Revert "Make add() faster"'
    assert pr.head.ref == f"gauntlet/revert-{bad[:12]}"
    assert f"This reverts commit {bad}." in pr.body
    assert [f.filename for f in pr.get_files()] == ["src/app/calc.py"]
    assert world.file_at("src/app/calc.py", pr.head.sha) == CALC
    assert world.index(f"revert:{bad[:12]}") == pr.number

    # More red runs on the same head: the open revert PR is seen and kept, never doubled, even by a run
    # that starts from an empty state (its state was lost).
    run(world, bad, history, "pytest-add-broken.log", ci.id, at + timedelta(minutes=5), attempt=5)
    world.state = State()
    run(world, bad, history, "pytest-add-broken.log", ci.id, at + timedelta(minutes=10), attempt=6)
    assert [p.number for p in world.repo.get_pulls(state="all")] == [pr.number]
