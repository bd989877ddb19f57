"""A run on a branch that is not a PR (DESIGN §3): record it, keep last-good, and recover the default branch.

Theory of operation: every run is recorded once (a redelivered observation
changes nothing and plans only the report). A green run moves last-good forward
and ends its job's breakage — unless infrastructure cut it short: such a run
verified nothing and is handled like a red one. On the default branch a red run opens or extends
the job's :class:`~gauntlet.state.branch.Breakage`; :mod:`gauntlet.engine.revert`
decides whether its culprit is reverted, :mod:`gauntlet.engine.recovery` turns
that into an action, and the action into effects::

    rollback  -> OpenRevertPR (auto_revert on; shadow records it, off escalates)
    retry     -> RerunFailedJobs, within the breakage's rerun budget
    escalate  -> FileIssue(kind="needs-human"), once per breakage
    skip      -> nothing

``paused: true`` keeps the report and records everything, but plans no action.
"""

from __future__ import annotations

from datetime import datetime

from gauntlet.config import Config
from gauntlet.effects.models import (
    Effect,
    FileIssue,
    OpenRevertPR,
    Plan,
    RerunFailedJobs,
    SetCheck,
    WriteSummary,
)
from gauntlet.effects.views import IssueView, RevertView, RunView
from gauntlet.engine import breakages, circular, flaky_issues, known, learning, outcomes, recovery, selfheal
from gauntlet.engine.loop import conclusion_of, fails_check, gauntlet_action
from gauntlet.engine.results import known_numbers, remember
from gauntlet.engine.revert import CONFIRMING_SIGHTINGS, RevertDecision, decide_revert, first_parent_chain
from gauntlet.engine.triage import triage_branch_run
from gauntlet.models import CommitFact, Observation, evolve
from gauntlet.state.base import keep_last
from gauntlet.state.branch import (
    MAX_BREAKAGE_ATTEMPTS,
    MAX_DAYS_KEPT,
    MAX_REVERTS_KEPT,
    BranchRecord,
    Breakage,
    RevertRecord,
)
from gauntlet.state.events import Event
from gauntlet.state.models import State
from gauntlet.state.pr import Attempt, FindingRecord
from gauntlet.vocabulary import Decision, RecoveryVerdict, RevertReason

__all__ = ["decision_of", "recorded", "step_branch", "verified_green"]

NEEDS_HUMAN_LABELS = ("gauntlet", "needs-human")
#: What a revert decision is recorded as, per ``auto_revert`` mode.
_MODE_DECISION = {"on": "revert", "shadow": "shadow", "off": "off"}


