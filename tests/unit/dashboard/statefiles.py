"""Small state folders for the dashboard tests, written with the state's own models and encoder."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pydantic import BaseModel

from gauntlet.state.branch import BranchRecord, RunRecord
from gauntlet.state.codec import encode_file
from gauntlet.state.models import SHARED_FILES, branch_path, pr_path
from gauntlet.state.pr import FindingRecord, IterationRecord, PRRecord

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def at(hours: float) -> datetime:
    return T0 + timedelta(hours=hours)


def finding(fingerprint: str, test_id: str | None = None, message: str = "assert 1 == 2") -> FindingRecord:
    return FindingRecord(
        fingerprint=fingerprint, source="junit", tool="pytest", kind="test_failure", severity="critical",
        path="tests/test_x.py", test_id=test_id, message=message,
    )  # fmt: skip


def iteration(number: int, sha: str, failing: list[FindingRecord], fixed: Sequence[str] = ()) -> IterationRecord:
    return IterationRecord(
        number=number, head_sha=sha, observations=[f"{sha}/1"], findings=failing, fixed=list(fixed),
        action="fix_criticals" if failing else "clean", at=at(number),
    )  # fmt: skip


def run(
    sha: str, hours: float, failing: Sequence[str] = (), *, job: str = "ci/test", complete: bool = True
) -> RunRecord:
    return RunRecord(
        observation=f"{sha}/{hours}", head_sha=sha, at=at(hours), green=not failing, failing=list(failing), job=job,
        complete=complete,
    )  # fmt: skip


def write(
    root: Path, *, prs: Sequence[PRRecord] = (), branches: Sequence[BranchRecord] = (), **shared: BaseModel
) -> Path:
    for record in prs:
        _put(root / pr_path(record.number), encode_file(record))
    for branch in branches:
        _put(root / branch_path(branch.name), encode_file(branch))
    for name, model in shared.items():
        _put(root / SHARED_FILES[name], encode_file(model))
    return root


def _put(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
