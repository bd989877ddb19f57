"""The engine step for an ``issue_comment``: run the ``/gauntlet`` commands it carries (DESIGN §1, §6).

Theory of operation. A comment is read for commands only when it is new, written
by a person (never a bot or Gauntlet itself) and on a pull request or on one of
Gauntlet's own issues (found through the state index). A comment already handled
(its id is in the index under ``command:<id>``) plans nothing: the same event
delivered twice acts once. Otherwise::

    per command, in order:  authorise -> act on the stored findings of the latest iteration
    sticky comment + check  re-planned when accepted risks or attempts changed
    answered by the report  every command done, each one the report shows (accept-risk): nothing more
    else                    🚀 or 😕 first, then a reply per command quoting it with what was done or why not

**A command the report answers** gets no reaction and no reply. When every command of the
comment succeeded, each changed what the sticky comment and the check show (an ``accept-risk``:
who accepted which finding, why, and the issue filed for it, whose number the report learns
from the filing just before it is written, ``effects/base.py``) and they are re-planned, the
edited comment and check are the answer, and the filed issue's body names the PR, which GitHub
shows in the PR's timeline. A reaction and a reply would repeat them, at two calls.

**Every other comment** (a refusal, a command that failed, ``help``, ``status``, ``retry``,
anything whose outcome the report does not show) gets one reaction and a reply per command.
One reaction, not a 👀 on receipt and a 🚀 at the end: every effect lands in the same run seconds
apart, so a 👀 would be seen alone only for those seconds, and it cost one call. The engine knows
every command's outcome before any effect is applied, so the outcome reaction comes first: posting
it is also what finds out that the comment was deleted, before anything is done. That detection
applies only where a reaction is posted: a report-answered command whose comment was deleted
meanwhile still files its issue and edits the report (what a maintainer asked for, seconds earlier).

A command never ingests and never advances the iteration: the sticky comment and
the check are re-planned by the PR step's planning part
(:func:`gauntlet.engine.pull_request.plan_iteration`) for the latest stored observation.
"""

from __future__ import annotations

from datetime import datetime

import numpy as np

from gauntlet.config import Config
from gauntlet.effects.models import Effect, Plan, React, ReplyToComment, SetCheck, UpsertComment, WriteSummary
from gauntlet.effects.views import ReplyView
from gauntlet.engine.authorise import ignored_because, refusal
from gauntlet.engine.command_handlers import (
    HANDLERS,
    CommandContext,
    Outcome,
    accepted_conclusion,
    gauntlet_issue_key,
    open_findings,
)
from gauntlet.engine.commands import Command, parse_commands
from gauntlet.engine.pull_request import ReportFacts, plan_iteration
from gauntlet.engine.results import known_numbers, link_risk_issues, remember
from gauntlet.models import CommentFact, Observation, evolve
from gauntlet.state.events import Event
from gauntlet.state.models import State

__all__ = ["handled_key", "step_comment"]


def handled_key(comment: CommentFact) -> str:
    """The index key that records a comment as handled."""
    return f"command:{comment.id}"


def step_comment(
    state: State, obs: Observation, config: Config, now: datetime, rng: np.random.Generator
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
        or handled_key(comment) in known_numbers(state)
        or not (comment.is_pull_request or gauntlet_issue_key(state, comment.issue_number) is not None)
    ):
        return state, Plan()
    commands = parse_commands(comment.body, [f.fingerprint for f in open_findings(state.pr)])
    if not commands:
        return state, Plan()
    ctx = CommandContext(obs=obs, comment=comment, config=config, now=now, rng=rng)
    effects: list[Effect] = []
    replies: list[Effect] = []
    replan = False
    all_ok = True
    #: Every command done and shown by the re-planned report: the report is the answer (no reaction, no reply).
    all_shown = True
    for index, command in enumerate(commands):
        state, outcome = _run(state, command, ctx)
        effects.extend(outcome.effects)
        replan = replan or outcome.replan
        all_ok = all_ok and outcome.ok
        all_shown = all_shown and outcome.ok and outcome.shown
        view = ReplyView(command=command.line, outcome=outcome.text, details=outcome.details)
        replies.append(ReplyToComment(issue_number=comment.issue_number, comment_id=comment.id, index=index, view=view))
        state = _audit(state, command, outcome, ctx)
    report = None
    if replan:
        state = link_risk_issues(state)
        report = _replan(state, ctx)
    if report is not None:
        effects.extend(report.effects)
    if report is None or not all_shown:
        effects.extend(replies)
        effects.insert(0, React(comment_id=comment.id, content="rocket" if all_ok else "confused"))
    state = remember(state, handled_key(comment), comment.issue_number)
    if report is None:
        return state, Plan(effects=tuple(effects))
    return state, evolve(report, effects=tuple(effects))


def _run(state: State, command: Command, ctx: CommandContext) -> tuple[State, Outcome]:
    concerns = ctx.obs.pr_author if ctx.comment.is_pull_request else None
    refused = command.problem or refusal(command, ctx.comment, ctx.config.commands, concerns)
    if refused is not None:
        return state, Outcome(ok=False, text=f"Not done: {refused}.")
    return HANDLERS[command.name](state, command, ctx)


def _audit(state: State, command: Command, outcome: Outcome, ctx: CommandContext) -> State:
    event = Event(
        at=ctx.now,
        kind="command",
        key=f"comment:{ctx.comment.id}",
        data={"command": command.name, "by": ctx.comment.author, "ok": outcome.ok, "on": ctx.comment.issue_number},
    )
    return evolve(state, events=[*state.events, event])


def _replan(state: State, ctx: CommandContext) -> Plan | None:
    """The PR step's report planned again for the latest stored observation (nothing is folded in or ingested)."""
    pr = state.pr
    facts = ReportFacts.latest(pr, ctx.obs.repository) if pr is not None else None
    if pr is None or facts is None:
        return None
    # A comment run holds the default branch's record as ``branch``: the PR step reads it as its base.
    base = state.base if state.base is not None else state.branch
    _, plan = plan_iteration(evolve(state, base=base), facts, ctx.config, ctx.now, fresh=False)
    # Only the report: a command must not set off the recovery actions the plan names again.
    report = [e for e in plan.effects if isinstance(e, UpsertComment | SetCheck | WriteSummary)]
    check = next((e for e in report if isinstance(e, SetCheck)), None)
    if check is None:
        return evolve(plan, effects=tuple(report))
    conclusion = accepted_conclusion(pr, check.conclusion, ctx.config)
    # The check's conclusion, and every body's headline with it (they must say the same thing).
    effects = tuple(
        evolve(e, conclusion=conclusion, view=evolve(e.view, conclusion=conclusion))
        if isinstance(e, SetCheck)
        else evolve(e, view=evolve(e.view, conclusion=conclusion))
        for e in report
    )
    return evolve(plan, effects=effects)
