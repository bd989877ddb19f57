"""What the pull requests page shows: every PR counted, the rows of the ones worth a look, accepted risks."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from gauntlet.state.pr import PRRecord

__all__ = ["GREEN_BUCKETS", "MAX_ROWS", "PRCollector", "PRFigures", "PRRow", "RiskRow"]

#: Rows kept per table.
MAX_ROWS = 200
#: Iterations-to-green buckets: 1 … 9, then ``10+``, then PRs never green.
GREEN_BUCKETS = (*(str(n) for n in range(1, 10)), "10+", "not green")


@dataclass(frozen=True, slots=True)
class PRRow:
    """One pull request."""

    number: int
    iterations: int
    #: The first iteration whose check passed (action other than ``fix_criticals``), if any.
    to_green: int | None
    circular: int
    accepted_risks: int
    action: str
    closed: bool
    updated: datetime | None


@dataclass(frozen=True, slots=True)
class RiskRow:
    """One accepted risk."""

    pr: int
    fingerprint: str
    by: str
    reason: str
    at: datetime
    issue: int | None


@dataclass(frozen=True, slots=True)
class PRFigures:
    """The pull requests page."""

    total: int
    green: int
    circular_prs: int
    accepted_risks: int
    histogram: tuple[tuple[str, int], ...]
    rows: tuple[PRRow, ...]
    risks: tuple[RiskRow, ...]


class PRCollector:
    """Counts every PR; keeps rows only for the newest ones and for those with circular fixes or risks."""

    def __init__(self) -> None:
        self.histogram: Counter[str] = Counter()
        self.total = self.circular_prs = self.risk_count = 0
        self.rows: list[PRRow] = []
        self.risks: list[RiskRow] = []

    def add(self, record: PRRecord) -> None:
        """Count one PR and keep its row while it ranks among the :data:`MAX_ROWS` shown."""
        row = _pr_row(record)
        self.total += 1
        self.histogram[_bucket(row.to_green)] += 1
        self.circular_prs += row.circular > 0
        self.risk_count += row.accepted_risks
        self.rows.append(row)
        self.risks.extend(
            RiskRow(record.number, r.fingerprint, r.by, r.reason, r.at, r.issue) for r in record.accepted_risks
        )
        # Trim in batches, so the work stays linear in the number of PRs.
        if len(self.rows) > 4 * MAX_ROWS:
            self.rows = self._ranked(self.rows)
        if len(self.risks) > 4 * MAX_ROWS:
            self.risks = sorted(self.risks, key=lambda r: r.at, reverse=True)[:MAX_ROWS]

    @staticmethod
    def _ranked(rows: list[PRRow]) -> list[PRRow]:
        # Circular fixes first (what needs a look), then the most recently active.
        return sorted(
            rows, key=lambda r: (r.circular > 0, r.updated.timestamp() if r.updated else 0.0, r.number), reverse=True
        )[:MAX_ROWS]

    def figures(self) -> PRFigures:
        """The page's figures over every PR added."""
        return PRFigures(
            total=self.total,
            green=self.total - self.histogram["not green"],
            circular_prs=self.circular_prs,
            accepted_risks=self.risk_count,
            histogram=tuple((bucket, self.histogram[bucket]) for bucket in GREEN_BUCKETS),
            rows=tuple(self._ranked(self.rows)),
            risks=tuple(sorted(self.risks, key=lambda r: r.at, reverse=True)[:MAX_ROWS]),
        )


def _pr_row(record: PRRecord) -> PRRow:
    green = next((i.number for i in record.iterations if i.action != "fix_criticals"), None)
    current = record.current
    return PRRow(
        number=record.number,
        iterations=record.iteration_count,
        to_green=green,
        circular=sum(1 for a in record.attempts if a.failure_type == "circular_fix"),
        accepted_risks=len(record.accepted_risks),
        action=current.action if current else "-",
        closed=record.closed,
        updated=current.at if current else None,
    )


def _bucket(to_green: int | None) -> str:
    if to_green is None:
        return "not green"
    return str(to_green) if to_green < 10 else "10+"
