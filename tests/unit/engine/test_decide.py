"""The engine's one door: which state files an observation needs, and which step it reaches."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from gauntlet.config import Config
from gauntlet.engine.decide import BRANCH_RUN_FILES, decide, scope_of
from gauntlet.models import CommentFact, Finding, Observation
from gauntlet.state.branch import BranchRecord
from gauntlet.state.models import Scope, State
from gauntlet.state.pr import PRRecord

NOW = datetime(2026, 11, 2, tzinfo=UTC)
CRASH = Finding(fingerprint="t1", source="log", kind="test_failure", severity="critical", message="boom")


def _comment(on_pr: bool) -> CommentFact:
    return CommentFact(id=5, body="/gauntlet status", author="ada", issue_number=9, is_pull_request=on_pr)


def _branch_run(name: str) -> Scope:
    return Scope(branch=name, shared=BRANCH_RUN_FILES, branch_run=True)


@pytest.mark.parametrize(
    ("obs", "scope"),
    [
        # A comment needs the default branch's record too (/gauntlet flaky marks a test in its history).
        (Observation(head_sha="a" * 40, comment=_comment(on_pr=True)), Scope(pr=9, branch="main")),
        (Observation(head_sha="a" * 40, comment=_comment(on_pr=False)), Scope(branch="main")),
        # A PR run reads its base's outcome history for provenance.
        (Observation(pr=4, head_sha="a" * 40), Scope(pr=4, base="main")),
        # A branch run leaves the proposals and the bandit unread: it changes neither.
        (Observation(branch="release/2.x", head_sha="a" * 40), _branch_run("release/2.x")),
        (Observation(default_branch="trunk", head_sha="a" * 40), _branch_run("trunk")),
    ],
)
def test_an_observation_needs_its_prs_or_its_branchs_file(obs: Observation, scope: Scope) -> None:
    assert scope_of(obs) == scope


def test_a_pr_run_is_an_iteration_and_the_same_arguments_give_the_same_result() -> None:
    state = State(pr=PRRecord(number=4))
    obs = Observation(pr=4, head_sha="a" * 40, run_id="1", findings=(CRASH,))
    first = decide(state, obs, Config(), NOW, np.random.default_rng(1))
    assert first == decide(state, obs, Config(), NOW, np.random.default_rng(1))
    new, plan = first
    assert state == State(pr=PRRecord(number=4))  # the input is not modified
    assert new.pr is not None and new.pr.iteration_count == 1
    assert plan.decision is not None and plan.decision.action == "fix_criticals"


def test_a_closed_pr_is_not_an_iteration() -> None:
    state = State(pr=PRRecord(number=4))
    run, _ = decide(state, Observation(pr=4, head_sha="a" * 40, run_id="1"), Config(), NOW, np.random.default_rng(0))
    closed, plan = decide(
        run, Observation(pr=4, head_sha="c" * 40, closed=True), Config(), NOW, np.random.default_rng(0)
    )
    assert closed.pr is not None and closed.pr.closed and closed.pr.iteration_count == 1
    assert plan.effects == ()


def test_anything_else_is_a_run_on_a_branch() -> None:
    state = State(branch=BranchRecord(name="main"))
    obs = Observation(branch="main", head_sha="b" * 40, run_id="3", workflow="ci", job="test")
    new, plan = decide(state, obs, Config(), NOW, np.random.default_rng(0))
    assert new.pr is None and new.branch is not None
    assert [run.head_sha for run in new.branch.runs] == ["b" * 40]
    assert new.branch.last_good == "b" * 40  # no finding: green
    assert plan.decision is not None and plan.decision.action == "clean"
