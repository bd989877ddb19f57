"""The gauntlet loop: counting, actions, fail_on and iterations per head SHA."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from gauntlet.engine.loop import decide_iteration, fails_check, gauntlet_action, merge_observation
from gauntlet.models import Finding, Severity
from gauntlet.state.pr import PRRecord
from gauntlet.vocabulary import Decision

NOW = datetime(2026, 11, 2, tzinfo=UTC)


def finding(fp: str, severity: Severity = "critical") -> Finding:
    return Finding(fingerprint=fp, source="log", kind="test_failure", severity=severity, message=fp)


@pytest.mark.parametrize(
    ("counts", "action"),
    [
        ((1, 5, 5), "fix_criticals"),
        ((0, 1, 5), "checkpoint_majors"),
        ((0, 0, 1), "checkpoint_minors"),
        ((0, 0, 0), "clean"),
    ],
)
def test_action_follows_the_worst_severity(counts: tuple[int, int, int], action: str) -> None:
    assert gauntlet_action(*counts) == action


def test_nitpicks_alone_are_clean() -> None:
    pr = merge_observation(PRRecord(number=1), "o1", "a" * 40, [finding("n", "nitpick")], NOW)
    assert pr.current is not None
    assert decide_iteration(pr.current, []).action == "clean"


def test_accepted_risks_do_not_count() -> None:
    pr = merge_observation(PRRecord(number=1), "o1", "a" * 40, [finding("x", "major")], NOW)
    assert pr.current is not None
    assert decide_iteration(pr.current, ["x"]).action == "clean"


@pytest.mark.parametrize(
    ("fail_on", "worst", "fails"),
    [
        ("criticals", "major", False),
        ("criticals", "critical", True),
        ("majors", "major", True),
        ("majors", "minor", False),
        ("minors", "minor", True),
        ("never", "critical", False),
    ],
)
def test_fail_on_sets_what_fails_the_check(fail_on: str, worst: str, fails: bool) -> None:
    decision = Decision(
        action="clean",
        iteration=1,
        criticals=int(worst == "critical"),
        majors=int(worst == "major"),
        minors=int(worst == "minor"),
    )
    assert fails_check(decision, fail_on) is fails  # type: ignore[arg-type]


def test_iterations_count_distinct_head_shas_and_track_fixes() -> None:
    pr = merge_observation(PRRecord(number=1), "o1", "a" * 40, [finding("x"), finding("y")], NOW)
    pr = merge_observation(pr, "o2", "a" * 40, [finding("z")], NOW)  # another job, same SHA
    assert pr.iteration_count == 1
    assert pr.current is not None
    assert {f.fingerprint for f in pr.current.findings} == {"x", "y", "z"}
    pr = merge_observation(pr, "o3", "b" * 40, [finding("y"), finding("w")], NOW)
    current = pr.current
    assert current is not None
    assert (pr.iteration_count, current.number) == (2, 2)
    assert (current.new, current.still_open, sorted(current.fixed)) == (["w"], ["y"], ["x", "z"])


def thread(fp: str, severity: Severity = "minor") -> Finding:
    url = f"https://github.com/o/r/pull/1#discussion_r{fp}"
    return Finding(fingerprint=fp, source="review", kind="review", severity=severity, message=fp, url=url)


def test_a_run_that_read_the_review_threads_replaces_the_earlier_ones() -> None:
    sha = "a" * 40
    pr = merge_observation(PRRecord(number=1), "ci", sha, [finding("x"), thread("t1"), thread("t2")], NOW)
    pr = merge_observation(pr, "edit", sha, [thread("t1", "major")], NOW, reviews_read=True)
    assert pr.current is not None
    assert [(f.fingerprint, f.severity) for f in pr.current.findings] == [("x", "critical"), ("t1", "major")]
    assert pr.current.findings[1].url == "https://github.com/o/r/pull/1#discussion_rt1"
    pr = merge_observation(pr, "job2", sha, [thread("t3")], NOW)  # a run that did not read them only adds
    assert pr.current is not None
    assert [f.fingerprint for f in pr.current.findings] == ["x", "t1", "t3"]
