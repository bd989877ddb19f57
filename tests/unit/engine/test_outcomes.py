"""Outcome history: what a run records, flakiness, bounds and redelivery (engine/outcomes.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from gauntlet.config import ProvenanceConfig
from gauntlet.engine.outcomes import RunOutcomes, flakiness, flaky_fingerprints, mark, record, tracked
from gauntlet.state.outcomes import MAX_OUTCOME_DAYS, MAX_OUTCOMES_PER_TEST, OutcomeHistory

NOW = datetime(2026, 11, 29, 12, tzinfo=UTC)
CONFIG = ProvenanceConfig()


def ran(
    commit: str, run: str, failing: dict[str, str | None], *, complete: bool = True, job: str = "ci/test", **kw: object
) -> RunOutcomes:
    return RunOutcomes.model_validate(
        {"job": job, "commit": commit * 12, "run": run, "failing": failing, "complete": complete, **kw}
    )


def play(*runs: RunOutcomes) -> OutcomeHistory:
    history = OutcomeHistory()
    for i, run in enumerate(runs):
        history = record(history, run, NOW + timedelta(minutes=i))
    return history


def pattern(history: OutcomeHistory, fp: str) -> str:
    test = tracked(history, fp)
    assert test is not None
    return "".join("P" if o.passed else "F" for o in test.outcomes)


def test_only_fingerprints_that_failed_are_tracked_and_absence_from_a_complete_run_is_a_pass() -> None:
    history = play(ran("a", "1.1", {}), ran("b", "2.1", {"fp": "t::x"}), ran("c", "3.1", {}))
    assert [t.fingerprint for t in history.tests] == ["fp"]
    assert pattern(history, "fp") == "FP"


def test_a_run_cut_short_proves_nothing_passed_and_another_job_says_nothing() -> None:
    history = play(
        ran("b", "2.1", {"fp": None}),
        ran("c", "3.1", {}, complete=False),
        ran("c", "3.2", {}, job="ci/lint"),
    )
    assert pattern(history, "fp") == "F"


def test_a_test_the_report_lists_as_passed_is_a_pass_whatever_the_job() -> None:
    history = play(ran("b", "2.1", {"fp": "t::x"}), ran("c", "3.1", {}, job="ci/other", passed_tests=("t::x",)))
    assert pattern(history, "fp") == "FP"


def test_redelivering_a_run_adds_nothing() -> None:
    once = play(ran("b", "2.1", {"fp": None}), ran("b", "2.2", {}))
    assert record(once, ran("b", "2.2", {}), NOW) == once


def test_failed_and_passed_on_one_commit_is_flaky_but_a_break_and_its_fix_is_not() -> None:
    flaky = play(ran("b", "2.1", {"fp": None}), ran("b", "2.2", {}))
    assert "fp" in flaky_fingerprints(flaky, CONFIG)
    # A real break fails its rerun too and passes only once fixed: never flaky, however often it happens.
    broken = play(
        *[ran(c, f"{i}.{a}", {"fp": None} if c in "bd" else {}) for i, c in enumerate("abcde") for a in (1, 2)]
    )
    assert pattern(broken, "fp") == "FFPPFFPP"
    assert flaky_fingerprints(broken, CONFIG) == {}


def test_isolated_failures_across_commits_count_toward_the_flip_rate() -> None:
    runs = [ran(c, f"{i}.1", {"fp": None} if c in "bdf" else {}) for i, c in enumerate("abcdefg")]
    history = play(*runs)
    assert pattern(history, "fp") == "FPFPFP"
    why = flaky_fingerprints(history, CONFIG)["fp"]
    assert why.rate > 0.5 and why.last_flip is not None and "alone 2 times" in why.reason
    strict = ProvenanceConfig(flaky_min_flips=6)
    assert flaky_fingerprints(history, strict) == {}


def test_a_retry_plugin_flake_records_both_outcomes_and_marks_override_the_history() -> None:
    history = play(ran("a", "1.1", {}, flaky_tests=("t::x",)))
    [test] = history.tests
    assert test.test_id == "t::x" and {o.passed for o in test.outcomes} == {True, False}
    assert flakiness(test, flip_rate=0.2, min_flips=3) is not None
    denied = mark(history, test.fingerprint, "ci/test", "t::x", "not_flaky")
    assert flaky_fingerprints(denied, CONFIG) == {}
    marked = mark(OutcomeHistory(), "fp", "ci/test", None, "flaky")
    assert "maintainer" in flaky_fingerprints(marked, CONFIG)["fp"].reason


def test_old_outcomes_are_dropped_and_a_test_without_a_failure_left_is_forgotten() -> None:
    history = record(OutcomeHistory(), ran("a", "1.1", {"fp": None}), NOW - timedelta(days=MAX_OUTCOME_DAYS + 1))
    assert record(history, ran("b", "2.1", {}), NOW).tests == []


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.integers(1, 3), st.booleans(), st.booleans()), max_size=260))
def test_the_history_stays_bounded_with_one_outcome_per_run_attempt(
    runs: list[tuple[str, int, bool, bool]],
) -> None:
    history = OutcomeHistory()
    played = [
        ran(c, f"{i}.{a}", {"fp": None} if fail else {}, complete=done) for i, (c, a, fail, done) in enumerate(runs)
    ]
    for i, run in enumerate(played):
        history = record(history, run, NOW + timedelta(minutes=i))
    for test in history.tests:
        assert len(test.outcomes) <= MAX_OUTCOMES_PER_TEST
        keys = [(o.commit, o.run) for o in test.outcomes]
        assert len(keys) == len(set(keys)), "one outcome per (commit, run attempt)"
    if played:
        # The steps never record a redelivered observation again; recording the newest run twice is harmless too.
        assert record(history, played[-1], NOW + timedelta(minutes=len(played))) == history
