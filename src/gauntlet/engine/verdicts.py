"""What the engine decided, in the shapes of the run report (DESIGN §8, contract)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from gauntlet.state.pr import GauntletAction

__all__ = ["Decision", "HealthStatus", "HealthVerdict", "ProvenanceReport", "RecoveryAction", "RecoveryVerdict"]

RecoveryAction = Literal["rollback", "retry", "skip", "escalate", "continue"]
HealthStatus = Literal["continue", "warn", "reflect", "block"]


class _Verdict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Decision(_Verdict):
    """The gauntlet loop's verdict for the current iteration."""

    action: GauntletAction
    iteration: int
    criticals: int
    majors: int
    minors: int


class RecoveryVerdict(_Verdict):
    """What recovery decided: ``failure_type`` is ``None`` when nothing failed."""

    failure_type: str | None = None
    action: RecoveryAction = "continue"
    reason: str = "nothing to recover from"
    attempt: int = 0
    budget: int | None = None


class HealthVerdict(_Verdict):
    """Health of the PR or repository, with every reason spelled out."""

    status: HealthStatus = "continue"
    reasons: tuple[str, ...] = ()


class ProvenanceReport(_Verdict):
    """``run --json`` ``provenance`` (DESIGN §8): counts per provenance word, and each failing fingerprint's word."""

    counts: dict[str, int] = {}
    fingerprints: dict[str, str] = {}
