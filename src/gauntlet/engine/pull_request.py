"""One gauntlet iteration for a pull request: fold the observation in, decide, plan the report."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from gauntlet.config import Config
from gauntlet.effects.models import (
    CheckAnnotation,
    CloseIssue,
    Effect,
    FileIssue,
    Plan,
    RerunFailedJobs,
    SetCheck,
    UpsertComment,
    WriteSummary,
)
from gauntlet.effects.views import IssueView, RunView
from gauntlet.engine import circular, health, known, learning, outcomes, provenance, recovery
from gauntlet.engine.loop import (
    conclusion_of,
    decide_iteration,
    fails_check,
    latest_observation,
    merge_observation,
)
from gauntlet.engine.results import known_numbers
from gauntlet.known import KnownFailures
from gauntlet.models import MAX_ASSIGNED_PATHS, Observation, Severity, evolve
from gauntlet.state.base import keep_last
from gauntlet.state.events import Event
from gauntlet.state.known import KnownMatch
from gauntlet.state.models import State
from gauntlet.state.pr import Attempt, FindingRecord, IterationRecord, PRRecord
from gauntlet.untrusted import redact
from gauntlet.vocabulary import Decision, RecoveryVerdict

__all__ = [
    "ATTEMPTS_KEPT_WHEN_CLOSED",
    "MAX_ANNOTATIONS",
    "MAX_ATTEMPTS_KEPT",
    "ReportFacts",
    "compact_pr",
    "flake_rerun",
    "step_closed",
    "step_pull_request",
]

MAX_ATTEMPTS_KEPT = 50
#: A closed PR keeps its latest iteration and this many attempts (the iteration counter stays).
ATTEMPTS_KEPT_WHEN_CLOSED = 3
#: Check runs take at most 50 annotations per request; more than a few hundred helps nobody.
MAX_ANNOTATIONS = 200

_LEVEL: dict[Severity, Literal["notice", "warning", "failure"]] = {
    "critical": "failure",
    "major": "failure",
    "minor": "warning",
    "nitpick": "notice",
}


class ReportFacts(BaseModel):
    """What planning a PR's report needs of the observation it is for: the run's identity and input notes.

    A run takes them from its observation (:meth:`of`); a ``/gauntlet`` command from the PR's record
    (:meth:`latest`), so it re-plans without building an observation nobody made.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    repository: str
    pr: int
    #: The stored observation id (``head_sha:run_id:run_attempt:workflow/job``).
    observation: str
    head_sha: str
    run_id: str = "0"
    run_attempt: str = "1"
    #: ``workflow/job``, as the default branch's runs are told apart.
    job: str = ""
    #: The merge base the change was tested against, and the tests a maintainer marked flaky (provenance).
    base_sha: str | None = None
    flaky_tests: tuple[str, ...] = ()
    #: Inputs the run could not read, shown in the report.
    notes: tuple[str, ...] = ()
    #: An input pattern matched no file or left the workspace: the check says so and is neutral, never green.
    misconfigured: bool = False
    #: A review event's run (a review or review comment created, edited or deleted): it refreshes the report
    #: and spends no attempt; only a new CI iteration is an attempt (issue 30).
    review_only: bool = False
    #: The open known-failure issues, when the run read them: the rules it cannot use are answered.
    known_failures: KnownFailures | None = None

    @classmethod
    def of(cls, obs: Observation) -> ReportFacts:
        """The facts of a PR observation."""
        assert obs.pr is not None
        return cls(
            repository=obs.repository,
            pr=obs.pr,
            observation=obs.id,
            head_sha=obs.head_sha,
            run_id=obs.run_id,
            run_attempt=obs.run_attempt,
            job=obs.job_key,
            base_sha=obs.base_sha,
            flaky_tests=obs.flaky_tests,
            notes=(*(f"Not read: {p.message}" for p in obs.input_problems), *known.notes(obs.known_failures)),
            misconfigured=any(p.misconfigured for p in obs.input_problems),
            review_only=obs.review_only,
            known_failures=obs.known_failures,
        )

    @classmethod
    def latest(cls, pr: PRRecord, repository: str) -> ReportFacts | None:
        """The facts of the latest observation stored for ``pr``'s current iteration, or ``None``."""
        latest = latest_observation(pr)
        if latest is None:
            return None
        head_sha, run_id, attempt, job = latest
        return cls(
            repository=repository,
            pr=pr.number,
            observation=":".join(latest),
            head_sha=head_sha,
            run_id=run_id,
            run_attempt=attempt,
            job=job if "/" in job else f"/{job}",  # an id stored before ids held the workflow: the job alone
        )