def step_branch(state: State, obs: Observation, config: Config, now: datetime) -> tuple[State, Plan]:
    """Record a branch run and, on the default branch, recover from a red one.

    :param state: the slice with ``state.branch`` loaded.
    :param obs: a run on a branch (not a PR).
    :param config: the repository configuration.
    :param now: the time of the run.
    """
    assert state.branch is not None
    records = [FindingRecord.of(f) for f in obs.findings]
    decision = decision_of(records)
    green, complete = _judge(records, decision, config)
    branch = state.branch
    if recorded(branch, obs):
        verdict = _recorded_verdict(branch, obs)
        # The same CI run delivered again asks again for the rerun it was judged to need: a step of the CI job
        # cannot rerun its own run, the same run seen from ``workflow_run`` can (and once it has been rerun,
        # GitHub's later attempt makes the request a no-op).
        again = (_rerun(obs),) if verdict.action == "retry" and _rerunnable(obs) and not config.paused else ()
        return state, _plan(obs, branch, config, decision, green, verdict, again)
    # Accepted-risk issues (engine/triage.py): what this run shows ends or reopens them.
    state, triaged = triage_branch_run(state, obs, config, now, complete=complete)
    branch = breakages.fold_revert_facts(branch, obs, state.index.entries, now)
    for fact in obs.revert_prs:  # a revert PR whose run died before saving: the index finds it from now on
        state = remember(state, OpenRevertPR.key_of(fact.culprit), fact.number)
    branch = breakages.record_run(branch, obs, records, green=green and complete, complete=complete, now=now)
    flaky_before = outcomes.flaky_fingerprints(branch.outcomes, config.provenance)
    branch = evolve(branch, outcomes=outcomes.record(branch.outcomes, outcomes.of_run(obs, records, complete), now))
    flaky = outcomes.flaky_fingerprints(branch.outcomes, config.provenance)
    events = [*state.events, Event(at=now, kind="branch_run", key=f"branch:{branch.name}", data={"green": green})]
    effects: tuple[Effect, ...] = ()
    if not obs.on_default_branch:
        scope: recovery.RecoveryScope = "pr"  # a feature branch is somebody's work in progress: never rolled back
        verdict = recovery.assess(records, [], scope, config.recovery)
    elif green and complete:
        branch, effects = breakages.recover(branch, obs, now)
        verdict = RecoveryVerdict()
    else:
        known_now = known.match(obs.findings, obs.known_failures.rules) if obs.known_failures is not None else {}
        branch, verdict, effects, event = _red(branch, obs, records, config, now, set(flaky), set(known_now))
        events.append(event)
    if obs.on_default_branch:
        branch, withdrawn = breakages.withdraw_reverted_by_hand(branch, obs)
        effects = (*effects, *withdrawn)
        if config.provenance.flaky_issues:
            run = f"{obs.run_id}.{obs.run_attempt}"
            flakes = flaky_issues.flaked(branch, flaky, flaky_before, obs.head_sha, run)
            branch, filed = flaky_issues.plan_flaky_issues(
                branch, flaky, flakes, repository=obs.repository, commit=obs.head_sha, run=run, config=config, now=now
            )
            effects = (*effects, *filed)
    if obs.on_default_branch and obs.known_failures is not None:
        branch, noted = _known(branch, obs, known_numbers(state))
        effects = (*effects, *noted)
    if config.paused:
        verdict, effects = recovery.paused(verdict), ()
    # Self-healing counts defects on branches too (a critical on the default branch is P0); a green run after
    # a red one records its failure→fix pairs, shown when the same failure appears on a PR.
    place = f"branch:{branch.name}"
    # What the run exercised: its findings' components and what its commit changed (a green run counts too).
    changed = obs.changed_files or (obs.commits[0].files if obs.commits else ())
    defects = selfheal.record_defects(state.defects, obs.findings, place, now, config.components, changed, obs.owners)
    learnings = learning.record_branch_fixes(
        state.learnings, defects, branch.runs, place, obs.fix_diff, now, {*flaky, *branch.flaky}
    )
    state = evolve(state, branch=branch, events=events, defects=defects, learnings=learnings)
    return state, _plan(obs, branch, config, decision, green, verdict, (*effects, *triaged))


def _known(branch: BranchRecord, obs: Observation, answered: dict[str, int]) -> tuple[BranchRecord, tuple[Effect, ...]]:
    """A hit on each known-failure issue the run's failures matched (one comment per branch, with a count), and
    the answers to the issues whose rule cannot be used (``engine/known.py``)."""
    read = obs.known_failures
    assert read is not None
    matched = known.match(obs.findings, read.rules)
    if matched:
        branch = evolve(branch, known_hits=known.count_hits(branch.known_hits, matched, obs.head_sha))
    return branch, (*known.hit_effects(branch.known_hits, matched, branch=branch.name), *known.answers(read, answered))


def recorded(branch: BranchRecord, obs: Observation) -> bool:
    """True when ``obs`` was recorded already: delivered again, it changes nothing."""
    return any(run.observation == obs.id for run in branch.runs)


def verified_green(obs: Observation, config: Config) -> bool:
    """True when ``obs`` is a green run that ran to the end: it moves last-good and needs no recovery.

    The edge asks before reading a red run's history (``action/branch_reads.py``).
    """
    records = [FindingRecord.of(f) for f in obs.findings]
    green, complete = _judge(records, decision_of(records), config)
    return green and complete


def _judge(records: list[FindingRecord], decision: Decision, config: Config) -> tuple[bool, bool]:
    """Whether the run is green (nothing at ``fail_on``), and complete (not cut short by infrastructure)."""
    green = not fails_check(decision, config.gauntlet.fail_on)
    return green, recovery.failure_type(records) not in ("infra", "unknown")


def decision_of(records: list[FindingRecord]) -> Decision:
    """The counts of a run that is no PR iteration (a branch or merge queue run), and what they call for."""
    counts = {s: sum(1 for f in records if f.severity == s) for s in ("critical", "major", "minor")}
    return Decision(
        action=gauntlet_action(counts["critical"], counts["major"], counts["minor"]),
        iteration=0,
        criticals=counts["critical"],
        majors=counts["major"],
        minors=counts["minor"],
    )


