"""Per-test pass/fail outcomes, and their tally: the one place the dashboard learns how tests behaved.

Where outcomes come from (the only code that knows), per place (``pr:<n>`` or ``branch:<name>``):

- **The outcome history** (issue 18) when the file has one: ``outcomes.tests`` of a PR or branch file, each
  test's pass/fail per (commit, run attempt), with a maintainer's ``flaky``/``not_flaky`` mark. It is the richer
  record (passing tests, reruns), so for that place it replaces the derived outcomes below, which would count a
  run twice. It is read through :class:`HistoryTest`, the shape issue 18 stores, so this module works on the
  files of either release.
- **Otherwise, derived**: a PR iteration fails each fingerprint it found and passes each one it lists as
  ``fixed``; a branch run fails its ``failing`` fingerprints, and a complete run passes every fingerprint that
  failed on an earlier run of the same job (a test that failed before and is gone from a later run passed there).

A test is **flaky** here when it failed and passed on the same commit, or is marked or listed flaky; its **flake
rate** is the share of the commits it ran on where it did both. Outcomes of one place are tallied together and in
time order, so a **flip** is a change of outcome between consecutive runs of one test in one place.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from gauntlet.state.branch import BranchRecord
from gauntlet.state.outcomes import flake_rate
from gauntlet.state.pr import PRRecord

__all__ = [
    "HistoryOutcome",
    "HistoryTest",
    "Outcome",
    "OutcomeTally",
    "TestStats",
    "branch_outcomes",
    "history_of",
    "marks",
    "pr_outcomes",
]


@dataclass(frozen=True, slots=True)
class Outcome:
    """One test's result in one run."""

    test: str
    place: str
    commit: str
    attempt: str
    passed: bool
    at: datetime


class HistoryOutcome(Protocol):
    """One stored outcome of the outcome history (``state/outcomes.py`` of issue 18)."""

    commit: str
    run: str
    passed: bool
    at: datetime


class HistoryTest(Protocol):
    """One test's stored outcomes in one job, oldest first, and a maintainer's mark."""

    fingerprint: str
    mark: str | None
    outcomes: Sequence[HistoryOutcome]


def history_of(record: PRRecord | BranchRecord) -> Sequence[HistoryTest]:
    """The outcome history of a PR or branch file; empty for files written before issue 18 added it."""
    history = getattr(record, "outcomes", None)  # the field arrives with issue 18
    tests: Sequence[HistoryTest] = getattr(history, "tests", None) or ()
    return tests


def pr_outcomes(record: PRRecord) -> Iterator[Outcome]:
    """The outcomes of one PR, oldest first."""
    place = f"pr:{record.number}"
    if history := history_of(record):
        yield from _from_history(place, history)
        return
    for iteration in record.iterations:
        attempt = iteration.observations[-1] if iteration.observations else str(iteration.number)
        for finding in iteration.findings:
            yield Outcome(finding.fingerprint, place, iteration.head_sha, attempt, False, iteration.at)
        for fingerprint in iteration.fixed:
            yield Outcome(fingerprint, place, iteration.head_sha, attempt, True, iteration.at)


def branch_outcomes(record: BranchRecord) -> Iterator[Outcome]:
    """The outcomes of one branch, oldest first (a derived pass counts only for the run's own job)."""
    place = f"branch:{record.name}"
    if history := history_of(record):
        yield from _from_history(place, history)
        return
    failed_before: dict[str, set[str]] = {}
    for run in sorted(record.runs, key=lambda r: r.at):
        seen = failed_before.setdefault(run.job, set())
        failing = set(run.failing)
        for fingerprint in run.failing:
            yield Outcome(fingerprint, place, run.head_sha, run.observation, False, run.at)
        if run.complete:
            for fingerprint in sorted(seen - failing):
                yield Outcome(fingerprint, place, run.head_sha, run.observation, True, run.at)
        seen |= failing


def _from_history(place: str, tests: Sequence[HistoryTest]) -> list[Outcome]:
    found = [
        Outcome(test.fingerprint, place, outcome.commit, outcome.run, outcome.passed, outcome.at)
        for test in tests
        for outcome in test.outcomes
    ]
    return sorted(found, key=lambda o: o.at)


def marks(records: Iterable[HistoryTest]) -> dict[str, bool]:
    """Fingerprint -> flaky (``True``) or not (``False``), from the maintainers' marks in a history."""
    return {test.fingerprint: test.mark == "flaky" for test in records if test.mark in {"flaky", "not_flaky"}}


@dataclass(slots=True)
class TestStats:
    """How one test (by fingerprint) behaved over every place it ran in."""

    test: str
    runs: int = 0
    failures: int = 0
    #: Failures on pull requests and on branches (the default branch among them).
    pr_failures: int = 0
    branch_failures: int = 0
    flips: int = 0
    last_flip: datetime | None = None
    last_seen: datetime | None = None
    #: Commits it ran on, and those on which it both failed and passed.
    commits: int = 0
    flaky_commits: int = 0
    #: A branch lists it as flaky or a maintainer marked it (``True``), or marked it not flaky (``False``).
    marked: bool | None = None

    @property
    def flaky(self) -> bool:
        """Failed and passed on one commit, or listed or marked flaky; a ``not_flaky`` mark overrides."""
        if self.marked is not None:
            return self.marked
        return self.flaky_commits > 0

    @property
    def flake_rate(self) -> float:
        """Share of the commits it ran on where it both failed and passed (what a flaky-test issue says too)."""
        return flake_rate(self.flaky_commits, self.commits)


class OutcomeTally:
    """Tallies outcomes place by place, keeping one :class:`TestStats` per test and nothing per outcome."""

    def __init__(self) -> None:
        self.stats: dict[str, TestStats] = {}
        self.outcomes = 0

    def _stats(self, test: str) -> TestStats:
        stats = self.stats.get(test)
        if stats is None:
            stats = self.stats[test] = TestStats(test)
        return stats

    def add_place(self, outcomes: Iterable[Outcome]) -> None:
        """Add the outcomes of one place, oldest first."""
        last: dict[str, bool] = {}
        results: dict[tuple[str, str], set[bool]] = {}
        for outcome in outcomes:
            self.outcomes += 1
            stats = self._stats(outcome.test)
            stats.runs += 1
            stats.last_seen = outcome.at if stats.last_seen is None else max(stats.last_seen, outcome.at)
            if not outcome.passed:
                stats.failures += 1
                if outcome.place.startswith("pr:"):
                    stats.pr_failures += 1
                else:
                    stats.branch_failures += 1
            previous = last.get(outcome.test)
            if previous is not None and previous != outcome.passed:
                stats.flips += 1
                stats.last_flip = outcome.at if stats.last_flip is None else max(stats.last_flip, outcome.at)
            last[outcome.test] = outcome.passed
            seen = results.setdefault((outcome.test, outcome.commit), set())
            if not seen:
                stats.commits += 1
            elif outcome.passed not in seen:
                stats.flaky_commits += 1
            seen.add(outcome.passed)

    def mark(self, flaky: dict[str, bool]) -> None:
        """Apply marks (fingerprint -> flaky or not); a ``not_flaky`` mark wins over a listing as flaky."""
        for fingerprint, value in flaky.items():
            stats = self._stats(fingerprint)
            stats.marked = value if stats.marked is None else stats.marked and value