def step_pull_request(
    state: State, obs: Observation, config: Config, now: datetime, rng: np.random.Generator
) -> tuple[State, Plan]:
    """Run one gauntlet iteration for ``obs.pr`` and plan the comment, check and summary.

    Two parts: :func:`fold_observation` merges the observation into the PR's record and folds in what
    learning takes from it, and :func:`plan_iteration` decides and plans the report for the state as it
    then is. A redelivered observation folds to nothing and plans the same effects.
    ``rng`` is what the rule bandit draws from to choose the learned rules the comment shows.
    """
    state, fresh = fold_observation(state, obs, config, now, rng)
    return plan_iteration(state, ReportFacts.of(obs), config, now, fresh=fresh)


def fold_observation(
    state: State, obs: Observation, config: Config, now: datetime, rng: np.random.Generator
) -> tuple[State, bool]:
    """Merge ``obs`` into its PR's iteration and fold in what learning takes from it; return the state and
    whether the observation was new. ``rng`` is what the rule bandit draws from to choose the rules shown."""
    assert state.pr is not None and obs.pr is not None
    pr = state.pr
    if any(obs.id in iteration.observations for iteration in pr.iterations):
        return state, False
    pr = merge_observation(pr, obs.id, obs.head_sha, obs.findings, now, reviews_read=obs.reviews_read)
    pr = _keep_owners(pr, obs)
    if not obs.review_only and pr.current is not None:
        # A review event's run is Gauntlet's own, no CI run: the CI run seen last is still the one reported on,
        # and the run has no test outcomes. A CI run's: a test that fails and passes on one commit is flaky here.
        pr = evolve(pr, iterations=[*pr.iterations[:-1], evolve(pr.current, inside_run=obs.inside_run)])
        records = [FindingRecord.of(f) for f in obs.findings]
        complete = recovery.failure_type(records) not in ("infra", "unknown")
        pr = evolve(pr, outcomes=outcomes.record(pr.outcomes, outcomes.of_run(obs, records, complete), now))
    pr = _fold_known(pr, obs)
    return learning.learn_from_pr(evolve(state, pr=pr), obs, config=config, now=now, rng=rng), True


def _fold_known(pr: PRRecord, obs: Observation) -> PRRecord:
    """The iteration's known failures after ``obs`` (when it read the issues), and one more hit on each issue
    its failures matched (``engine/known.py``).

    A failure an earlier observation of the same commit matched stays known while its issue is still open.
    """
    read = obs.known_failures
    current = pr.current
    if read is None or current is None:
        return pr
    matched = known.match(obs.findings, read.rules)
    open_issues = {rule.issue for rule in read.rules}
    mine = {f.fingerprint for f in obs.findings}
    failing = {f.fingerprint for f in current.findings}
    kept = {fp: m for fp, m in pr.known.items() if fp in failing and fp not in mine and m.issue in open_issues}
    hits = known.count_hits(pr.known_hits, matched, obs.head_sha)
    return evolve(pr, known={**kept, **matched}, known_hits=hits)


def _keep_owners(pr: PRRecord, obs: Observation) -> PRRecord:
    """Keep the code owners of the current iteration's finding paths (``obs.assignees``) in the PR's record.

    What an earlier observation of the same iteration saw stays for the paths this one does not name.
    """
    current = pr.current
    paths = {f.path for f in current.findings if f.path} if current is not None else set()
    seen = {f.path for f in obs.findings if f.path}
    owners = {p: o for p, o in pr.owners.items() if p in paths and p not in seen}
    owners.update({p: list(o) for p, o in obs.assignees.items() if p in paths})
    owners = dict(sorted(owners.items())[:MAX_ASSIGNED_PATHS])
    return pr if owners == pr.owners else evolve(pr, owners=owners)


