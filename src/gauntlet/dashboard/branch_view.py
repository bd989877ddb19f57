"""What the dashboard shows of one branch: runs per day, each break with its cause and time to green, reverts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from statistics import median

from gauntlet.state.branch import BranchRecord, Breakage, RevertRecord, RunRecord, same_commit

__all__ = [
    "REVERT_STATUSES",
    "BranchView",
    "BreakRow",
    "DayRow",
    "RevertRow",
    "branch_view",
    "ci_runs",
    "finding_label",
]

#: How a revert PR ended, in the order the page counts them.
REVERT_STATUSES = ("opened", "merged", "withdrawn", "closed unmerged")


@dataclass(frozen=True, slots=True)
class DayRow:
    """Green and red runs of one UTC day."""

    day: str
    green: int
    red: int


@dataclass(frozen=True, slots=True)
class BreakRow:
    """One red spell and what became of it."""

    id: str
    job: str
    opened_at: datetime
    resolved_at: datetime | None
    #: Hours from the first red run to the green run that ended it; ``None`` while still red.
    hours_to_green: float | None
    cause: str
    culprit: str | None
    culprit_subject: str
    decision: str | None
    resolution: str | None


@dataclass(frozen=True, slots=True)
class RevertRow:
    """A revert PR Gauntlet opened."""

    number: int | None
    culprit: str
    subject: str
    opened_at: datetime
    status: str


@dataclass(frozen=True, slots=True)
class BranchView:
    """Everything the branch page shows of one branch."""

    name: str
    last_good: str | None
    runs: int
    red_runs: int
    days: tuple[DayRow, ...]
    breaks: tuple[BreakRow, ...]
    reverts: tuple[RevertRow, ...]
    revert_status: tuple[tuple[str, int], ...]
    flaky: tuple[str, ...]

    @property
    def median_hours_to_green(self) -> float | None:
        """The median time to green over the breaks that ended, if any did."""
        hours = [b.hours_to_green for b in self.breaks if b.hours_to_green is not None]
        return median(hours) if hours else None

    @property
    def open_breaks(self) -> int:
        """Breaks still red."""
        return sum(1 for b in self.breaks if b.resolved_at is None)


def finding_label(test_id: str | None, path: str | None, message: str) -> str:
    """How a failure is named to a person: its test id, else where it is and what it says."""
    if test_id:
        return test_id
    return f"{path}: {message}" if path else message


def branch_view(record: BranchRecord, numbers: Mapping[str, int]) -> BranchView:
    """Reduce one branch file to what its page shows; ``numbers`` is the effect index (key -> PR number), which
    holds a revert PR's number when its record does not."""
    per_day: dict[str, list[int]] = {}
    runs = ci_runs(record)
    for run in runs:
        counts = per_day.setdefault(run.at.strftime("%Y-%m-%d"), [0, 0])
        counts[0 if run.green else 1] += 1
    reverts = sorted(record.reverts, key=lambda r: r.opened_at, reverse=True)
    statuses = Counter(_revert_status(r) for r in record.reverts)
    return BranchView(
        name=record.name,
        last_good=record.last_good,
        runs=len(runs),
        red_runs=sum(1 for run in runs if not run.green),
        days=tuple(DayRow(day, green, red) for day, (green, red) in sorted(per_day.items())),
        breaks=tuple(_break_row(b) for b in sorted(record.breakages, key=lambda b: b.opened_at, reverse=True)),
        reverts=tuple(
            RevertRow(
                r.number or numbers.get(f"revert:{r.culprit[:12]}"),
                r.culprit,
                r.subject,
                r.opened_at,
                _revert_status(r),
            )
            for r in reverts
        ),
        revert_status=tuple((name, statuses[name]) for name in REVERT_STATUSES)
        + tuple(sorted((name, n) for name, n in statuses.items() if name not in REVERT_STATUSES)),
        flaky=tuple(record.flaky),
    )


def ci_runs(record: BranchRecord) -> list[RunRecord]:
    """One row per CI run (its latest attempt): a rerun of the failed jobs is another attempt of the same run,
    not another run (the observation id is ``head:run:attempt:job``)."""
    latest: dict[tuple[str, ...], RunRecord] = {}
    for run in record.runs:
        parts = run.observation.split(":", 3)
        key = (parts[0], parts[1], parts[3]) if len(parts) == 4 else (run.observation,)
        latest[key] = run  # runs are kept in the order they came: the last attempt stands
    return list(latest.values())


def _revert_status(revert: RevertRecord) -> str:
    # ``withdrawn``: Gauntlet closed it because the break went away, not a person's refusal (issue 18), whatever
    # state GitHub was last seen in.
    if revert.withdrawn:
        return "withdrawn"
    return {"open": "opened", "closed_unmerged": "closed unmerged"}.get(revert.status, revert.status)


def _break_row(breakage: Breakage) -> BreakRow:
    subject = ""
    if breakage.culprit and breakage.suspects:
        subject = next((c.subject for c in breakage.suspects if same_commit(c.sha, breakage.culprit)), "")
    causes = [finding_label(f.test_id, f.path, f.message) for f in breakage.findings[:3]]
    more = len(breakage.findings) - len(causes)
    cause = "; ".join(causes) + (f" (+{more} more)" if more > 0 else "")
    hours = None
    if breakage.resolved_at is not None:
        hours = round((breakage.resolved_at - breakage.opened_at).total_seconds() / 3600, 2)
    return BreakRow(
        id=breakage.id,
        job=breakage.job,
        opened_at=breakage.opened_at,
        resolved_at=breakage.resolved_at,
        hours_to_green=hours,
        cause=cause or f"{len(breakage.sightings)} failing fingerprints",
        culprit=breakage.culprit,
        culprit_subject=subject,
        decision=breakage.decision,
        resolution=breakage.resolution,
    )
