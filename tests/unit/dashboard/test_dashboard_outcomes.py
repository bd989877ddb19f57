"""Outcomes from what the state holds today, from the outcome history when present, and their tally."""

from __future__ import annotations

import json
from pathlib import Path

from statefiles import at, finding, iteration, run

from gauntlet.dashboard.outcomes import OutcomeTally, branch_outcomes, history_outcomes, pr_outcomes
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


def test_a_fingerprint_a_branch_lists_as_flaky_is_flaky_without_outcomes() -> None:
    tally = OutcomeTally()
    tally.mark_flaky(["F"])
    assert tally.stats["F"].flaky and tally.stats["F"].runs == 0


def test_the_outcome_history_is_read_by_place_in_time_order_and_bad_lines_are_counted(tmp_path: Path) -> None:
    folder = tmp_path / "v1" / "outcomes"
    folder.mkdir(parents=True)
    lines = [
        {"fingerprint": "T", "place": "branch:main", "sha": "c1", "attempt": "2", "passed": True,
         "at": at(2).isoformat(), "provenance": "flaky", "duration": 1.5},
        {"fingerprint": "T", "place": "branch:main", "sha": "c1", "attempt": "1", "passed": False,
         "at": at(1).isoformat(), "provenance": "flaky", "duration": 2.5},
        {"fingerprint": "T", "place": "pr:3", "sha": "p1", "passed": False, "at": at(3).isoformat()},
    ]  # fmt: skip
    (folder / "2026-11.jsonl").write_text("\n".join(json.dumps(line) for line in lines) + "\n{not json\n")
    problems: list[str] = []
    groups = history_outcomes(tmp_path, problems)
    assert [[(o.place, o.attempt) for o in group] for group in groups] == [
        [("branch:main", "1"), ("branch:main", "2")],
        [("pr:3", "")],
    ]
    assert problems == ["v1/outcomes/2026-11.jsonl: 1 unreadable lines skipped"]
    tally = OutcomeTally()
    for group in groups:
        tally.add_place(group)
    stats = tally.stats["T"]
    assert stats.provenance == {"flaky": 2} and stats.failed_seconds == 2.5 and stats.flaky  # failing runs only


def test_no_history_is_no_groups(tmp_path: Path) -> None:
    assert history_outcomes(tmp_path, []) == []
