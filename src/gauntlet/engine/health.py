"""Health (DESIGN §3): ``continue`` | ``warn`` | ``reflect`` | ``block``, with every reason spelled out."""

from __future__ import annotations

from gauntlet.config import HealthConfig
from gauntlet.engine.verdicts import HealthStatus, HealthVerdict, RecoveryVerdict

__all__ = ["assess_pr"]

_RANK: dict[HealthStatus, int] = {"continue": 0, "warn": 1, "reflect": 2, "block": 3}


def assess_pr(iteration: int, max_iterations: int, recovery: RecoveryVerdict, config: HealthConfig) -> HealthVerdict:
    """Health of a PR from its iteration pressure and the recovery verdict."""
    findings: list[tuple[HealthStatus, str]] = []
    pressure = iteration / max_iterations
    if pressure >= config.pressure_block:
        findings.append(("block", f"iteration budget spent ({iteration} of {max_iterations})"))
    elif pressure >= config.pressure_warn:
        findings.append(("warn", f"iteration pressure {pressure:.0%} ({iteration} of {max_iterations})"))
    if recovery.failure_type == "circular_fix":
        findings.append(("reflect", recovery.reason))
    if not findings:
        return HealthVerdict()
    status = max((s for s, _ in findings), key=_RANK.__getitem__)
    return HealthVerdict(status=status, reasons=tuple(reason for _, reason in findings))
