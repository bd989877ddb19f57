"""``gauntlet status``: a summary of what the state folder holds."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from gauntlet.errors import InputError
from gauntlet.state.branch import BranchRecord
from gauntlet.state.pr import PRRecord

__all__ = ["BranchLine", "PRLine", "StatusSummary", "summarise"]


class PRLine(BaseModel):
    """One PR as the status lists it."""

    model_config = ConfigDict(frozen=True)

    number: int
    iteration: int
    action: str
    open_findings: int
    accepted_risks: int


class BranchLine(BaseModel):
    """One branch as the status lists it."""

    model_config = ConfigDict(frozen=True)

    name: str
    last_good: str | None
    runs: int


class StatusSummary(BaseModel):
    """The whole status report."""

    model_config = ConfigDict(frozen=True)

    state_dir: str
    prs: tuple[PRLine, ...] = ()
    branches: tuple[BranchLine, ...] = ()

    def text(self) -> str:
        """The summary for people."""
        if not self.prs and not self.branches:
            return f"{self.state_dir}: no state yet"
        lines = [f"{self.state_dir}:"]
        lines += [
            f"  PR #{p.number}: iteration {p.iteration}, {p.action}, {p.open_findings} open, "
            f"{p.accepted_risks} accepted"
            for p in self.prs
        ]
        lines += [f"  branch {b.name}: last good {b.last_good or '-'} ({b.runs} runs)" for b in self.branches]
        return "\n".join(lines)


def summarise(state_dir: Path) -> StatusSummary:
    """Read every PR and branch file of a local state folder.

    :raises InputError: a state file is not valid.
    """
    try:
        prs = [_pr_line(PRRecord.model_validate_json(data)) for data in _files(state_dir / "v1" / "prs")]
        branches = [
            _branch_line(BranchRecord.model_validate_json(data)) for data in _files(state_dir / "v1" / "branches")
        ]
    except ValidationError as exc:
        raise InputError(f"{state_dir}: a state file is invalid: {exc.errors()[0]['msg']}") from exc
    return StatusSummary(
        state_dir=str(state_dir),
        prs=tuple(sorted(prs, key=lambda p: p.number)),
        branches=tuple(sorted(branches, key=lambda b: b.name)),
    )


def _files(folder: Path) -> list[bytes]:
    return [path.read_bytes() for path in sorted(folder.glob("*.json"))]


def _pr_line(record: PRRecord) -> PRLine:
    current = record.current
    return PRLine(
        number=record.number,
        iteration=record.iteration_count,
        action=current.action if current else "-",
        open_findings=len(current.findings) if current else 0,
        accepted_risks=len(record.accepted_risks),
    )


def _branch_line(record: BranchRecord) -> BranchLine:
    return BranchLine(name=record.name, last_good=record.last_good, runs=len(record.runs))
