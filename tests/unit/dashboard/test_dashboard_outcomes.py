"""Outcomes from what the state holds today, from the outcome history when present, and their tally."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel
from statefiles import at, finding, iteration, run

from gauntlet.dashboard.outcomes import OutcomeTally, branch_outcomes, history_of, marks, pr_outcomes
from gauntlet.state.branch import BranchRecord
from gauntlet.state.pr import PRRecord


def test_a_pr_fails_what_each_iteration_found_and_passes_what_it_fixed() -> None:
    record = PRRecord(
        number=4,
        iterations=[iteration(1, "a1", [finding("A"), finding("B")]), iteration(2, "b2", [finding("B")], ["A"])],
    )
    seen = [(o.test, o.commit, o.passed, o.place) for o in pr_outcomes(record)]
    assert seen == [("A", "a1", False, "pr:4"), ("B", "a1", False, "pr:4"), ("B", "b2", False, "pr:4"),
                    ("A", "b2", True, "pr:4")]  # fmt: skip


def test_a_complete_branch_run_passes_what_failed_before_in_the_same_job_only() -> None:
    record = BranchRecord(
        name="main",
        runs=[
            run("c1", 1, ["X"]),
            run("c1", 2, [], job="ci/lint"),  # another job proves nothing about X
            run("c1", 3, [], complete=False),  # cut short by infrastructure: proves nothing either
            run("c1", 4, []),
        ],
    )
    seen = [(o.test, o.passed, o.at) for o in branch_outcomes(record)]
    assert seen == [("X", False, at(1)), ("X", True, at(4))]


def test_failing_and_passing_on_one_commit_is_flaky_and_a_flip() -> None:
    tally = OutcomeTally()
    tally.add_place(branch_outcomes(BranchRecord(name="main", runs=[run("c1", 1, ["X"]), run("c1", 2, [])])))
    tally.add_place(branch_outcomes(BranchRecord(name="dev", runs=[run("d1", 1, ["X"]), run("d2", 2, [])])))
    stats = tally.stats["X"]
    assert (stats.runs, stats.failures, stats.flips, stats.commits, stats.flaky_commits) == (4, 2, 2, 3, 1)
    assert stats.flaky and stats.flake_rate == 1 / 3
    assert stats.last_flip == at(2)
    assert tally.outcomes == 4


def test_a_fix_on_a_new_commit_is_a_flip_but_not_a_flake() -> None:
    tally = OutcomeTally()
    tally.add_place(pr_outcomes(PRRecord(number=1, iterations=[iteration(1, "a", [finding("A")]),
                                                               iteration(2, "b", [], ["A"])])))  # fmt: skip
    assert tally.stats["A"].flips == 1 and not tally.stats["A"].flaky


def test_flips_are_counted_within_a_place_not_across_places() -> None:
    tally = OutcomeTally()
    tally.add_place(pr_outcomes(PRRecord(number=1, iterations=[iteration(2, "b", [], ["A"])])))
    tally.add_place(pr_outcomes(PRRecord(number=2, iterations=[iteration(1, "c", [finding("A")])])))
    assert tally.stats["A"].flips == 0


def test_marks_make_a_test_flaky_and_a_not_flaky_mark_wins() -> None:
    tally = OutcomeTally()
    tally.add_place(branch_outcomes(BranchRecord(name="main", runs=[run("c1", 1, ["N"]), run("c1", 2, [])])))
    tally.mark({"F": True, "N": True})
    tally.mark({"N": False})
    assert tally.stats["F"].flaky and tally.stats["F"].runs == 0
    assert not tally.stats["N"].flaky and tally.stats["N"].flaky_commits == 1


# The outcome history as issue 18 stores it (``state/outcomes.py`` there), on the files it adds it to.
class _Stored(BaseModel):
    commit: str
    run: str
    passed: bool
    at: datetime


class _Test(BaseModel):
    fingerprint: str
    job: str = ""
    test_id: str | None = None
    outcomes: list[_Stored] = []
    mark: str | None = None


class _History(BaseModel):
    tests: list[_Test] = []


class _PRWithHistory(PRRecord):
    outcomes: _History = _History()


def test_the_outcome_history_replaces_the_derived_outcomes_of_its_file() -> None:
    history = _History(tests=[
        _Test(fingerprint="T", job="ci/test", outcomes=[_Stored(commit="c1", run="7.1", passed=False, at=at(1)),
                                                       _Stored(commit="c1", run="7.2", passed=True, at=at(2))]),
        _Test(fingerprint="U", job="ci/test", outcomes=[_Stored(commit="c1", run="7.1", passed=True, at=at(1.5))],
              mark="not_flaky"),
    ])  # fmt: skip
    record = _PRWithHistory(number=9, iterations=[iteration(1, "c1", [finding("IGNORED")])], outcomes=history)
    assert len(history_of(record)) == 2 and history_of(PRRecord(number=1)) == ()
    seen = [(o.test, o.attempt, o.passed) for o in pr_outcomes(record)]
    assert seen == [("T", "7.1", False), ("U", "7.1", True), ("T", "7.2", True)]  # in time order
    assert marks(history_of(record)) == {"U": False}
    tally = OutcomeTally()
    tally.add_place(pr_outcomes(record))
    assert tally.stats["T"].flaky and tally.stats["T"].pr_failures == 1 and "IGNORED" not in tally.stats
