"""The engine step for an ``issue_comment``: run the ``/gauntlet`` commands it carries (DESIGN §1, §6).

Theory of operation. A comment is read for commands only when it is new, written
by a person (never a bot or Gauntlet itself) and on a pull request or on one of
Gauntlet's own issues (found through the state index). A comment already handled
(its id is in the index under ``command:<id>``) plans nothing: the same event
delivered twice acts once. Otherwise::

    👀                                   on receipt
    per command, in order:  authorise -> act on the stored findings of the latest iteration
                            -> a reply quoting the command with what was done or why not
    sticky comment + check  re-planned when accepted risks or attempts changed
    🚀 or 😕                 every command done, or not

A command never ingests and never advances the iteration: the sticky comment and
the check are re-planned by replaying the latest observation through the PR step,
which recognises it as already seen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from gauntlet.config import Config
from gauntlet.effects.models import (
    Effect,
    FileIssue,
    Plan,
    React,
    ReplyToComment,
    RerunFailedJobs,
    SetCheck,
    UpsertComment,
    WriteSummary,
)
from gauntlet.effects.views import IssueView, ReplyView
from gauntlet.engine import selfheal
from gauntlet.engine.authorise import ignored_because, refusal
from gauntlet.engine.command_text import help_lines, risk_line, status_lines
from gauntlet.engine.commands import Command, CommandName, parse_commands
from gauntlet.engine.loop import decide_iteration, fails_check
from gauntlet.engine.pull_request import step_pull_request
from gauntlet.engine.triage import watch
from gauntlet.models import CommentFact, Observation
from gauntlet.state.events import Event
from gauntlet.state.models import State
from gauntlet.state.pr import AcceptedRisk, FindingRecord, PRRecord
from gauntlet.state.triage import WatchedIssue

__all__ = ["GAUNTLET_ISSUE_KINDS", "accepted_conclusion", "handled_key", "open_findings", "step_comment"]

#: Index key prefixes of the issues and PRs Gauntlet writes, where commands are also read.
GAUNTLET_ISSUE_KINDS = ("risk:", "needs-human:", "proposal:", "revert:")


@dataclass(frozen=True)
class _Outcome:
    """What one command did: ``ok`` picks 🚀 or 😕; ``replan`` re-plans the sticky comment and check."""

    ok: bool
    text: str
    details: tuple[str, ...] = ()
    effects: tuple[Effect, ...] = ()
    replan: bool = False


@dataclass(frozen=True)
class _Context:
    obs: Observation
    comment: CommentFact
    config: Config
    now: datetime
    rng: np.random.Generator | None


_Handler = Callable[[State, Command, _Context], tuple[State, _Outcome]]


def handled_key(comment: CommentFact) -> str:
    """The index key that records a comment as handled."""
    return f"command:{comment.id}"


def open_findings(pr: PRRecord | None) -> list[FindingRecord]:
    """The latest iteration's findings that are not accepted yet (nitpicks count for nothing)."""
    current = pr.current if pr is not None else None
    if pr is None or current is None:
        return []
    accepted = {risk.fingerprint for risk in pr.accepted_risks}
    return [f for f in current.findings if f.fingerprint not in accepted and f.severity != "nitpick"]


