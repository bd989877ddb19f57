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
    CloseIssue,
    Effect,
    FileIssue,
    OpenRevertPR,
    Plan,
    RerunFailedJobs,
    SetCheck,
    WriteSummary,
)
from gauntlet.effects.views import IssueView, RevertView, RunView
from gauntlet.engine import circular, learning, recovery, selfheal
from gauntlet.engine.loop import fails_check, gauntlet_action
from gauntlet.engine.revert import RevertDecision, RevertReason, decide_revert, first_parent_chain, suspects_between
from gauntlet.engine.triage import triage_branch_run
from gauntlet.engine.verdicts import Decision, RecoveryVerdict
from gauntlet.models import CommitFact, Observation
from gauntlet.state.base import keep_last
from gauntlet.state.branch import (
    MAX_BREAKAGE_ATTEMPTS,
    MAX_BREAKAGE_FINDINGS,
    MAX_BREAKAGES_KEPT,
    MAX_DAYS_KEPT,
    MAX_FLAKY_KEPT,
    MAX_REVERTS_KEPT,
    MAX_RUNS_KEPT,
    BranchRecord,
    Breakage,
    RevertRecord,
    RunRecord,
    same_commit,
)
from gauntlet.state.events import Event
from gauntlet.state.models import State
from gauntlet.state.pr import Attempt, FindingRecord

__all__ = ["job_key", "step_branch"]

NEEDS_HUMAN_LABELS = ("gauntlet", "needs-human")
#: What a revert decision is recorded as, per ``auto_revert`` mode.
_MODE_DECISION = {"on": "revert", "shadow": "shadow", "off": "off"}


def job_key(obs: Observation) -> str:
    """``workflow/job``: the key a default-branch run's attempts, last-good and breakages are kept under."""
    return f"{obs.workflow}/{obs.job}"


def step_branch(state: State, obs: Observation, config: Config, now: datetime) -> tuple[State, Plan]:
    """Record a branch run and, on the default branch, recover from a red one.

    :param state: the slice with ``state.branch`` loaded.
    :param obs: a run on a branch (not a PR).
    :param config: the repository configuration.
    :param now: the time of the run.
    """
    assert state.branch is not None
    records = [FindingRecord.of(f) for f in obs.findings]
    decision = _decision(records)
    green = not fails_check(decision, config.gauntlet.fail_on)
    branch = state.branch
    if any(run.observation == obs.id for run in branch.runs):
        return state, _plan(obs, branch.name, config, decision, green, _recorded_verdict(branch, obs), ())
    state, triaged = triage_branch_run(state, obs, config, now)  # accepted-risk issues (engine/triage.py)
    complete = recovery.failure_type(records) not in ("infra", "unknown")
    branch = _fold_revert_facts(branch, obs, state.index.entries, now)
    branch = _record_run(branch, obs, records, green=green and complete, complete=complete, now=now)
    events = [*state.events, Event(at=now, kind="branch_run", key=f"branch:{branch.name}", data={"green": green})]
    effects: tuple[Effect, ...] = ()
    if not obs.on_default_branch:
        scope: recovery.Scope = "pr"  # a feature branch is somebody's work in progress: never rolled back
        verdict = recovery.assess(records, [], scope, config.recovery)
    elif green and complete:
        branch, effects = _recover(branch, obs, now)
        verdict = RecoveryVerdict()
    else:
        branch, verdict, effects, event = _red(branch, obs, records, config, now)
        events.append(event)
    if config.paused:
        verdict, effects = recovery.paused(verdict), ()
    # Self-healing counts defects on branches too (a critical on the default branch is P0); a green run after
    # a red one records its failure→fix pairs, shown when the same failure appears on a PR.
    place = f"branch:{branch.name}"
    defects = selfheal.record_defects(state.defects, obs.findings, place, now, config.components)
    learnings = learning.record_branch_fixes(state.learnings, defects, branch.runs, place, obs.changed_files, now)
    state = state.model_copy(update={"branch": branch, "events": events, "defects": defects, "learnings": learnings})
    return state, _plan(obs, branch.name, config, decision, green, verdict, (*effects, *triaged))


