"""Recovery (DESIGN §3): what kind of failure a run shows, and what Gauntlet does about it.

Theory of operation
-------------------

Every failing run is one *attempt* of a key: a PR, or one job of the default
branch during one breakage. Recovery answers three questions, each with a table:

1. **Failure type** — from the kinds of the blocking (critical or major) findings,
   the first row that matches wins::

       any test_failure, build_error, type_error, crash   -> broken_build
       any lint, security, review                         -> verification_failed
       only infra, timeout, dependency (and unknown)      -> infra
       only unknown                                       -> unknown
       the same failures on new commits (engine.circular) -> circular_fix  (overrides the above)

2. **Action** — :data:`ACTIONS`, per failure type and scope::

       failure type          pull request   default branch
       broken_build          continue       rollback   (a revert PR, via engine.revert)
       verification_failed   retry          escalate
       circular_fix          escalate       escalate
       infra                 retry          retry      (rerun the failed jobs)
       unknown               retry          retry      (rerun the failed jobs)

   A PR is never rolled back: the author owns the branch, so the PR column has no
   ``rollback`` (checked when this module is imported). ``continue`` on a PR hands
   the failure to the gauntlet loop (``fix_criticals``), whose own iteration budget
   bounds it. ``skip`` is what any action becomes when ``paused: true``.

3. **Budget** — :data:`BUDGETS`: a ``retry`` beyond its budget becomes
   ``escalate`` (a needs-human issue) instead of looping. Attempt numbers count per
   failure type and never decrease, even when old attempts are dropped from state.

On the default branch, ``rollback`` is only the starting point: ``engine.revert``
decides whether the revert is safe and otherwise refuses with a reason code, and
:data:`gauntlet.engine.revert.REFUSAL_ACTIONS` turns each refusal into an action.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from gauntlet.config import RecoveryConfig
from gauntlet.engine.circular import CircularFix
from gauntlet.models import Kind, evolve
from gauntlet.state.pr import Attempt, FindingRecord
from gauntlet.vocabulary import FailureType, RecoveryAction, RecoveryVerdict

__all__ = [
    "ACTIONS",
    "BLOCKING_SEVERITIES",
    "BREAKING_KINDS",
    "BUDGETS",
    "RecoveryScope",
    "action_for",
    "assess",
    "failure_type",
    "next_attempt",
    "paused",
    "run_of",
]

RecoveryScope = Literal["pr", "default_branch"]

BLOCKING_SEVERITIES = frozenset({"critical", "major"})
#: Kinds that mean the change itself is broken: the only ones that can justify a revert (DESIGN §3).
BREAKING_KINDS: frozenset[Kind] = frozenset({"test_failure", "build_error", "type_error", "crash"})
#: Kinds that say the machinery failed, not the change.
INFRA_KINDS: frozenset[Kind] = frozenset({"infra", "timeout", "dependency"})

ACTIONS: dict[tuple[FailureType, RecoveryScope], RecoveryAction] = {
    ("broken_build", "pr"): "continue",
    ("broken_build", "default_branch"): "rollback",
    ("verification_failed", "pr"): "retry",
    ("verification_failed", "default_branch"): "escalate",
    ("circular_fix", "pr"): "escalate",
    ("circular_fix", "default_branch"): "escalate",
    ("infra", "pr"): "retry",
    ("infra", "default_branch"): "retry",
    ("unknown", "pr"): "retry",
    ("unknown", "default_branch"): "retry",
}

#: Which configured budget bounds the retries of a failure type.
BUDGETS: dict[FailureType, Literal["verification_budget", "unknown_budget", "infra_budget"]] = {
    "verification_failed": "verification_budget",
    "unknown": "unknown_budget",
    "infra": "infra_budget",
}

_REASONS: dict[tuple[FailureType, RecoveryAction], str] = {
    ("broken_build", "continue"): "the change breaks tests or the build; push a fix",
    ("broken_build", "rollback"): "a commit broke the default branch; revert it",
    ("verification_failed", "retry"): "a verification (lint, security or review) failed; push a fix",
    ("verification_failed", "escalate"): "a verification (lint, security or review) fails on the default branch",
    ("infra", "retry"): "the CI infrastructure failed, not the change; rerun the failed jobs",
    ("unknown", "retry"): "the failure could not be classified; rerun the failed jobs",
}

if any(action == "rollback" for (_, scope), action in ACTIONS.items() if scope == "pr"):  # pragma: no cover
    raise AssertionError("the recovery table must never roll back a pull request")


def action_for(kind: FailureType, scope: RecoveryScope) -> RecoveryAction:
    """The table's action for a failure type in a scope.

    :raises ValueError: the pair is not in the table (a new failure type without a row).
    """
    try:
        return ACTIONS[(kind, scope)]
    except KeyError:
        raise ValueError(f"no recovery action for {kind!r} on {scope!r}") from None


def failure_type(findings: Iterable[FindingRecord]) -> FailureType | None:
    """The failure type the blocking findings point to, or ``None`` when nothing blocks."""
    kinds = {f.kind for f in findings if f.severity in BLOCKING_SEVERITIES}
    if kinds & BREAKING_KINDS:
        return "broken_build"
    if kinds - INFRA_KINDS - {"unknown"}:
        return "verification_failed"
    if kinds & INFRA_KINDS:
        return "infra"
    if kinds:
        return "unknown"
    return None


def run_of(observation: str) -> str:
    """The run part of an observation id (``sha:run_id:run_attempt``): the jobs of one run are one attempt."""
    return ":".join(observation.split(":", 3)[:3])


def next_attempt(kind: str, attempts: Sequence[Attempt], observation: str = "") -> int:
    """The number of this attempt of ``kind``: one more than any before, so it never decreases.

    Another job of a run already counted is the same attempt; a rerun or a new
    commit is the next one.
    """
    same = [a for a in attempts if a.failure_type == kind]
    run = run_of(observation)
    for earlier in reversed(same):
        if observation and run_of(earlier.observation) == run:
            return max(earlier.number, 1)
    runs = {run_of(a.observation) for a in same}
    return 1 + max([len(runs), *(a.number for a in same)])


def assess(
    findings: Iterable[FindingRecord],
    attempts: Sequence[Attempt],
    scope: RecoveryScope,
    config: RecoveryConfig,
    circular: CircularFix | None = None,
    *,
    observation: str = "",
) -> RecoveryVerdict:
    """Decide the recovery action for the current failures given the key's earlier attempts.

    :param findings: the current findings (only blocking ones count).
    :param attempts: earlier attempts of the same key, oldest first (not including this one).
    :param scope: a PR or the default branch.
    :param config: the retry budgets.
    :param circular: a circular fix :func:`gauntlet.engine.circular.detect` found, if any.
    :param observation: the current observation's id (other jobs of its run are the same attempt).
    """
    kind = failure_type(findings)
    if kind is None:
        return RecoveryVerdict()
    if circular is not None:
        kind = "circular_fix"
    attempt = next_attempt(kind, attempts, observation)
    budget = getattr(config, BUDGETS[kind]) if kind in BUDGETS else None
    action = action_for(kind, scope)
    reason = circular.reason if circular is not None else _REASONS[(kind, action)]
    if kind == "circular_fix":
        reason = f"{reason}; a human should look before another attempt"
    if action == "retry" and budget is not None and attempt > budget:
        action, reason = "escalate", f"{reason}; the retry budget of {budget} is spent, a human is needed"
    return RecoveryVerdict(failure_type=kind, action=action, reason=reason, attempt=attempt, budget=budget)


def paused(verdict: RecoveryVerdict) -> RecoveryVerdict:
    """The verdict with its action held back because ``paused: true`` stops every automatic action."""
    if verdict.failure_type is None:
        return verdict
    return evolve(verdict, action="skip", reason=f"paused: would {verdict.action}: {verdict.reason}")
