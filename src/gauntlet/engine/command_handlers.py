"""What each ``/gauntlet`` command does, once it is authorised: one handler per command.

A handler takes the state and the parsed command and returns the new state and
an :class:`Outcome`: whether it was done, the words of the reply, the effects it
needs and whether the sticky comment and check must be re-planned. Handlers act
on the stored findings of the latest iteration only (``engine/comment_command.py``
runs them in order and plans the rest).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from gauntlet.config import Config
from gauntlet.effects.models import Effect, FileIssue, RerunFailedJobs
from gauntlet.effects.views import IssueView
from gauntlet.engine import outcomes, selfheal
from gauntlet.engine.command_text import help_lines, risk_line, status_lines
from gauntlet.engine.commands import Command, CommandName
from gauntlet.engine.loop import decide_iteration, fails_check, latest_observation
from gauntlet.engine.triage import watch
from gauntlet.known import MAX_MESSAGE_CHARS, MIN_MESSAGE_CHARS, RuleBlock, block_text
from gauntlet.models import CommentFact, Observation, evolve
from gauntlet.state.models import State
from gauntlet.state.outcomes import FlakyMark
from gauntlet.state.pr import AcceptedRisk, FindingRecord, PRRecord
from gauntlet.state.triage import WatchedIssue
from gauntlet.untrusted import redact

__all__ = [
    "HANDLERS",
    "CommandContext",
    "CommandHandler",
    "Outcome",
    "accepted_conclusion",
    "gauntlet_issue_key",
    "known_failure_issue",
    "open_findings",
]

#: Index key prefixes of the issues and PRs Gauntlet writes, where commands are also read.
_OWN_KINDS = ("risk:", "needs-human:", "proposal:", "revert:", "known-failure:")


@dataclass(frozen=True)
class Outcome:
    """What one command did: ``ok`` picks 🚀 or 😕; ``replan`` re-plans the sticky comment and check;
    ``shown``: the re-planned report shows what it did, so it needs no reply (``engine/comment_command.py``)."""

    ok: bool
    text: str
    details: tuple[str, ...] = ()
    effects: tuple[Effect, ...] = ()
    replan: bool = False
    shown: bool = False


@dataclass(frozen=True)
class CommandContext:
    """The comment being served and the run it is served in."""

    obs: Observation
    comment: CommentFact
    config: Config
    now: datetime
    rng: np.random.Generator


CommandHandler = Callable[[State, Command, CommandContext], tuple[State, Outcome]]


def open_findings(pr: PRRecord | None) -> list[FindingRecord]:
    """The latest iteration's findings that are not accepted yet (nitpicks count for nothing)."""
    current = pr.current if pr is not None else None
    if pr is None or current is None:
        return []
    accepted = {risk.fingerprint for risk in pr.accepted_risks}
    return [f for f in current.findings if f.fingerprint not in accepted and f.severity != "nitpick"]


def accepted_conclusion(pr: PRRecord, conclusion: str, config: Config) -> str:
    """The check's conclusion once accepted risks are taken into account.

    ``success`` becomes ``commands.accepted_conclusion`` when it is the accepted risks
    alone that let the check pass; every other conclusion stays. The PR step can call
    this too, so later runs keep the conclusion a command set.
    """
    current = pr.current
    if conclusion != "success" or current is None or not pr.accepted_risks:
        return conclusion
    if fails_check(decide_iteration(current, ()), config.gauntlet.fail_on):
        return config.commands.accepted_conclusion
    return conclusion


def gauntlet_issue_key(state: State, number: int) -> str | None:
    """The key of Gauntlet's own issue or PR ``number`` (from the state index), or ``None`` for anyone else's."""
    return next(
        (key for key, value in sorted(state.index.entries.items()) if value == number and key.startswith(_OWN_KINDS)),
        None,
    )


def _help(state: State, command: Command, ctx: CommandContext) -> tuple[State, Outcome]:
    text = "Gauntlet's commands, and the permission each needs:"
    if command.unknown is not None:
        text = f"`{command.unknown}` is not a Gauntlet command. {text}"
    return state, Outcome(ok=command.unknown is None, text=text, details=help_lines(ctx.config.commands))


def _status(state: State, command: Command, ctx: CommandContext) -> tuple[State, Outcome]:
    del command
    key = gauntlet_issue_key(state, ctx.comment.issue_number)
    if not ctx.comment.is_pull_request and key is not None:
        watched = state.triage.issues.get(key)
        lines = [f"This is Gauntlet's `{key}` issue."]
        if watched is not None:
            seen = f"{watched.last_seen:%Y-%m-%d}" if watched.last_seen else "never"
            lines.append(f"Last seen on the default branch: {seen}; {ends_when(watched.job, watched.path)}.")
        return state, Outcome(ok=True, text="Status:", details=tuple(lines))
    return state, Outcome(ok=True, text="Status:", details=status_lines(state.pr, ctx.config))