def _decision(records: list[FindingRecord]) -> Decision:
    counts = {s: sum(1 for f in records if f.severity == s) for s in ("critical", "major", "minor")}
    return Decision(
        action=gauntlet_action(counts["critical"], counts["major"], counts["minor"]),
        iteration=0,
        criticals=counts["critical"],
        majors=counts["major"],
        minors=counts["minor"],
    )


def _record_run(
    branch: BranchRecord, obs: Observation, records: list[FindingRecord], *, green: bool, complete: bool, now: datetime
) -> BranchRecord:
    """Record the run; a green one moves last-good.

    A run cut short by the infrastructure (or failing for no known reason) is not
    ``complete``: it verified nothing, whatever ``fail_on`` says, so it never becomes
    last-good and never counts as a pass (it could hide the culprit of a later red run).
    """
    job = job_key(obs)
    failing = sorted(f.fingerprint for f in records if f.severity in recovery.BLOCKING_SEVERITIES)
    run = RunRecord(
        observation=obs.id, head_sha=obs.head_sha, at=now, green=green, failing=failing, job=job, complete=complete
    )
    update: dict[str, object] = {"runs": keep_last([*branch.runs, run], MAX_RUNS_KEPT)}
    if green:
        update |= {"last_good": obs.head_sha, "good": {**branch.good, job: obs.head_sha}}
    return branch.model_copy(update=update)


def _fold_revert_facts(branch: BranchRecord, obs: Observation, index: dict[str, int], now: datetime) -> BranchRecord:
    """Bring the revert history up to date with what GitHub says about earlier revert PRs.

    A revert PR found only in the effect index (a run that opened it died before
    saving the branch file) is recorded too, so it is never opened twice.
    """
    reverts = list(branch.reverts)
    for fact in obs.revert_prs:
        at = next((i for i, r in enumerate(reverts) if same_commit(r.culprit, fact.culprit)), None)
        if at is None:
            reverts.append(
                RevertRecord(culprit=fact.culprit, breakage="", opened_at=now, status=fact.state, number=fact.number)
            )
        else:
            reverts[at] = reverts[at].model_copy(update={"status": fact.state, "number": fact.number})
    for key, number in sorted(index.items()):
        culprit = key.removeprefix("revert:")
        if key.startswith("revert:") and not any(same_commit(r.culprit, culprit) for r in reverts):
            reverts.append(RevertRecord(culprit=culprit, breakage="", opened_at=now, number=number))
    if reverts == branch.reverts:
        return branch
    return branch.model_copy(update={"reverts": keep_last(reverts, MAX_REVERTS_KEPT)})


def _recover(branch: BranchRecord, obs: Observation, now: datetime) -> tuple[BranchRecord, tuple[Effect, ...]]:
    """A green run ends its job's breakage; a commit that failed and now passed marks its failures flaky."""
    breakage = branch.open_breakage(job_key(obs))
    if breakage is None:
        return branch, ()
    still = {fp for r in branch.runs if r.observation == obs.id for fp in r.failing}
    failed_here = {
        fp
        for r in branch.runs
        if r.head_sha == obs.head_sha and r.job == breakage.job and r.observation != obs.id and r.complete
        for fp in r.failing
    } - still
    if branch.revert_of(breakage.culprit or "") is not None:
        resolution = "reverted"
    elif failed_here:
        resolution = "flaky"
    else:
        resolution = "recovered"
    flaky = keep_last([*branch.flaky, *sorted(failed_here - set(branch.flaky))], MAX_FLAKY_KEPT)
    branch = branch.model_copy(update={"flaky": flaky})
    return _resolve(branch, breakage, resolution, f"`{breakage.job}` is green again at {obs.head_sha[:7]}", now)