def plan_iteration(
    state: State, facts: ReportFacts, config: Config, now: datetime, *, fresh: bool
) -> tuple[State, Plan]:
    """Decide on the PR's current iteration and plan the sticky comment, check, summary and recovery.

    A fresh observation (just folded in) also records its attempt and its audit event; otherwise the
    state is left as it is. Learning is only read here (no draw, no reward), so a re-plan replays nothing.
    ``/gauntlet`` commands call this with the latest stored observation's facts to re-plan the report after
    they changed accepted risks or attempts.

    :param facts: what the report needs of the observation it is for.
    :param fresh: that observation was folded in by this run.
    """
    assert state.pr is not None
    pr = state.pr
    seen = not fresh
    current = pr.current
    assert current is not None
    judged = provenance.judge_pr(
        state.base,
        pr,
        current.findings,
        config,
        job=facts.job,
        base_sha=facts.base_sha,
        flaky_tests=facts.flaky_tests,
        known=pr.known,
        rerun=facts.run_attempt not in ("", "1"),
        inside_run=current.inside_run,
    )
    decision = decide_iteration(current, (risk.fingerprint for risk in pr.accepted_risks))
    # The check follows provenance: only block_on provenances (new, unknown) count toward fail_on.
    waived = {risk.fingerprint for risk in pr.accepted_risks} | provenance.unblocked(judged, config.gauntlet.block_on)
    checked = decide_iteration(current, waived)
    earlier = [a for a in pr.attempts if a.observation != facts.observation]
    loop = circular.detect(
        [(it.head_sha, _failing(it.findings)) for it in pr.iterations],
        window=config.recovery.circular_window,
        threshold=config.recovery.circular_similarity,
    )
    # A finding a maintainer accepted is no failure to recover from: a clean iteration with only one left is clean.
    accepted = {risk.fingerprint for risk in pr.accepted_risks}
    open_findings = [f for f in current.findings if f.fingerprint not in accepted]
    verdict = recovery.assess(open_findings, earlier, "pr", config.recovery, loop, observation=facts.observation)
    if config.paused:
        verdict = recovery.paused(verdict)
    status = health.assess_pr(current.number, config.gauntlet.max_iterations, verdict, config.health, pr=pr, now=now)
    events = list(state.events)
    if not seen:
        current = evolve(current, action=decision.action)
        pr = evolve(pr, iterations=[*pr.iterations[:-1], current])
        if not facts.review_only:
            pr = _record_attempt(pr, facts, verdict, current, now)
        events.append(Event(at=now, kind="iteration", key=f"pr:{facts.pr}", data=decision.model_dump()))
    # Learning was folded in with the observation; the report only reads it.
    lessons = learning.lessons_for(state)
    blocked = health.block_issue(status, facts.repository, facts.pr)
    view = evolve(
        _view(facts, pr, current, decision, config),
        recovery=verdict,
        health=status,
        attempts=tuple(pr.attempts[-3:]),
        learnings=lessons.hints,
        rules=lessons.rules,
        blamed=provenance.blamed(judged, current.findings, config.gauntlet.block_on),
    )
    failing = fails_check(checked, config.gauntlet.fail_on) or status.status == "block"
    conclusion = conclusion_of(failing=failing, misconfigured=facts.misconfigured)
    view = evolve(view, conclusion=conclusion, misconfigured=facts.misconfigured)
    plan = Plan(
        decision=decision,
        recovery=verdict,
        health=status,
        provenance=provenance.report_of(judged),
        effects=(
            UpsertComment(pr=facts.pr, view=view),
            SetCheck(
                head_sha=facts.head_sha,
                conclusion=conclusion,
                title=_title(decision) + ("; an input is misconfigured" if facts.misconfigured else ""),
                view=view,
                annotations=_annotations(current.findings),
            ),
            WriteSummary(view=view),
            *((blocked,) if blocked and not config.paused else ()),
            *(() if facts.review_only else _recovery_effects(facts, verdict, earlier, pr)),
            *(
                flake_rerun(facts.run_id, facts.run_attempt, judged, current.findings, config)
                if verdict.failure_type != "infra" and not facts.review_only
                else ()
            ),
            *known.hit_effects(pr.known_hits, _known_now(pr, judged), pr=facts.pr),
            *known.answers(facts.known_failures, known_numbers(state)),
        ),
    )
    return evolve(state, pr=pr, events=events), plan


def _known_now(pr: PRRecord, judged: list[provenance.Judged]) -> dict[str, KnownMatch]:
    """The matches of the failures judged ``known`` now: only their issues' comments are planned."""
    return {j.fingerprint: pr.known[j.fingerprint] for j in judged if j.known is not None and j.fingerprint in pr.known}


