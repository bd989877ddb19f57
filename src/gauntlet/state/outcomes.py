"""Outcome history: pass or fail per (fingerprint, commit, run attempt), kept in the files runs already write.

The default branch keeps its history in ``v1/branches/<slug>.json`` and a PR in ``v1/prs/<number>.json``
(DESIGN §4), so recording outcomes adds no file and no write to a run. Only fingerprints that failed at least
once inside the window are tracked: a test that never failed has nothing to say about provenance, and the
history stays small however large the test suite is. Bounds: :data:`MAX_OUTCOMES_PER_TEST` outcomes per
fingerprint, :data:`MAX_OUTCOME_DAYS` days, :data:`MAX_TESTS_TRACKED` fingerprints per file.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Literal

from gauntlet.state.base import Record

__all__ = [
    "MAX_OUTCOMES_PER_TEST",
    "MAX_OUTCOME_DAYS",
    "MAX_TESTS_TRACKED",
    "FlakyMark",
    "Outcome",
    "OutcomeHistory",
    "TestOutcomes",
    "commit_flakes",
    "flake_rate",
]

MAX_OUTCOMES_PER_TEST = 200
MAX_OUTCOME_DAYS = 90
MAX_TESTS_TRACKED = 300

#: A maintainer's word on a test (``/gauntlet flaky`` / ``/gauntlet not-flaky``); it overrides the history.
FlakyMark = Literal["flaky", "not_flaky"]


class Outcome(Record):
    """One observed outcome of one fingerprint."""

    #: The head commit the run tested (12 hex digits are plenty to tell commits of one branch apart).
    commit: str
    #: ``<run id>.<run attempt>``: two outcomes on one commit from different attempts are a rerun.
    run: str
    passed: bool
    at: datetime


class TestOutcomes(Record):
    """The outcomes of one fingerprint in one job, oldest first."""

    __test__ = False  # not a pytest test class, whatever its name says

    fingerprint: str
    #: ``workflow/job``: a run of another job says nothing about this test.
    job: str = ""
    test_id: str | None = None
    outcomes: list[Outcome] = []
    mark: FlakyMark | None = None


def commit_flakes(outcomes: Iterable[Outcome]) -> tuple[int, int]:
    """``(commits where it both failed and passed, commits it ran on)`` of one test's outcomes."""
    seen: dict[str, set[bool]] = {}
    for outcome in outcomes:
        seen.setdefault(outcome.commit, set()).add(outcome.passed)
    return sum(1 for results in seen.values() if len(results) == 2), len(seen)


def flake_rate(flaky_commits: int, commits: int) -> float:
    """THE flake rate people read, in a flaky-test issue as on the dashboard: of the commits a test ran on,
    the share where it both failed and passed (flaky by the one definition, DESIGN §3)."""
    return flaky_commits / commits if commits else 0.0


class OutcomeHistory(Record):
    """Every tracked fingerprint of one branch or PR."""

    tests: list[TestOutcomes] = []