def _resolve(
    branch: BranchRecord, breakage: Breakage, resolution: str, why: str, now: datetime
) -> tuple[BranchRecord, tuple[Effect, ...]]:
    """End a breakage; close its needs-human issue if one was filed."""
    done = breakage.model_copy(update={"resolved_at": now, "resolution": resolution})
    branch = branch.model_copy(update={"breakages": _replace(branch.breakages, done)})
    if not breakage.escalated:
        return branch, ()
    reason = f"{why} ({resolution})."
    return branch, (CloseIssue(kind="needs-human", ident=_issue_ident(branch.name, breakage), reason=reason),)


def _red(
    branch: BranchRecord, obs: Observation, records: list[FindingRecord], config: Config, now: datetime
) -> tuple[BranchRecord, RecoveryVerdict, tuple[Effect, ...], Event]:
    """Fold a red run into its breakage, decide, and plan the action."""
    chain = first_parent_chain(obs.commits)
    branch, breakage, closed = _breakage_for(branch, obs, records, now)
    breakage = _extend(breakage, obs, records, chain)
    branch = branch.model_copy(update={"breakages": _replace(branch.breakages, breakage)})
    revert = decide_revert(branch, breakage, records, chain, config.revert, now)
    verdict = _verdict(branch, breakage, records, revert, config)
    effects: list[Effect] = list(closed)
    update: dict[str, object] = {
        "culprit": revert.culprit.sha if revert.culprit else None,
        "decision": str(revert.refusal) if revert.refusal else _MODE_DECISION[config.revert.auto_revert],
        "detail": revert.detail,
    }
    if verdict.action == "rollback" and revert.culprit is not None:
        effects.append(_revert_pr(obs, breakage, revert))
        branch = _count_revert(branch, breakage, revert, now)
    elif verdict.action == "retry":
        update["reruns"] = breakage.reruns + 1
        if obs.run_id.isdigit() and obs.run_id != "0" and obs.run_attempt.isdigit():
            effects.append(RerunFailedJobs(run_id=int(obs.run_id), attempt=int(obs.run_attempt)))
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
    breakage = breakage.model_copy(update=update)
    branch = branch.model_copy(update={"breakages": _replace(branch.breakages, breakage)})
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


def _breakage_for(
    branch: BranchRecord, obs: Observation, records: list[FindingRecord], now: datetime
) -> tuple[BranchRecord, Breakage, tuple[Effect, ...]]:
    """The job's open breakage, or a new one starting at this run.

    A run on a new commit whose breaking failures are all different from the open
    breakage's ends that breakage (its failures are gone: fixed or reverted) and
    starts a new one, whose last-good is the newest complete run where none of the
    new failures failed. On the same commit, different failures are flakiness instead.
    """
    job = job_key(obs)
    found = branch.open_breakage(job)
    failing = {f.fingerprint for f in _breaking(records)}
    if found is not None and not _superseded(branch, found, failing, obs):
        return branch, found, ()
    last_good = branch.good.get(job)
    closed: tuple[Effect, ...] = ()
    if found is not None:
        resolution = "reverted" if branch.revert_of(found.culprit or "") is not None else "recovered"
        why = f"`{job}` no longer shows these failures at {obs.head_sha[:7]}"
        branch, closed = _resolve(branch, found, resolution, why, now)
        last_good = next(
            (r.head_sha for r in reversed(branch.runs) if r.job == job and r.complete and not failing & set(r.failing)),
            last_good,
        )
    # The run that opened it makes the id unique: a job can break again on the same commit.
    ident = f"{job}@{obs.head_sha[:12]}/{obs.run_id}.{obs.run_attempt}"
    breakage = Breakage(id=ident, job=job, first_red=obs.head_sha, opened_at=now, last_good=last_good)
    return branch, breakage, closed