def compact_pr(record: PRRecord) -> PRRecord:
    """A closed PR's record: marked closed, with its latest iteration and last few attempts only."""
    return evolve(
        record,
        closed=True,
        iterations=record.iterations[-1:],
        attempts=keep_last(record.attempts, ATTEMPTS_KEPT_WHEN_CLOSED),
    )


def step_closed(state: State, now: datetime, config: Config, *, merged: bool = False) -> tuple[State, Plan]:
    """``pull_request`` ``closed``: compact the PR's record and close the needs-human issues filed about it.

    A PR Gauntlet never recorded (its record is the empty default) or one already closed is
    left as it is, so a redelivered close changes nothing (and closing an issue twice does nothing).
    """
    record = state.pr
    if record is None or record.closed or record == PRRecord(number=record.number):
        return state, Plan()
    event = Event(at=now, kind="pr_closed", key=f"pr:{record.number}")
    how = "merged" if merged else "closed without merging"
    closing = tuple(
        CloseIssue(kind="needs-human", ident=ident, reason=f"PR #{record.number} was {how}.")
        for ident in _issues_about(record, config.gauntlet.max_iterations)
    )
    return evolve(state, pr=compact_pr(record), events=[*state.events, event]), Plan(effects=closing)


def _issues_about(record: PRRecord, max_iterations: int) -> list[str]:
    """The needs-human issues Gauntlet filed about the PR: one per failure type its attempts escalated, and the
    one its health files when the iteration budget is spent (closing one never filed finds nothing)."""
    escalated = sorted({a.failure_type for a in record.attempts if a.action == "escalate"})
    blocked = [f"health-pr-{record.number}"] if record.iteration_count >= max_iterations else []
    return [*blocked, *(f"pr-{record.number}:{kind}" for kind in escalated)]


def _record_attempt(
    pr: PRRecord, facts: ReportFacts, verdict: RecoveryVerdict, current: IterationRecord, now: datetime
) -> PRRecord:
    if verdict.failure_type is None:
        return pr
    attempt = Attempt(
        at=now,
        observation=facts.observation,
        head_sha=facts.head_sha,
        failure_type=verdict.failure_type,
        action=verdict.action,
        reason=verdict.reason,
        fingerprints=sorted(_failing(current.findings)),
        number=verdict.attempt,
    )
    return evolve(pr, attempts=keep_last([*pr.attempts, attempt], MAX_ATTEMPTS_KEPT))


def flake_rerun(
    run_id: str, run_attempt: str, judged: list[provenance.Judged], findings: list[FindingRecord], config: Config
) -> tuple[Effect, ...]:
    """Rerun the failed jobs once when a test failure is ``new``, or flaky only by the default branch's history:
    a flake passes the rerun and is ``flaky`` on this commit; a failure that fails again is judged as any
    other (a PR's run, or a merge group's).

    Only a run's first attempt asks, so a real regression costs one rerun of the failed jobs, never more.
    """
    if not config.provenance.pr_rerun or config.paused or run_attempt != "1":
        return ()
    if not (run_id.isdigit() and run_id != "0"):
        return ()
    tests = {f.fingerprint for f in findings if f.kind == "test_failure"}
    if not any((j.provenance in ("new", "unknown") or j.by_history) and j.fingerprint in tests for j in judged):
        return ()
    return (RerunFailedJobs(run_id=int(run_id), attempt=1),)


def _failing(findings: list[FindingRecord]) -> frozenset[str]:
    return frozenset(f.fingerprint for f in findings if f.severity in recovery.BLOCKING_SEVERITIES)


