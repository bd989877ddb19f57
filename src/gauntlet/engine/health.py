"""Health (DESIGN §3): ``continue`` | ``warn`` | ``reflect`` | ``block``, with every reason spelled out.

Theory of operation. Each signal gives a status and a sentence; the verdict is
the worst status, with all the sentences::

    iteration pressure  iteration / max_iterations ≥ 0.8 -> warn, ≥ 1.0 -> block
    circular fix        recovery saw the same failures come back       -> reflect
    stall               red for longer than stall_hours (24)           -> warn
    flakiness           a failure failed and passed on one commit      -> warn
                        (the PR's outcome history; flips across commits
                        are the author's work, e.g. a circular fix)
    verification        retries of a failed verification spent         -> warn
    (repository)        proposals rolled back or waiting for a human   -> warn

``block`` fails the check and files a needs-human issue (:func:`block_issue`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from gauntlet.config import HealthConfig
from gauntlet.effects.models import FileIssue
from gauntlet.effects.views import IssueView
from gauntlet.engine import outcomes
from gauntlet.state.branch import BranchRecord
from gauntlet.state.pr import IterationRecord, PRRecord
from gauntlet.state.shared import ProposalBook
from gauntlet.vocabulary import HealthStatus, HealthVerdict, RecoveryVerdict

__all__ = ["assess_pr", "assess_repository", "block_issue", "verdict_of"]

_RANK: dict[HealthStatus, int] = {"continue": 0, "warn": 1, "reflect": 2, "block": 3}
Signal = tuple[HealthStatus, str]


def verdict_of(signals: Sequence[Signal]) -> HealthVerdict:
    """The worst status of ``signals``, with every reason in order; ``continue`` when there are none."""
    if not signals:
        return HealthVerdict()
    status = max((s for s, _ in signals), key=_RANK.__getitem__)
    return HealthVerdict(status=status, reasons=tuple(reason for _, reason in signals))


def assess_pr(
    iteration: int,
    max_iterations: int,
    recovery: RecoveryVerdict,
    config: HealthConfig,
    *,
    pr: PRRecord | None = None,
    now: datetime | None = None,
) -> HealthVerdict:
    """Health of a PR: iteration pressure and the recovery verdict, plus stall and flakiness given its record.

    :param pr: the PR's record after this run (its iterations give stall time and flakiness).
    :param now: the time of the run (needed for the stall time).
    """
    signals: list[Signal] = []
    pressure = iteration / max_iterations
    if pressure >= config.pressure_block:
        signals.append(("block", f"iteration budget spent ({iteration} of {max_iterations})"))
    elif pressure >= config.pressure_warn:
        signals.append(("warn", f"iteration pressure {pressure:.0%} ({iteration} of {max_iterations})"))
    if recovery.failure_type == "circular_fix":
        signals.append(("reflect", f"circular fix: {recovery.reason}"))
    if recovery.failure_type == "verification_failed" and recovery.action == "escalate":
        signals.append(("warn", f"verification keeps failing: {recovery.reason}"))
    if pr is not None and now is not None:
        signals.extend(_stall(pr.iterations, now, config))
        # The PR's outcome history, judged as provenance judges it: only a flip on one commit is flakiness.
        flaky = outcomes.flaky_on_one_commit(pr.outcomes)
        if flaky:
            signals.append(("warn", f"flaky: {len(flaky)} failure(s) failed and passed on the same commit"))
    return verdict_of(signals)


def assess_repository(
    branch: BranchRecord | None, proposals: ProposalBook, config: HealthConfig, now: datetime, *, watch_days: int = 7
) -> HealthVerdict:
    """Health of the repository: the default branch's red time and flakiness, and self-healing's state."""
    signals: list[Signal] = []
    if branch is not None and branch.runs:
        red = [run for run in branch.runs if not run.green]
        trailing = []
        for run in reversed(branch.runs):
            if run.green:
                break
            trailing.append(run)
        if trailing and now - trailing[-1].at > timedelta(hours=config.stall_hours):
            hours = (now - trailing[-1].at).total_seconds() / 3600
            signals.append(("warn", f"{branch.name} has been red for {hours:.0f} h"))
        green_shas = {run.head_sha for run in branch.runs if run.green}
        flaky = sorted({run.head_sha for run in red if run.head_sha in green_shas})
        if flaky:
            signals.append(("warn", f"flaky: {len(flaky)} commit(s) on {branch.name} were both red and green"))
    recent = now - timedelta(days=watch_days)
    rolled = [
        p.id for p in proposals.proposals if p.status == "rolled_back" and (p.watch_until or p.created_at) >= recent
    ]
    if rolled:
        signals.append(("warn", f"rolled back: {', '.join(rolled)} made its defect worse"))
    waiting = [p.id for p in proposals.proposals if p.status == "needs_human"]
    if waiting:
        signals.append(("warn", f"waiting for a human: {', '.join(waiting)} (MAJOR)"))
    return verdict_of(signals)


def block_issue(verdict: HealthVerdict, repository: str, pr: int) -> FileIssue | None:
    """The needs-human issue a blocked PR files: one per PR, found again (not commented on) while it stays blocked."""
    if verdict.status != "block":
        return None
    return FileIssue(
        kind="needs-human",
        ident=f"health-pr-{pr}",
        title=f"PR #{pr} is blocked: a human is needed",
        labels=("gauntlet", "needs-human"),
        view=IssueView(
            repository=repository,
            summary=f"Gauntlet stopped iterating on PR #{pr}",
            why="; ".join(verdict.reasons),
            decision="The check fails until a human looks at the PR.",
            evidence=verdict.reasons,
            resolve="Split the change, fix the failures by hand, or `/gauntlet reset` to start the budget again.",
            pr=pr,
        ),
    )


def _stall(iterations: Sequence[IterationRecord], now: datetime, config: HealthConfig) -> list[Signal]:
    red_since: datetime | None = None
    for it in reversed(iterations):
        if not any(f.severity in ("critical", "major") for f in it.findings):
            break
        red_since = it.at
    if red_since is None or now - red_since <= timedelta(hours=config.stall_hours):
        return []
    hours = (now - red_since).total_seconds() / 3600
    return [("warn", f"stalled: red for {hours:.0f} h (more than {config.stall_hours:g} h)")]