def _superseded(branch: BranchRecord, breakage: Breakage, failing: set[str], obs: Observation) -> bool:
    if not failing or not breakage.sightings or failing & breakage.sightings.keys():
        return False
    return all(r.head_sha != obs.head_sha for r in branch.runs if r.observation in breakage.observations)


def _breaking(records: list[FindingRecord]) -> list[FindingRecord]:
    """The findings that can justify a revert (DESIGN §3)."""
    return [f for f in records if f.severity in recovery.BLOCKING_SEVERITIES and f.kind in recovery.BREAKING_KINDS]


def _extend(breakage: Breakage, obs: Observation, records: list[FindingRecord], chain: list[CommitFact]) -> Breakage:
    """Add this observation's failures; learn the suspects once the history reaches last-good."""
    breaking = _breaking(records)
    sightings = dict(breakage.sightings)
    for fingerprint in sorted({f.fingerprint for f in breaking}):
        sightings[fingerprint] = sightings.get(fingerprint, 0) + 1
    known = {f.fingerprint for f in breakage.findings}
    findings = breakage.findings + [f for f in breaking if f.fingerprint not in known]
    update: dict[str, object] = {}
    if breaking and not breakage.sightings:
        # The first run that shows what broke (earlier ones were cut short) marks the end of the suspects.
        update = {"first_red": obs.head_sha, "suspects": None, "reruns": 0}
        breakage = breakage.model_copy(update=update)
    suspects = breakage.suspects
    if suspects is None:
        suspects = suspects_between(chain, breakage.last_good, breakage.first_red)
    return breakage.model_copy(
        update={
            "observations": [*breakage.observations, obs.id],
            "sightings": sightings,
            "findings": findings[:MAX_BREAKAGE_FINDINGS],
            "suspects": suspects,
        }
    )


def _verdict(
    branch: BranchRecord, breakage: Breakage, records: list[FindingRecord], revert: RevertDecision, config: Config
) -> RecoveryVerdict:
    """Compose the recovery verdict: the failure-type table, refined by the revert decision and budgets."""
    history = _failing_sets(branch, breakage)
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
        verdict = base.model_copy(update={"attempt": attempt})
    if verdict.action == "retry" and budget is not None and breakage.reruns >= budget:
        verdict = verdict.model_copy(
            update={"action": "escalate", "reason": f"{verdict.reason}; {budget} rerun(s) spent, a human is needed"}
        )
    if loop is not None and verdict.action in ("retry", "skip"):
        verdict = verdict.model_copy(
            update={"failure_type": "circular_fix", "action": "escalate", "reason": f"{loop.reason}; {verdict.reason}"}
        )
    return verdict.model_copy(update={"budget": budget})


def _revert_reason(revert: RevertDecision, config: Config) -> str:
    if revert.refusal is None:
        culprit = revert.culprit.sha[:7] if revert.culprit else "?"
        mode = {"on": "reverting", "shadow": "shadow mode: would revert", "off": "auto_revert is off: would revert"}
        return f"{mode[config.revert.auto_revert]} {culprit}: {revert.detail}"
    return f"no revert ({revert.refusal}): {revert.detail}"


def _rerun_budget(revert: RevertDecision, config: Config) -> int:
    if revert.refusal == RevertReason.INFRA:
        return config.recovery.infra_budget
    return config.revert.confirm_reruns


def _failing_sets(branch: BranchRecord, breakage: Breakage) -> list[tuple[str, frozenset[str]]]:
    """One failing set per distinct head SHA of the breakage's job, oldest first (for circular detection)."""
    sets: dict[str, frozenset[str]] = {}
    for run in branch.runs:
        if run.job == breakage.job and run.observation in breakage.observations:
            sets[run.head_sha] = sets.get(run.head_sha, frozenset()) | frozenset(run.failing)
    return list(sets.items())


