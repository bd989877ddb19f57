"""The gauntlet loop (DESIGN §3): criticals must be fixed, majors and minors are human checkpoints.

Theory of operation: every distinct head SHA of a PR is an iteration; observations
of the same SHA merge into it. The current iteration's findings, minus accepted
risks, are counted by severity and give the action::

    criticals > 0  -> fix_criticals
    majors    > 0  -> checkpoint_majors
    minors    > 0  -> checkpoint_minors
    otherwise      -> clean            (nitpicks count for nothing)
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Literal

from gauntlet.config import FailOn
from gauntlet.models import SEVERITY_ORDER, Finding, evolve
from gauntlet.state.base import keep_last
from gauntlet.state.pr import MAX_ITERATIONS_KEPT, FindingRecord, IterationRecord, PRRecord
from gauntlet.vocabulary import Decision, GauntletAction

__all__ = [
    "conclusion_of",
    "decide_iteration",
    "fails_check",
    "gauntlet_action",
    "latest_observation",
    "merge_observation",
]

_FAIL_ON_LEVEL: dict[FailOn, int | None] = {
    "criticals": SEVERITY_ORDER["critical"],
    "majors": SEVERITY_ORDER["major"],
    "minors": SEVERITY_ORDER["minor"],
    "never": None,
}


def gauntlet_action(criticals: int, majors: int, minors: int) -> GauntletAction:
    """The loop's action for the given counts."""
    if criticals:
        return "fix_criticals"
    if majors:
        return "checkpoint_majors"
    if minors:
        return "checkpoint_minors"
    return "clean"


def decide_iteration(iteration: IterationRecord, accepted: Iterable[str]) -> Decision:
    """Count the open findings of ``iteration`` (accepted risks excluded) and decide."""
    waived = set(accepted)
    counts = {"critical": 0, "major": 0, "minor": 0, "nitpick": 0}
    for finding in iteration.findings:
        if finding.fingerprint not in waived:
            counts[finding.severity] += 1
    return Decision(
        action=gauntlet_action(counts["critical"], counts["major"], counts["minor"]),
        iteration=iteration.number,
        criticals=counts["critical"],
        majors=counts["major"],
        minors=counts["minor"],
    )


def conclusion_of(*, failing: bool, misconfigured: bool) -> Literal["success", "failure", "neutral"]:
    """The check's conclusion: a failure fails it; a run whose input patterns found nothing is neutral, not
    green, so a typo in a workflow does not look like a passing change."""
    if failing:
        return "failure"
    return "neutral" if misconfigured else "success"


def fails_check(decision: Decision, fail_on: FailOn) -> bool:
    """True when something at or above ``fail_on`` is still open."""
    level = _FAIL_ON_LEVEL[fail_on]
    if level is None:
        return False
    worst = (
        SEVERITY_ORDER["critical"]
        if decision.criticals
        else SEVERITY_ORDER["major"]
        if decision.majors
        else SEVERITY_ORDER["minor"]
        if decision.minors
        else -1
    )
    return worst >= level


def merge_observation(
    pr: PRRecord,
    observation_id: str,
    head_sha: str,
    findings: Iterable[Finding],
    now: datetime,
    *,
    reviews_read: bool = False,
) -> PRRecord:
    """Fold one observation into the PR's iterations and return the new record.

    The same SHA extends the current iteration; a new SHA starts the next one.
    New / still open / fixed are always relative to the previous iteration.

    :param reviews_read: the observation read the PR's review threads whole: its review findings replace
        the iteration's (an edited comment updates its finding, a closed thread leaves), where other
        observations of the same SHA add to what is known.
    """
    records = [FindingRecord.of(f) for f in findings]
    current = pr.current
    if current is not None and current.head_sha == head_sha:
        earlier = [f for f in current.findings if not (reviews_read and f.from_pr_review)]
        known = {f.fingerprint for f in earlier}
        merged = earlier + [r for r in records if r.fingerprint not in known]
        previous = pr.iterations[-2] if len(pr.iterations) > 1 else None
        iteration = _compare(evolve(current, findings=merged), previous)
        iteration.observations.append(observation_id)
        return evolve(pr, iterations=[*pr.iterations[:-1], iteration])
    number = pr.iteration_count + 1
    fresh = IterationRecord(number=number, head_sha=head_sha, observations=[observation_id], findings=records, at=now)
    iteration = _compare(fresh, current)
    iterations = keep_last([*pr.iterations, iteration], MAX_ITERATIONS_KEPT)
    return evolve(pr, iterations=iterations, iteration_count=number)


def _compare(iteration: IterationRecord, previous: IterationRecord | None) -> IterationRecord:
    now_open = [f.fingerprint for f in iteration.findings]
    before = [f.fingerprint for f in previous.findings] if previous else []
    return evolve(
        iteration,
        observations=list(iteration.observations),
        new=[fp for fp in now_open if fp not in before],
        still_open=[fp for fp in now_open if fp in before],
        fixed=[fp for fp in before if fp not in now_open],
    )


def latest_observation(pr: PRRecord | None) -> tuple[str, str, str, str] | None:
    """``(head_sha, run_id, run_attempt, job)`` of the latest observation of the PR's latest iteration."""
    current = pr.current if pr is not None else None
    if current is None or not current.observations:
        return None
    parts = current.observations[-1].split(":", 3)
    return (parts[0], parts[1], parts[2], parts[3]) if len(parts) == 4 else None