def _red(
    branch: BranchRecord,
    obs: Observation,
    records: list[FindingRecord],
    config: Config,
    now: datetime,
    flaky: set[str],
    known_fps: set[str],
) -> tuple[BranchRecord, RecoveryVerdict, tuple[Effect, ...], Event]:
    """Fold a red run into its breakage, decide, and plan the action."""
    chain = first_parent_chain(obs.commits)
    branch, breakage, closed = breakages.breakage_for(branch, obs, records, now)
    breakage = breakages.extend(breakage, obs, records, chain)
    if obs.failed_jobs:
        breakage = evolve(breakage, failed_jobs=sorted({*breakage.failed_jobs, *obs.failed_jobs}))
    branch = evolve(branch, breakages=breakages.replace(branch.breakages, breakage))
    revert = decide_revert(branch, breakage, records, chain, config.revert, now, flaky, known_fps)
    rerunnable = _rerunnable(obs)
    verdict = _unless_unconfirmed(_verdict(branch, breakage, records, revert, config), breakage, rerunnable, config)
    effects: list[Effect] = list(closed)
    update: dict[str, object] = {
        "culprit": revert.culprit.sha if revert.culprit else None,
        "decision": str(revert.refusal) if revert.refusal else _MODE_DECISION[config.revert.auto_revert],
        "detail": revert.detail,
    }
    if verdict.action == "rollback" and revert.culprit is not None:
        effects.append(_revert_pr(obs, breakage, revert, chain))
        branch = _count_revert(branch, breakage, revert, now)
    elif verdict.action == "retry":
        update["reruns"] = breakage.reruns + 1
        if rerunnable:
            effects.append(_rerun(obs))
    elif verdict.action == "escalate" and not breakage.escalated:
        update["escalated"] = True
        effects.append(_needs_human(obs, branch.name, breakage, revert, verdict))
    attempt = Attempt(
        at=now,
        observation=obs.id,
        head_sha=obs.head_sha,
        failure_type=verdict.failure_type or "unknown",
        action=verdict.action,
        reason=verdict.reason,
        fingerprints=sorted(f.fingerprint for f in records if f.severity in recovery.BLOCKING_SEVERITIES),
        number=verdict.attempt,
    )
    update |= {
        "attempts": keep_last([*breakage.attempts, attempt], MAX_BREAKAGE_ATTEMPTS),
        "attempt_count": verdict.attempt,
    }
    breakage = evolve(breakage, **update)
    branch = evolve(branch, breakages=breakages.replace(branch.breakages, breakage))
    event = Event(
        at=now,
        kind="revert_decision",
        key=f"branch:{branch.name}",
        data={
            "breakage": breakage.id,
            "culprit": breakage.culprit,
            "decision": breakage.decision,
            "detail": revert.detail,
            "action": verdict.action,
        },
    )
    return branch, verdict, tuple(effects), event


def _verdict(
    branch: BranchRecord, breakage: Breakage, records: list[FindingRecord], revert: RevertDecision, config: Config
) -> RecoveryVerdict:
    """Compose the recovery verdict: the failure-type table, refined by the revert decision and budgets."""
    history = breakages.failing_sets(branch, breakage)
    loop = circular.detect(
        history, window=config.recovery.circular_window, threshold=config.recovery.circular_similarity
    )
    base = recovery.assess(records, breakage.attempts, "default_branch", config.recovery)
    attempt = breakage.attempt_count + 1
    if base.failure_type == "broken_build":
        action = revert.action
        reason = _revert_reason(revert, config)
        if action == "rollback" and config.revert.auto_revert != "on":
            action = "skip" if config.revert.auto_revert == "shadow" else "escalate"
        budget = _rerun_budget(revert, config) if action == "retry" else None
        verdict = RecoveryVerdict(failure_type="broken_build", action=action, reason=reason, attempt=attempt)
    else:
        budget = base.budget if base.action == "retry" else None
        verdict = evolve(base, attempt=attempt)
    if verdict.action == "retry" and budget is not None and breakage.reruns >= budget:
        verdict = evolve(
            verdict, action="escalate", reason=f"{verdict.reason}; {budget} rerun(s) spent, a human is needed"
        )
    if loop is not None and verdict.action in ("retry", "skip"):
        verdict = evolve(
            verdict,
            failure_type="circular_fix",
            action="escalate",
            reason=f"{loop.reason}; {verdict.reason}",
        )
    return evolve(verdict, budget=budget)


