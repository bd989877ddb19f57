"""Per-test pass/fail outcomes, and their tally: the one place the dashboard learns how tests behaved.

Where outcomes come from (the only code that knows):

- **Today's state.** A PR iteration fails each fingerprint it found and passes each one it lists as ``fixed``;
  a branch run fails its ``failing`` fingerprints, and a complete run passes every fingerprint that failed on an
  earlier run of the same job (a test that failed before and is gone from a later run passed there).
- **The outcome history** (issue 18) when the state has one: lines under ``v1/outcomes/`` in the shape of
  :class:`HistoryLine`. It is the richer record (passing tests, run attempts, provenance, durations), so when it
  is present it replaces the derived outcomes rather than adding to them, which would count a run twice.
  Pointing the dashboard at the final file layout is a change to :data:`HISTORY_GLOB` and :class:`HistoryLine`.

A test is **flaky** here when it failed and passed on the same commit, when the history marks an outcome
``flaky``, or when a branch file lists it as flaky; its **flake rate** is the share of the commits it ran on where
it did both. Outcomes of one place (a PR, a branch) are tallied together and in time order, so a **flip** is a
change of outcome between consecutive runs of one test in one place.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from gauntlet.state.branch import BranchRecord
from gauntlet.state.pr import PRRecord

__all__ = [
    "HISTORY_GLOB",
    "HistoryLine",
    "Outcome",
    "OutcomeTally",
    "TestStats",
    "branch_outcomes",
    "history_outcomes",
    "pr_outcomes",
]

#: Where the outcome history lives under the state root (JSON lines, one :class:`HistoryLine` each).
HISTORY_GLOB = "v1/outcomes/**/*.jsonl"


@dataclass(frozen=True, slots=True)
class Outcome:
    """One test's result in one run: ``place`` is ``pr:<n>`` or ``branch:<name>``."""

    test: str
    place: str
    commit: str
    attempt: str
    passed: bool
    at: datetime
    provenance: str | None = None
    #: Seconds the test took, when the source says.
    duration: float | None = None


class HistoryLine(BaseModel):
    """One line of the outcome history, as the dashboard reads it."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    fingerprint: str
    place: str
    sha: str
    attempt: str = ""
    passed: bool
    at: datetime
    provenance: str | None = None
    duration: float | None = None


def pr_outcomes(record: PRRecord) -> Iterator[Outcome]:
    """The outcomes one PR's iterations show, oldest first."""
    place = f"pr:{record.number}"
    for iteration in record.iterations:
        attempt = iteration.observations[-1] if iteration.observations else str(iteration.number)
        for finding in iteration.findings:
            yield Outcome(finding.fingerprint, place, iteration.head_sha, attempt, False, iteration.at)
        for fingerprint in iteration.fixed:
            yield Outcome(fingerprint, place, iteration.head_sha, attempt, True, iteration.at)


def branch_outcomes(record: BranchRecord) -> Iterator[Outcome]:
    """The outcomes one branch's runs show, oldest first (a run proves a pass only for its own job)."""
    place = f"branch:{record.name}"
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


def history_outcomes(root: Path, problems: list[str]) -> list[list[Outcome]]:
    """The outcome history under ``root``, grouped by place and in time order; ``[]`` when there is none.

    A line that does not parse is skipped and counted in ``problems`` (one entry per file).
    """
    by_place: dict[str, list[Outcome]] = {}
    for path in sorted(root.glob(HISTORY_GLOB)):
        bad = 0
        with path.open("rb") as handle:
            for raw in handle:
                if not raw.strip():
                    continue
                try:
                    line = HistoryLine.model_validate(json.loads(raw))
                except (ValueError, ValidationError):
                    bad += 1
                    continue
                outcome = Outcome(
                    line.fingerprint, line.place, line.sha, line.attempt, line.passed, line.at,
                    line.provenance, line.duration,
                )  # fmt: skip
                by_place.setdefault(line.place, []).append(outcome)
        if bad:
            problems.append(f"{path.relative_to(root).as_posix()}: {bad} unreadable lines skipped")
    return [sorted(group, key=lambda o: o.at) for _, group in sorted(by_place.items())]


@dataclass(slots=True)
class TestStats:
    """How one test (by fingerprint) behaved over every place it ran in."""

    test: str
    runs: int = 0
    failures: int = 0
    flips: int = 0
    last_flip: datetime | None = None
    last_seen: datetime | None = None
    #: Commits it ran on, and those on which it both failed and passed.
    commits: int = 0
    flaky_commits: int = 0
    provenance: Counter[str] = field(default_factory=Counter)
    #: Seconds spent on its failing runs (what a rerun costs at least), when durations are known.
    failed_seconds: float = 0.0
    known_flaky: bool = False

    @property
    def flaky(self) -> bool:
        """Failed and passed on one commit, marked flaky by the history, or listed flaky by a branch."""
        return self.flaky_commits > 0 or self.provenance["flaky"] > 0 or self.known_flaky

    @property
    def flake_rate(self) -> float:
        """Share of the commits it ran on where it both failed and passed."""
        return self.flaky_commits / self.commits if self.commits else 0.0


class OutcomeTally:
    """Tallies outcomes place by place, keeping one :class:`TestStats` per test and nothing per outcome."""

    def __init__(self) -> None:
        self.stats: dict[str, TestStats] = {}
        self.outcomes = 0

    def add_place(self, outcomes: Iterable[Outcome]) -> None:
        """Add the outcomes of one place, oldest first."""
        last: dict[str, bool] = {}
        results: dict[tuple[str, str], set[bool]] = {}
        for outcome in outcomes:
            self.outcomes += 1
            stats = self.stats.get(outcome.test)
            if stats is None:
                stats = self.stats[outcome.test] = TestStats(outcome.test)
            stats.runs += 1
            stats.last_seen = outcome.at if stats.last_seen is None else max(stats.last_seen, outcome.at)
            if not outcome.passed:
                stats.failures += 1
                stats.failed_seconds += outcome.duration or 0.0
            if outcome.provenance:
                stats.provenance[outcome.provenance] += 1
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

    def mark_flaky(self, fingerprints: Iterable[str]) -> None:
        """Mark the fingerprints a branch lists as flaky (they may have no outcome of their own yet)."""
        for fingerprint in fingerprints:
            stats = self.stats.get(fingerprint)
            if stats is None:
                stats = self.stats[fingerprint] = TestStats(fingerprint)
            stats.known_flaky = True
