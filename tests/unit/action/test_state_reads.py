"""The fix diff: asked for only when the loaded state says a failure may be fixed, once per diff."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from gauntlet.action.state_reads import failing_before, fix_diff_reader
from gauntlet.engine.loop import merge_observation
from gauntlet.models import CommentFact, Finding, Observation
from gauntlet.state.branch import BranchRecord, RunRecord
from gauntlet.state.models import State
from gauntlet.state.pr import PRRecord

NOW = datetime(2026, 11, 2, tzinfo=UTC)
A, B = "a" * 40, "b" * 40


def failed(fp: str) -> Finding:
    return Finding(fingerprint=fp, source="log", kind="test_failure", severity="critical", message=fp)


def pr_state(*findings: Finding) -> State:
    return State(pr=merge_observation(PRRecord(number=3), "o1", A, list(findings), NOW))


def obs(*findings: Finding, sha: str = B, pr: int | None = 3) -> Observation:
    return Observation(pr=pr, branch=None if pr else "main", head_sha=sha, findings=findings, job="test")


def test_a_pr_whose_last_iteration_failed_something_now_gone_asks_from_that_commit() -> None:
    assert failing_before(pr_state(failed("t1")), obs()) == A
    assert failing_before(pr_state(failed("t1")), obs(failed("t1"))) is None  # still failing
    assert failing_before(pr_state(), obs()) is None  # nothing failed: nothing to fix
    assert failing_before(pr_state(failed("t1")), obs(sha=A)) is None  # the same commit again
    comment = CommentFact(id=1, body="/gauntlet status", author="m", issue_number=3)
    assert failing_before(pr_state(failed("t1")), obs().model_copy(update={"comment": comment})) is None


def test_a_branch_job_going_green_after_red_asks_from_the_red_commit() -> None:
    red = RunRecord(observation="o", head_sha=A, at=NOW, green=False, failing=["t1"], job="/test")
    state = State(branch=BranchRecord(name="main", runs=[red]))
    assert failing_before(state, obs(pr=None)) == A
    green = red.model_copy(update={"green": True, "failing": []})
    assert failing_before(State(branch=BranchRecord(name="main", runs=[green])), obs(pr=None)) is None


def test_the_reader_makes_one_compare_call_per_diff_and_none_when_nothing_may_be_fixed() -> None:
    calls: list[str] = []

    def request(path: str) -> Any:
        calls.append(path)
        return {"files": [{"filename": "src/app/calc.py"}, {"filename": "README.md"}, {"bogus": 1}]}

    enrich = fix_diff_reader(request, "o/r")
    state = pr_state(failed("t1"))
    first = enrich(state, obs())
    again = enrich(state, obs())  # a commit retry runs the engine again
    assert first.fix_diff is not None and first.fix_diff == again.fix_diff
    assert (first.fix_diff.base_sha, first.fix_diff.files) == (A, ("src/app/calc.py", "README.md"))
    assert calls == [f"/repos/o/r/compare/{A}...{B}"]
    assert enrich(pr_state(), obs()).fix_diff is None and len(calls) == 1