def _unless_unconfirmed(
    verdict: RecoveryVerdict, breakage: Breakage, rerunnable: bool, config: Config
) -> RecoveryVerdict:
    """Hold back a needs-human issue about a broken build until a confirmation rerun has spoken.

    A breakage is confirmed once a failure of it has been seen twice (its rerun, or a later run failed too);
    before that the job is rerun once instead (a one-off flake ends there, green). When no rerun can run
    (``confirm_reruns: 0``, or a run Gauntlet cannot rerun), the issue is filed and says so.
    """
    if verdict.action != "escalate" or verdict.failure_type not in ("broken_build", "circular_fix"):
        return verdict
    if any(seen >= CONFIRMING_SIGHTINGS for seen in breakage.sightings.values()):
        return verdict
    if rerunnable and config.revert.confirm_reruns and breakage.reruns < config.revert.confirm_reruns:
        why = f"{verdict.reason}; rerunning once to confirm the failure before asking a human"
        return evolve(verdict, action="retry", reason=why)
    why = "this run cannot be rerun" if config.revert.confirm_reruns else "confirm_reruns is 0"
    return evolve(verdict, reason=f"{verdict.reason}; not confirmed by a rerun ({why})")


def _revert_reason(revert: RevertDecision, config: Config) -> str:
    if revert.refusal is None:
        culprit = revert.culprit.sha[:7] if revert.culprit else "?"
        mode = {"on": "reverting", "shadow": "shadow mode: would revert", "off": "auto_revert is off: would revert"}
        return f"{mode[config.revert.auto_revert]} {culprit}: {revert.detail}"
    return f"no revert ({revert.refusal}): {revert.detail}"


def _rerun_budget(revert: RevertDecision, config: Config) -> int:
    if revert.refusal == RevertReason.INFRA:
        return config.recovery.infra_budget
    # With confirm_reruns 0 Gauntlet waits for later runs instead of rerunning, however many it needs.
    reruns = config.revert.confirm_reruns
    return reruns + revert.extra_reruns if reruns else 0


def _count_revert(branch: BranchRecord, breakage: Breakage, revert: RevertDecision, now: datetime) -> BranchRecord:
    assert revert.culprit is not None
    record = RevertRecord(
        culprit=revert.culprit.sha, subject=revert.culprit.subject, breakage=breakage.id, opened_at=now
    )
    day = now.date().isoformat()
    daily = {**branch.daily, day: branch.daily.get(day, 0) + 1}
    daily = dict(sorted(daily.items())[-MAX_DAYS_KEPT:])
    return evolve(branch, reverts=keep_last([*branch.reverts, record], MAX_REVERTS_KEPT), daily=daily)


def _revert_pr(obs: Observation, breakage: Breakage, revert: RevertDecision, chain: list[CommitFact]) -> OpenRevertPR:
    assert revert.culprit is not None
    # The parent's tree is the revert while the culprit is the head (github/reverts.py); a commit that changed
    # nothing has nothing to revert, which the edge finds out by comparing trees.
    parent = next((c for c in chain if revert.culprit.parents and c.sha == revert.culprit.parents[0]), None)
    parent_tree = parent.tree if parent is not None and revert.culprit.files else None
    evidence = [revert.detail, *run_evidence(obs, breakage)]
    view = RevertView(
        repository=obs.repository,
        culprit=revert.culprit.sha,
        subject=revert.culprit.subject,
        author=revert.culprit.author,
        failing_runs=tuple(breakage.observations[-5:]),
        evidence=tuple(evidence[:20]),
    )
    return OpenRevertPR(culprit=revert.culprit.sha, base=obs.default_branch, view=view, parent_tree=parent_tree)


def failing_jobs(breakage: Breakage) -> str:
    """The CI jobs a breakage is about, as reports name them: the jobs seen failing, else its job key."""
    workflow = breakage.job.split("/", 1)[0]
    named = [f"`{workflow}/{job}`" if workflow else f"`{job}`" for job in breakage.failed_jobs]
    return ", ".join(named) or f"`{breakage.job}`"


