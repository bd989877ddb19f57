"""The data every rendered body is made from. Templates see only these (untrusted text as data)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from gauntlet.engine.verdicts import Decision, HealthVerdict, RecoveryVerdict
from gauntlet.state.pr import AcceptedRisk, Attempt, FindingRecord

__all__ = ["RunView"]


class RunView(BaseModel):
    """One run's outcome for a PR or branch: the sticky comment, the check and the job summary."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    repository: str
    pr: int | None = None
    branch: str | None = None
    head_sha: str
    decision: Decision | None = None
    fail_on: str = "criticals"
    new: tuple[FindingRecord, ...] = ()
    still_open: tuple[FindingRecord, ...] = ()
    fixed: tuple[FindingRecord, ...] = ()
    accepted: tuple[AcceptedRisk, ...] = ()
    recovery: RecoveryVerdict = RecoveryVerdict()
    health: HealthVerdict = HealthVerdict()
    attempts: tuple[Attempt, ...] = ()
    notes: tuple[str, ...] = ()
