"""Recovery (DESIGN §3): what kind of failure a run shows and what to do about it.

Theory of operation: the failing findings give a failure type; a table gives the
action for that type on a PR or on the default branch (a PR is never rolled
back); retry budgets turn a retry into an escalation once spent.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from gauntlet.config import RecoveryConfig
from gauntlet.engine.verdicts import RecoveryAction, RecoveryVerdict
from gauntlet.models import Kind
from gauntlet.state.pr import Attempt, FindingRecord

__all__ = ["ACTIONS", "FailureType", "Scope", "assess", "failure_type"]

FailureType = Literal["broken_build", "verification_failed", "circular_fix", "infra", "unknown"]
Scope = Literal["pr", "default_branch"]

#: Kinds that mean the change itself is broken (the only ones that can justify a revert).
BREAKING_KINDS: frozenset[Kind] = frozenset({"test_failure", "build_error", "type_error", "crash"})

ACTIONS: dict[tuple[FailureType, Scope], RecoveryAction] = {
    ("broken_build", "pr"): "continue",
    ("broken_build", "default_branch"): "rollback",
    ("verification_failed", "pr"): "retry",
    ("verification_failed", "default_branch"): "retry",
    ("circular_fix", "pr"): "escalate",
    ("circular_fix", "default_branch"): "escalate",
    ("infra", "pr"): "retry",
    ("infra", "default_branch"): "retry",
    ("unknown", "pr"): "retry",
    ("unknown", "default_branch"): "escalate",
}

_REASONS: dict[FailureType, str] = {
    "broken_build": "the change breaks tests or the build; push a fix",
    "verification_failed": "verification failed; retrying",
    "circular_fix": "the same failures keep coming back although new commits were pushed",
    "infra": "the failure is in the CI infrastructure, not the change; rerun the failed jobs",
    "unknown": "the failure could not be classified; retrying once more",
}


def failure_type(findings: Iterable[FindingRecord]) -> FailureType | None:
    """The failure type the blocking findings point to, or ``None`` when nothing failed."""
    kinds = {f.kind for f in findings if f.severity in ("critical", "major")}
    if kinds & BREAKING_KINDS:
        return "broken_build"
    if kinds and kinds <= {"infra", "timeout"}:
        return "infra"
    if "unknown" in kinds:
        return "unknown"
    return None


def _budget(kind: FailureType, config: RecoveryConfig) -> int | None:
    return {
        "verification_failed": config.verification_budget,
        "unknown": config.unknown_budget,
        "infra": config.infra_budget,
    }.get(kind)


def assess(
    findings: Iterable[FindingRecord], attempts: list[Attempt], scope: Scope, config: RecoveryConfig
) -> RecoveryVerdict:
    """Decide the recovery action for the current failures given earlier attempts."""
    kind = failure_type(findings)
    if kind is None:
        return RecoveryVerdict()
    attempt = 1 + sum(1 for a in attempts if a.failure_type == kind)
    budget = _budget(kind, config)
    action = ACTIONS[(kind, scope)]
    reason = _REASONS[kind]
    if action == "retry" and budget is not None and attempt > budget:
        action, reason = "escalate", f"{reason}; the retry budget of {budget} is spent, a human is needed"
    return RecoveryVerdict(failure_type=kind, action=action, reason=reason, attempt=attempt, budget=budget)