def _count_revert(branch: BranchRecord, breakage: Breakage, revert: RevertDecision, now: datetime) -> BranchRecord:
    assert revert.culprit is not None
    record = RevertRecord(
        culprit=revert.culprit.sha, subject=revert.culprit.subject, breakage=breakage.id, opened_at=now
    )
    day = now.date().isoformat()
    daily = {**branch.daily, day: branch.daily.get(day, 0) + 1}
    daily = dict(sorted(daily.items())[-MAX_DAYS_KEPT:])
    return branch.model_copy(update={"reverts": keep_last([*branch.reverts, record], MAX_REVERTS_KEPT), "daily": daily})


def _revert_pr(obs: Observation, breakage: Breakage, revert: RevertDecision) -> OpenRevertPR:
    assert revert.culprit is not None
    by_fp = {f.fingerprint: f for f in breakage.findings}
    evidence = [revert.detail] + [
        f"{by_fp[fp].kind}: {by_fp[fp].test_id or by_fp[fp].path or ''} {by_fp[fp].message}".strip()
        for fp in revert.fingerprints
        if fp in by_fp
    ]
    view = RevertView(
        repository=obs.repository,
        culprit=revert.culprit.sha,
        subject=revert.culprit.subject,
        author=revert.culprit.author,
        failing_runs=tuple(breakage.observations[-5:]),
        evidence=tuple(evidence[:20]),
    )
    return OpenRevertPR(culprit=revert.culprit.sha, base=obs.default_branch, view=view)


def _needs_human(
    obs: Observation, name: str, breakage: Breakage, revert: RevertDecision, verdict: RecoveryVerdict
) -> FileIssue:
    first = breakage.findings[0] if breakage.findings else None
    suspects = [f"suspect {sha[:7]}" for sha in revert.suspects]
    failures = [f"{f.kind}: {f.test_id or f.path or ''} {f.message}".strip() for f in breakage.findings[:10]]
    view = IssueView(
        repository=obs.repository,
        summary=f"`{breakage.job}` on `{name}` is red since {breakage.first_red[:7]} and Gauntlet will not fix it.",
        severity=first.severity if first else None,
        path=first.path if first else None,
        line=first.line if first else None,
        commit=revert.culprit.sha if revert.culprit else breakage.first_red,
        decision=verdict.reason,
        evidence=tuple([*failures, *suspects][:20]),
        resolve=f"push a fix or a revert; Gauntlet closes this issue when `{breakage.job}` is green again",
    )
    code = revert.refusal or "auto_revert off"
    return FileIssue(
        kind="needs-human",
        ident=_issue_ident(name, breakage),
        title=f"{name} is red: {breakage.job} ({verdict.failure_type}, {code})",
        view=view,
        labels=NEEDS_HUMAN_LABELS,
    )


def _issue_ident(name: str, breakage: Breakage) -> str:
    return f"branch:{name}:{breakage.id}"


def _replace(breakages: list[Breakage], breakage: Breakage) -> list[Breakage]:
    others = [b for b in breakages if b.id != breakage.id]
    return keep_last([*others, breakage], MAX_BREAKAGES_KEPT)


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
    name: str,
    config: Config,
    decision: Decision,
    green: bool,
    verdict: RecoveryVerdict,
    effects: tuple[Effect, ...],
) -> Plan:
    view = RunView(
        repository=obs.repository,
        branch=name,
        head_sha=obs.head_sha,
        decision=decision,
        fail_on=config.gauntlet.fail_on,
        new=tuple(FindingRecord.of(f) for f in obs.findings),
        recovery=verdict,
    )
    report: tuple[Effect, ...] = (
        SetCheck(
            head_sha=obs.head_sha,
            conclusion="success" if green else "failure",
            title="green" if green else "red",
            view=view,
        ),
        WriteSummary(view=view),
    )
    return Plan(decision=decision, recovery=verdict, effects=report + effects)