def _accept_risk(state: State, command: Command, ctx: CommandContext) -> tuple[State, Outcome]:
    pr = state.pr
    if not ctx.comment.is_pull_request or pr is None or pr.current is None:
        return state, Outcome(ok=False, text="Not done: there are no findings of a CI run on this pull request yet.")
    chosen = _risk_choice(open_findings(pr), command)
    if not chosen:
        scope = ", ".join(fp[:12] for fp in command.fingerprints) or command.scope
        return state, Outcome(
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
    pr = evolve(pr, accepted_risks=[*pr.accepted_risks, *risks])
    book = state.triage
    effects: list[Effect] = []
    for finding in chosen:
        job = _reporting_job(pr, finding)
        issue = _risk_issue(finding, ctx, reason, job, pr.owners)
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
                job=job,
                path=finding.path,
                pr=ctx.comment.issue_number,
            ),
        )
    state = evolve(state, pr=pr, triage=book)
    text = f"{author} accepted {len(chosen)} risk{'s' if len(chosen) != 1 else ''}: {reason}"
    return state, Outcome(
        ok=True,
        text=text,
        details=tuple(risk_line(f) for f in chosen),
        effects=tuple(effects),
        replan=True,
        shown=True,
    )


def _reporting_job(pr: PRRecord | None, finding: FindingRecord) -> str | None:
    """The CI job whose runs would report ``finding`` again; ``None`` for a review finding (no CI run does)."""
    if finding.source in ("review", "comment"):
        return None
    latest = latest_observation(pr)
    return latest[3] if latest is not None else None


def ends_when(job: str | None, path: str | None) -> str:
    """When Gauntlet closes an accepted-risk issue: on evidence, never by time."""
    if job is not None:
        return f"Gauntlet closes this issue when `{job}` runs on the default branch and no longer reports it"
    if path:
        return f"Gauntlet closes this issue when the code at `{path}` changes on the default branch"
    return "Gauntlet cannot tell when this finding is gone: close this issue by hand when it is"


def _risk_choice(candidates: list[FindingRecord], command: Command) -> list[FindingRecord]:
    if command.fingerprints:
        wanted = set(command.fingerprints)
        return [f for f in candidates if f.fingerprint in wanted]
    severities = {"all": ("major", "minor"), "majors": ("major",), "minors": ("minor",)}[command.scope]
    return [f for f in candidates if f.severity in severities]


def _risk_issue(
    finding: FindingRecord, ctx: CommandContext, reason: str, job: str | None, owners: Mapping[str, list[str]]
) -> FileIssue:
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
        resolve=f"fix the finding; {ends_when(job, finding.path)}",
        accepted_by=ctx.comment.author,
        pr=pr,
    )
    # The owners the PR's run read from its checkout; none known (a record written before it kept them, or no
    # CODEOWNERS): filed without assignees, never looked up, so a command costs no CODEOWNERS probes.
    assignees = tuple(owners.get(finding.path, ())) if finding.path else ()
    return FileIssue(
        kind="risk",
        ident=finding.fingerprint,
        title=f"accepted risk: {finding.message}"[:200],
        view=view,
        labels=("gauntlet", "accepted-risk", finding.severity),
        assignees=assignees,
    )


def _retry(state: State, command: Command, ctx: CommandContext) -> tuple[State, Outcome]:
    del command
    latest = latest_observation(state.pr) if ctx.comment.is_pull_request else None
    if latest is None or not latest[1].isdigit() or int(latest[1]) == 0 or not latest[2].isdigit():
        return state, Outcome(ok=False, text="Not done: Gauntlet has recorded no workflow run on this pull request.")
    run_id, attempt = int(latest[1]), int(latest[2])
    # A run whose jobs all passed has nothing to rerun: GitHub refuses it, and the edge skips it (github/runs.py).
    # Only the edge learns which, after this reply is written, so the reply claims no rerun: a review finding
    # fails the check of a run whose jobs all passed.
    rerun = RerunFailedJobs(run_id=run_id, attempt=attempt)
    text = (
        f"Rerun requested for the failed jobs of run {run_id} (attempt {attempt}). A run whose jobs all passed "
        "has nothing to rerun and is left as it is; the Gauntlet job summary says which happened."
    )
    return state, Outcome(ok=True, text=text, effects=(rerun,))


def _reset(state: State, command: Command, ctx: CommandContext) -> tuple[State, Outcome]:
    del command
    pr = state.pr
    if not ctx.comment.is_pull_request or pr is None:
        return state, Outcome(ok=False, text="Not done: `reset` works on a pull request Gauntlet has seen.")
    forgotten = len(pr.attempts)
    state = evolve(state, pr=evolve(pr, attempts=[]))
    text = f"Forgot {forgotten} recovery attempt{'s' if forgotten != 1 else ''}; retry budgets start again."
    return state, Outcome(ok=True, text=text, replan=forgotten > 0)