def step_comment(
    state: State, obs: Observation, config: Config, now: datetime, rng: np.random.Generator | None = None
) -> tuple[State, Plan]:
    """Run the commands of ``obs.comment`` and plan the reactions, replies and what they change.

    A comment that is edited, from a bot, not on a PR or Gauntlet issue, without
    commands, or already handled leaves the state as it is and plans nothing.

    :param rng: passed on to the PR step when the sticky comment is re-planned (learned rules).
    """
    comment = obs.comment
    assert comment is not None
    if (
        not config.commands.enabled
        or ignored_because(comment) is not None
        or handled_key(comment) in state.index.entries
        or not (comment.is_pull_request or _gauntlet_issue(state, comment.issue_number))
    ):
        return state, Plan()
    commands = parse_commands(comment.body, [f.fingerprint for f in open_findings(state.pr)])
    if not commands:
        return state, Plan()
    ctx = _Context(obs=obs, comment=comment, config=config, now=now, rng=rng)
    effects: list[Effect] = [React(comment_id=comment.id, content="eyes")]
    replies: list[Effect] = []
    replan = False
    all_ok = True
    for index, command in enumerate(commands):
        state, outcome = _run(state, command, ctx)
        effects.extend(outcome.effects)
        replan = replan or outcome.replan
        all_ok = all_ok and outcome.ok
        view = ReplyView(command=command.line, outcome=outcome.text, details=outcome.details)
        replies.append(ReplyToComment(issue_number=comment.issue_number, comment_id=comment.id, index=index, view=view))
        state = _audit(state, command, outcome, ctx)
    if replan:
        state = _issue_numbers(state)
    report = _replan(state, ctx) if replan else None
    if report is not None:
        effects.extend(report.effects)
    effects.extend(replies)
    effects.append(React(comment_id=comment.id, content="rocket" if all_ok else "confused"))
    entries = {**state.index.entries, handled_key(comment): comment.issue_number}
    state = state.model_copy(update={"index": state.index.model_copy(update={"entries": entries})})
    if report is None:
        return state, Plan(effects=tuple(effects))
    return state, report.model_copy(update={"effects": tuple(effects)})


def accepted_conclusion(pr: PRRecord, conclusion: str, config: Config) -> str:
    """The check's conclusion once accepted risks are taken into account.

    ``success`` becomes ``commands.accepted_conclusion`` when it is the accepted risks
    alone that let the check pass; every other conclusion stays.
    """
    current = pr.current
    if conclusion != "success" or current is None or not pr.accepted_risks:
        return conclusion
    if fails_check(decide_iteration(current, ()), config.gauntlet.fail_on):
        return config.commands.accepted_conclusion
    return conclusion


def _gauntlet_issue(state: State, number: int) -> bool:
    return any(value == number and key.startswith(GAUNTLET_ISSUE_KINDS) for key, value in state.index.entries.items())


def _run(state: State, command: Command, ctx: _Context) -> tuple[State, _Outcome]:
    concerns = ctx.obs.pr_author if ctx.comment.is_pull_request else None
    refused = command.problem or refusal(command, ctx.comment, ctx.config.commands, concerns)
    if refused is not None:
        return state, _Outcome(ok=False, text=f"Not done: {refused}.")
    return _HANDLERS[command.name](state, command, ctx)


def _help(state: State, command: Command, ctx: _Context) -> tuple[State, _Outcome]:
    text = "Gauntlet's commands, and the permission each needs:"
    if command.unknown is not None:
        text = f"`{command.unknown}` is not a Gauntlet command. {text}"
    return state, _Outcome(ok=command.unknown is None, text=text, details=help_lines(ctx.config.commands))


def _status(state: State, command: Command, ctx: _Context) -> tuple[State, _Outcome]:
    del command
    if not ctx.comment.is_pull_request:
        key = _issue_key(state, ctx.comment.issue_number)
        watched = state.triage.issues.get(key)
        lines = [f"This is Gauntlet's `{key}` issue."]
        if watched is not None:
            seen = f"{watched.last_seen:%Y-%m-%d}" if watched.last_seen else "never"
            lines.append(
                f"Last seen on the default branch: {seen}; closed when unseen for "
                f"{ctx.config.commands.triage_days} days."
            )
        return state, _Outcome(ok=True, text="Status:", details=tuple(lines))
    return state, _Outcome(ok=True, text="Status:", details=status_lines(state.pr, ctx.config))