def _recovery_effects(
    facts: ReportFacts, verdict: RecoveryVerdict, earlier: list[Attempt], pr: PRRecord
) -> tuple[Effect, ...]:
    """Rerun the failed jobs for an infra retry; file a needs-human issue when a failure type first escalates."""
    if verdict.action == "retry" and verdict.failure_type == "infra" and facts.run_id.isdigit() and facts.run_id != "0":
        return (RerunFailedJobs(run_id=int(facts.run_id), attempt=int(facts.run_attempt or "1")),)
    escalated_before = any(a.failure_type == verdict.failure_type and a.action == "escalate" for a in earlier)
    if verdict.action != "escalate" or escalated_before:
        return ()
    spent = f"after {verdict.attempt} attempt(s)" + (f" of a budget of {verdict.budget}" if verdict.budget else "")
    circular_fix = verdict.failure_type == "circular_fix"
    why = (
        "new commits keep bringing back the same failures: more iterations will not converge"
        if circular_fix
        else f"Gauntlet stopped retrying {spent}"
    )
    view = IssueView(
        repository=facts.repository,
        summary=f"Gauntlet stopped retrying on PR #{facts.pr}: {verdict.failure_type}",
        decision=verdict.reason,
        why=why,
        evidence=iteration_evidence(pr),
        resolve="Look at the failures by hand (a PR is never rolled back automatically), push a fix, then comment "
        "`/gauntlet reset` on the PR to start the retry budgets again.",
        pr=facts.pr,
    )
    return (
        FileIssue(
            kind="needs-human",
            ident=f"pr-{facts.pr}:{verdict.failure_type}",
            title=f"PR #{facts.pr} needs a human: {verdict.failure_type}",
            view=view,
            labels=("gauntlet", "needs-human"),
        ),
    )


#: What an issue's evidence quotes of a review comment (redacted first, so a cut never halves a secret).
REVIEW_QUOTE_CHARS = 200


def iteration_evidence(pr: PRRecord, last: int = 5) -> tuple[str, ...]:
    """The PR's last iterations, each with its commit and its failing fingerprints (what came back)."""
    lines: list[str] = []
    for it in pr.iterations[-last:]:
        failing = [f for f in it.findings if f.severity in recovery.BLOCKING_SEVERITIES]
        named = ", ".join(f"`{f.fingerprint[:12]}` {_named(f)}" for f in failing[:5])
        more = f" and {len(failing) - 5} more" if len(failing) > 5 else ""
        lines.append(f"iteration {it.number} at {it.head_sha[:7]}: {named or 'nothing failing'}{more}")
    return tuple(lines)


def _named(finding: FindingRecord) -> str:
    """A failing finding as evidence: its test or place, and for a review comment what the reviewer wrote."""
    if finding.source not in ("review", "comment"):
        return finding.test_id or finding.path or finding.message
    where = f"{finding.path}:{finding.line}" if finding.path and finding.line else finding.path or "the PR"
    text = " ".join(redact(finding.message).split())
    quote = text if len(text) <= REVIEW_QUOTE_CHARS else text[: REVIEW_QUOTE_CHARS - 1] + "…"
    return f"{where}: “{quote}”"


def _view(facts: ReportFacts, pr: PRRecord, current: IterationRecord, decision: Decision, config: Config) -> RunView:
    previous = pr.iterations[-2] if len(pr.iterations) > 1 else None
    by_fp = {f.fingerprint: f for f in current.findings}
    before = {f.fingerprint: f for f in previous.findings} if previous else {}
    # Accepted findings are listed once, under accepted risks, not again as open.
    accepted = {risk.fingerprint for risk in pr.accepted_risks}
    return RunView(
        repository=facts.repository,
        pr=facts.pr,
        head_sha=facts.head_sha,
        decision=decision,
        fail_on=config.gauntlet.fail_on,
        new=tuple(by_fp[fp] for fp in current.new if fp not in accepted),
        still_open=tuple(by_fp[fp] for fp in current.still_open if fp not in accepted),
        fixed=tuple(before[fp] for fp in current.fixed if fp in before),
        accepted=tuple(pr.accepted_risks),
        accepted_findings=tuple(by_fp[fp] for fp in sorted(accepted) if fp in by_fp),
        notes=facts.notes,
    )


def _title(decision: Decision) -> str:
    counts = f"{decision.criticals} critical, {decision.majors} major, {decision.minors} minor"
    return f"Iteration {decision.iteration}: {decision.action.replace('_', ' ')} ({counts})"


def _annotations(findings: list[FindingRecord]) -> tuple[CheckAnnotation, ...]:
    located = [f for f in findings if f.path and f.line]
    return tuple(
        CheckAnnotation(
            path=f.path or "",
            start_line=f.line or 1,
            end_line=f.line or 1,
            annotation_level=_LEVEL[f.severity],
            title=f"{f.severity}: {f.kind}" + (f" ({f.rule})" if f.rule else ""),
            message=f.message,
        )
        for f in located[:MAX_ANNOTATIONS]
    )