def run_evidence(obs: Observation, breakage: Breakage) -> list[str]:
    """The failing jobs, the run and the log lines of each failure (for the issue or PR that reports it)."""
    lines = [f"failing CI job(s): {failing_jobs(breakage)} in run {obs.run_id} (attempt {obs.run_attempt})"]
    seen = [f for f in obs.findings if f.severity in recovery.BLOCKING_SEVERITIES]
    for f in seen[:10]:
        span = f" (log lines {f.log_lines[0]}–{f.log_lines[1]})" if f.log_lines else ""
        lines.append(f"{f.kind}: {f.test_id or f.path or ''} {f.message}".strip() + span)
    if not seen:  # a redelivery or a rerun without findings: what the breakage recorded
        lines.extend(f"{f.kind}: {f.test_id or f.path or ''} {f.message}".strip() for f in breakage.findings[:10])
    return lines


def _needs_human(
    obs: Observation, name: str, breakage: Breakage, revert: RevertDecision, verdict: RecoveryVerdict
) -> FileIssue:
    first = breakage.findings[0] if breakage.findings else None
    suspects = [f"suspect {sha[:7]}" for sha in revert.suspects]
    jobs = failing_jobs(breakage)
    view = IssueView(
        repository=obs.repository,
        summary=f"{jobs} on `{name}` is red since {breakage.first_red[:7]} and Gauntlet will not fix it.",
        severity=first.severity if first else None,
        path=first.path if first else None,
        line=first.line if first else None,
        commit=revert.culprit.sha if revert.culprit else breakage.first_red,
        decision=verdict.reason,
        evidence=tuple([*run_evidence(obs, breakage), *suspects][:20]),
        resolve=f"push a fix, or a revert of the culprit (`git revert <sha>`); Gauntlet closes this issue when "
        f"{jobs} is green again on `{name}`",
    )
    code = revert.refusal or "auto_revert off"
    return FileIssue(
        kind="needs-human",
        ident=breakages.issue_ident(name, breakage),
        title=f"{name} is red: {jobs.replace('`', '')} ({verdict.failure_type}, {code})",
        view=view,
        labels=NEEDS_HUMAN_LABELS,
    )


def _rerunnable(obs: Observation) -> bool:
    """True when ``obs`` came from a GitHub run whose failed jobs can be rerun (a local run's id is 0)."""
    return obs.run_id.isdigit() and obs.run_id != "0" and obs.run_attempt.isdigit()


def _rerun(obs: Observation) -> RerunFailedJobs:
    return RerunFailedJobs(run_id=int(obs.run_id), attempt=int(obs.run_attempt))


def _recorded_verdict(branch: BranchRecord, obs: Observation) -> RecoveryVerdict:
    """The verdict given when ``obs`` was first seen (a redelivery reports it again)."""
    for breakage in branch.breakages:
        for attempt in breakage.attempts:
            if attempt.observation == obs.id:
                return RecoveryVerdict.model_validate(
                    {
                        "failure_type": attempt.failure_type,
                        "action": attempt.action,
                        "reason": attempt.reason,
                        "attempt": attempt.number,
                    }
                )
    return RecoveryVerdict()


def _plan(
    obs: Observation,
    branch: BranchRecord,
    config: Config,
    decision: Decision,
    green: bool,
    verdict: RecoveryVerdict,
    effects: tuple[Effect, ...],
) -> Plan:
    """The report (check and job summary, with the breakage's last three attempts) and the actions."""
    breakage = next((b for b in reversed(branch.breakages) if obs.id in b.observations), None)
    view = RunView(
        repository=obs.repository,
        branch=branch.name,
        head_sha=obs.head_sha,
        decision=decision,
        fail_on=config.gauntlet.fail_on,
        new=tuple(FindingRecord.of(f) for f in obs.findings),
        recovery=verdict,
        attempts=tuple(breakage.attempts[-3:]) if breakage else (),
        notes=(*(f"Not read: {p.message}" for p in obs.input_problems), *known.notes(obs.known_failures)),
    )
    report: tuple[Effect, ...] = (
        SetCheck(
            head_sha=obs.head_sha,
            conclusion=conclusion_of(failing=not green, misconfigured=any(p.misconfigured for p in obs.input_problems)),
            title="green" if green else "red",
            view=view,
        ),
        WriteSummary(view=view),
    )
    return Plan(decision=decision, recovery=verdict, effects=report + effects)