def _approve(state: State, command: Command, ctx: CommandContext) -> tuple[State, Outcome]:
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


def _reject(state: State, command: Command, ctx: CommandContext) -> tuple[State, Outcome]:
    assert command.proposal is not None
    outcome = selfheal.reject(
        state.proposals, command.proposal, by=ctx.comment.author, reason=command.reason, now=ctx.now
    )
    return _proposal_outcome(state, outcome)


def _proposal_outcome(state: State, outcome: selfheal.ProposalOutcome) -> tuple[State, Outcome]:
    ok = bool(outcome.changed)
    text = "; ".join(outcome.messages) or "nothing changed"
    return evolve(state, proposals=outcome.book), Outcome(
        ok=ok, text=("Done: " if ok else "Not done: ") + text + ".", effects=outcome.effects
    )


def _flaky(state: State, command: Command, ctx: CommandContext) -> tuple[State, Outcome]:
    """``flaky`` / ``not-flaky``: a maintainer's mark on a test in the default branch's outcome history."""
    if state.branch is None or command.test is None:
        return state, Outcome(ok=False, text="Not done: the default branch's history is not loaded here.")
    named = command.test
    tracked = [t for t in state.branch.outcomes.tests if t.test_id == named or t.fingerprint.startswith(named)]
    found = [f for f in open_findings(state.pr) if f.test_id == named or f.fingerprint.startswith(named)]
    targets = {t.fingerprint: (t.job, t.test_id) for t in tracked} | {
        f.fingerprint: ("", f.test_id) for f in found if not any(t.fingerprint == f.fingerprint for t in tracked)
    }
    if not targets:
        return state, Outcome(ok=False, text=f"Not done: no test `{named}` is known here (give its id or fingerprint).")
    value: FlakyMark = "flaky" if command.name == "flaky" else "not_flaky"
    history = state.branch.outcomes
    for fingerprint, (job, test_id) in sorted(targets.items()):
        history = outcomes.mark(history, fingerprint, job, test_id, value)
    state = evolve(state, branch=evolve(state.branch, outcomes=history))
    word = "flaky" if value == "flaky" else "not flaky"
    text = f"{ctx.comment.author} marked `{named}` {word}" + (f": {command.reason}" if command.reason else "")
    return state, Outcome(ok=True, text=f"Done: {text}.", replan=ctx.comment.is_pull_request)


def _known(state: State, command: Command, ctx: CommandContext) -> tuple[State, Outcome]:
    """``known``: file a known-failure issue whose rule matches the named failure of this PR (once per failure)."""
    named = command.test or ""
    failing = [f for f in open_findings(state.pr) if f.severity in ("critical", "major")]
    found = [f for f in failing if f.test_id == named or f.fingerprint.startswith(named)]
    if not ctx.comment.is_pull_request or not found:
        return state, Outcome(ok=False, text=f"Not done: no failure `{named}` is open on this pull request.")
    finding = found[0]
    issue = known_failure_issue(
        finding, ctx.obs.repository, by=ctx.comment.author, pr=ctx.comment.issue_number, reason=command.reason
    )
    if issue is None:
        return state, Outcome(ok=False, text=f"Not done: the failure `{named}` has no message to match by.")
    text = (
        f"Done: filed a known-failure issue for `{finding.test_id or finding.fingerprint[:12]}`; from the next CI "
        "run, failures its rule matches do not fail a check while it is open."
    )
    return state, Outcome(ok=True, text=text, effects=(issue,))


def known_failure_issue(
    finding: FindingRecord, repository: str, *, by: str, pr: int, reason: str = ""
) -> FileIssue | None:
    """The known-failure issue ``/gauntlet known`` files: a rule with the failure's message (redacted), its test
    file and kind; ``None`` when the message is too short to match by."""
    message = redact(finding.message.replace("\n", " ")).strip()[:MAX_MESSAGE_CHARS]
    if len(message) < MIN_MESSAGE_CHARS:
        return None
    path = (finding.test_id or "").split("::", 1)[0] or finding.path
    rule = RuleBlock(message=message, path=path, kind=finding.kind)
    name = finding.test_id or finding.path or finding.fingerprint[:12]
    view = IssueView(
        repository=repository,
        summary=f"`{name}` fails for a known reason{': ' + reason if reason else ''}.",
        severity=finding.severity,
        path=finding.path,
        line=finding.line,
        accepted_by=by,
        pr=pr,
        known_block=block_text(rule),
    )
    return FileIssue(
        kind="known-failure",
        ident=finding.fingerprint[:16],
        title=f"Known failure: {name}",
        view=view,
        labels=("known-failure",),
        assignees=(),
    )


HANDLERS: dict[CommandName, CommandHandler] = {
    "help": _help,
    "status": _status,
    "accept-risk": _accept_risk,
    "retry": _retry,
    "reset": _reset,
    "approve": _approve,
    "reject": _reject,
    "flaky": _flaky,
    "not-flaky": _flaky,
    "known": _known,
}