def _accept_risk(state: State, command: Command, ctx: _Context) -> tuple[State, _Outcome]:
    pr = state.pr
    if not ctx.comment.is_pull_request or pr is None or pr.current is None:
        return state, _Outcome(ok=False, text="Not done: there are no findings of a CI run on this pull request yet.")
    chosen = _risk_choice(open_findings(pr), command)
    if not chosen:
        scope = ", ".join(fp[:12] for fp in command.fingerprints) or command.scope
        return state, _Outcome(
            ok=False, text=f"Not done: no open finding matches `{scope}` (criticals are accepted only by fingerprint)."
        )
    reason = command.reason or "no reason given"
    author = ctx.comment.author
    risks = [
        AcceptedRisk(
            fingerprint=f.fingerprint,
            by=author,
            reason=command.reason,
            at=ctx.now,
            issue=state.index.entries.get(f"risk:{f.fingerprint}"),
        )
        for f in chosen
    ]
    pr = pr.model_copy(update={"accepted_risks": [*pr.accepted_risks, *risks]})
    book = state.triage
    effects: list[Effect] = []
    for finding in chosen:
        issue = _risk_issue(finding, ctx, reason)
        effects.append(issue)
        book = watch(
            book,
            WatchedIssue(
                kind="risk",
                ident=finding.fingerprint,
                fingerprint=finding.fingerprint,
                title=issue.title,
                summary=finding.message,
                severity=finding.severity,
                since=ctx.now,
            ),
        )
    state = state.model_copy(update={"pr": pr, "triage": book})
    text = f"{author} accepted {len(chosen)} risk{'s' if len(chosen) != 1 else ''}: {reason}"
    return state, _Outcome(
        ok=True, text=text, details=tuple(risk_line(f) for f in chosen), effects=tuple(effects), replan=True
    )


def _risk_choice(candidates: list[FindingRecord], command: Command) -> list[FindingRecord]:
    if command.fingerprints:
        wanted = set(command.fingerprints)
        return [f for f in candidates if f.fingerprint in wanted]
    severities = {"all": ("major", "minor"), "majors": ("major",), "minors": ("minor",)}[command.scope]
    return [f for f in candidates if f.severity in severities]


def _risk_issue(finding: FindingRecord, ctx: _Context, reason: str) -> FileIssue:
    pr = ctx.comment.issue_number
    view = IssueView(
        repository=ctx.obs.repository,
        summary=finding.message,
        severity=finding.severity,
        rule=finding.rule,
        path=finding.path,
        line=finding.line,
        why=reason,
        decision=f"accepted on #{pr} by {ctx.comment.author}",
        resolve="fix the finding; Gauntlet closes this issue once the default branch has not shown it for "
        f"{ctx.config.commands.triage_days} days",
        accepted_by=ctx.comment.author,
        pr=pr,
    )
    return FileIssue(
        kind="risk",
        ident=finding.fingerprint,
        title=f"accepted risk: {finding.message}"[:200],
        view=view,
        labels=("gauntlet", "accepted-risk", finding.severity),
    )


def _retry(state: State, command: Command, ctx: _Context) -> tuple[State, _Outcome]:
    del command
    current = state.pr.current if state.pr is not None and ctx.comment.is_pull_request else None
    parts = current.observations[-1].split(":", 3) if current is not None and current.observations else []
    if len(parts) != 4 or not parts[1].isdigit() or int(parts[1]) == 0 or not parts[2].isdigit():
        return state, _Outcome(ok=False, text="Not done: Gauntlet has recorded no workflow run on this pull request.")
    run_id, attempt = int(parts[1]), int(parts[2])
    rerun = RerunFailedJobs(run_id=run_id, attempt=attempt)
    return state, _Outcome(
        ok=True, text=f"Rerunning the failed jobs of run {run_id} (attempt {attempt}).", effects=(rerun,)
    )


def _reset(state: State, command: Command, ctx: _Context) -> tuple[State, _Outcome]:
    del command
    pr = state.pr
    if not ctx.comment.is_pull_request or pr is None:
        return state, _Outcome(ok=False, text="Not done: `reset` works on a pull request Gauntlet has seen.")
    forgotten = len(pr.attempts)
    state = state.model_copy(update={"pr": pr.model_copy(update={"attempts": []})})
    text = f"Forgot {forgotten} recovery attempt{'s' if forgotten != 1 else ''}; retry budgets start again."
    return state, _Outcome(ok=True, text=text, replan=forgotten > 0)


