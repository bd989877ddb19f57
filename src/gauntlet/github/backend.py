"""Effects applied on GitHub: a table from effect type to the handler that finds and performs it.

:class:`GitHubBackend` only dispatches: each effect type has one
:class:`~gauntlet.github.hub.Handler` in the table :func:`handlers` returns, in the
module named for what it writes (``comments.py``: comments and reactions;
``runs.py``: check runs and reruns; ``issues.py``; ``reverts.py`` and
``proposals.py``: pull requests). To add an effect type, write a handler and add
one line to :func:`handlers`.

A read-only token (fork pull requests) cannot write: the handler's
:class:`~gauntlet.github.client.ReadOnlyToken` becomes a ``skipped`` result, so
the run still reports through the job summary and annotations (DESIGN §5).
"""

from __future__ import annotations

from gauntlet.effects.base import EffectResult, Existing
from gauntlet.effects.models import Effect
from gauntlet.github import comments, issues, proposals, reverts, runs
from gauntlet.github.client import ReadOnlyToken
from gauntlet.github.hub import Handler, Hub

__all__ = ["GitHubBackend", "handlers"]


def handlers() -> dict[str, Handler]:
    """The handler of every effect type GitHub carries out, by the effect's ``type``."""
    table: dict[str, Handler] = {
        "upsert_comment": comments.StickyComment(),
        "reply_to_comment": comments.Reply(),
        "comment_on_pr": comments.Reply(),
        "record_known_hit": comments.KnownHitComment(),
        "answer_known_rule": comments.KnownRuleAnswer(),
        "react": comments.ReactionHandler(),
        "set_check": runs.CheckRunHandler(),
        "rerun_failed_jobs": runs.RerunHandler(),
        "file_issue": issues.FileIssueHandler(),
        "close_issue": issues.CloseIssueHandler(),
        "open_revert_pr": reverts.RevertHandler(),
        "withdraw_revert_pr": reverts.WithdrawHandler(),
        "open_proposal_pr": proposals.ProposalHandler(),
    }
    return table


class GitHubBackend:
    """A :class:`~gauntlet.effects.base.Backend` that dispatches each effect to its handler."""

    def __init__(self, hub: Hub, table: dict[str, Handler] | None = None) -> None:
        self.hub = hub
        self.table = handlers() if table is None else table
        # What this run already did, by key. A state conflict makes the pipeline apply the plan again;
        # an effect identical to one already carried out is not looked up or sent a second time.
        self._done: dict[str, tuple[Effect, EffectResult]] = {}

    def _handler(self, effect: Effect) -> Handler | None:
        return self.table.get(effect.type)

    def find(self, effect: Effect) -> Existing | None:
        """Ask the effect's handler for its earlier result; unhandled types find nothing."""
        handler = self._handler(effect)
        if handler is None:
            return None
        done = self._done.get(effect.key)
        if done is not None and done[0] == effect:
            return _Done(number=done[1].number, url=done[1].url, result=done[1])
        try:
            return handler.find(self.hub, effect)
        except ReadOnlyToken:
            return None

    def perform(self, effect: Effect, existing: Existing | None) -> EffectResult:
        """Carry out the effect through its handler; a missing handler or a read-only token skips it."""
        handler = self._handler(effect)
        if handler is None:
            return EffectResult(type=effect.type, key=effect.key, status="skipped", detail="no GitHub handler")
        if isinstance(existing, _Done):
            return existing.result
        try:
            result = handler.perform(self.hub, effect, existing)
        except ReadOnlyToken as exc:
            return EffectResult(type=effect.type, key=effect.key, status="skipped", detail=str(exc))
        self._done[effect.key] = (effect, result)
        return result


class _Done(Existing):
    """An effect this backend already carried out in this run, identical to the one asked for."""

    result: EffectResult