def _approve(state: State, command: Command, ctx: _Context) -> tuple[State, _Outcome]:
    assert command.proposal is not None
    outcome = selfheal.approve(
        state.proposals,
        command.proposal,
        by=ctx.comment.author,
        repository=ctx.obs.repository,
        base=ctx.obs.default_branch,
        config=ctx.config.selfheal,
        now=ctx.now,
    )
    return _proposal_outcome(state, outcome)


def _reject(state: State, command: Command, ctx: _Context) -> tuple[State, _Outcome]:
    assert command.proposal is not None
    outcome = selfheal.reject(
        state.proposals, command.proposal, by=ctx.comment.author, reason=command.reason, now=ctx.now
    )
    return _proposal_outcome(state, outcome)


def _proposal_outcome(state: State, outcome: selfheal.ProposalOutcome) -> tuple[State, _Outcome]:
    ok = bool(outcome.changed)
    text = "; ".join(outcome.messages) or "nothing changed"
    return state.model_copy(update={"proposals": outcome.book}), _Outcome(
        ok=ok, text=("Done: " if ok else "Not done: ") + text + ".", effects=outcome.effects
    )


_HANDLERS: dict[CommandName, _Handler] = {
    "help": _help,
    "status": _status,
    "accept-risk": _accept_risk,
    "retry": _retry,
    "reset": _reset,
    "approve": _approve,
    "reject": _reject,
}


def _issue_key(state: State, number: int) -> str:
    return next(
        key
        for key, value in sorted(state.index.entries.items())
        if value == number and key.startswith(GAUNTLET_ISSUE_KINDS)
    )


def _audit(state: State, command: Command, outcome: _Outcome, ctx: _Context) -> State:
    event = Event(
        at=ctx.now,
        kind="command",
        key=f"comment:{ctx.comment.id}",
        data={"command": command.name, "by": ctx.comment.author, "ok": outcome.ok, "on": ctx.comment.issue_number},
    )
    return state.model_copy(update={"events": [*state.events, event]})


def _issue_numbers(state: State) -> State:
    """Accepted risks learn their issue's number from the index once an earlier run filed it (for the comment)."""
    pr = state.pr
    if pr is None:
        return state
    index = state.index.entries
    risks = [
        risk.model_copy(update={"issue": index.get(f"risk:{risk.fingerprint}")}) if risk.issue is None else risk
        for risk in pr.accepted_risks
    ]
    if risks == pr.accepted_risks:
        return state
    return state.model_copy(update={"pr": pr.model_copy(update={"accepted_risks": risks})})


def _replan(state: State, ctx: _Context) -> Plan | None:
    """The PR step's report for the latest observation, replayed (already seen: nothing is ingested)."""
    pr = state.pr
    current = pr.current if pr is not None else None
    if pr is None or current is None or not current.observations:
        return None
    latest = current.observations[-1]
    _, run_id, attempt, job = [*latest.split(":", 3), "", "", ""][:4]
    replay = Observation(
        repository=ctx.obs.repository,
        event=ctx.obs.event,
        pr=pr.number,
        pr_author=ctx.obs.pr_author,
        default_branch=ctx.obs.default_branch,
        head_sha=current.head_sha,
        run_id=run_id,
        run_attempt=attempt,
        job=job,
    )
    if replay.id != latest:
        return None
    _, plan = step_pull_request(state, replay, ctx.config, ctx.now, ctx.rng)
    # Only the report: a command must not set off the recovery actions the replay would plan again.
    effects = tuple(
        effect.model_copy(update={"conclusion": accepted_conclusion(pr, effect.conclusion, ctx.config)})
        if isinstance(effect, SetCheck)
        else effect
        for effect in plan.effects
        if isinstance(effect, UpsertComment | SetCheck | WriteSummary)
    )
    return plan.model_copy(update={"effects": effects})
