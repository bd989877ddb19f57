"""Effects applied on GitHub: a table from effect type to the handler that finds and performs it.

Theory of operation: :func:`gauntlet.effects.base.apply` asks the backend to
``find`` an effect's earlier result by its key, then to ``perform`` it given what
was found. :class:`GitHubBackend` only dispatches: each effect type has one
:class:`Handler` in the table :func:`handlers` returns, in its own module
(``comments.py``, ``checks.py``, ``reactions.py``, ``actions.py``, and the issue,
revert, proposal and label modules). To add an effect type, write a handler and
add one line to :func:`handlers`.

A read-only token (fork pull requests) cannot write: the handler's
:class:`~gauntlet.github.client.ReadOnlyToken` becomes a ``skipped`` result, so
the run still reports through the job summary and annotations (DESIGN §5).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from gauntlet.effects.base import EffectResult, Existing
from gauntlet.effects.models import Effect

if TYPE_CHECKING:
    from github.Repository import Repository

    from gauntlet.github.client import GitHubClient

__all__ = ["CommentMode", "GitHubBackend", "Handler", "Hub", "handlers"]

CommentMode = Literal["always", "changes", "off"]


@dataclass(frozen=True)
class Hub:
    """What every handler works with: the client, the repository and the run's options.

    :param client: the one PyGithub client (retries, call counting, error translation).
    :param repo: the repository the run serves (a lazy PyGithub object: building it costs no call).
    :param bot_login: Gauntlet's own identity; markers count only on items it authored (DESIGN §5).
    :param known: the number the state index holds for an effect key (comment id, issue or PR number).
    :param comment_mode: ``always`` edit the sticky comment every run, ``changes`` only when its text
        changes, ``off`` never post it.
    :param check_name: the check run's name.
    :param assign_owners: assign the code owners of a finding's path to the issues Gauntlet files.
    """

    client: GitHubClient
    repo: Repository
    bot_login: str
    known: Callable[[str], int | None]
    comment_mode: CommentMode = "changes"
    check_name: str = "Gauntlet"
    assign_owners: bool = True


class Handler(Protocol):
    """Finds and performs one effect type on GitHub. Handlers narrow ``effect`` to their own type."""

    def find(self, hub: Hub, effect: Effect) -> Existing | None:
        """Return the earlier result of ``effect`` (found by its key), or ``None``."""
        ...

    def perform(self, hub: Hub, effect: Effect, existing: Existing | None) -> EffectResult:
        """Carry out ``effect``; update ``existing`` instead of creating a second one."""
        ...


def handlers() -> dict[str, Handler]:
    """The handler of every effect type GitHub carries out, by the effect's ``type``."""
    from gauntlet.github import actions, checks, comments, issues, proposals, reactions, reverts

    table: dict[str, Handler] = {
        "upsert_comment": comments.StickyComment(),
        "reply_to_comment": comments.Reply(),
        "comment_on_pr": comments.Reply(),
        "set_check": checks.CheckRunHandler(),
        "react": reactions.ReactionHandler(),
        "rerun_failed_jobs": actions.RerunHandler(),
        "file_issue": issues.FileIssueHandler(),
        "close_issue": issues.CloseIssueHandler(),
        "open_revert_pr": reverts.RevertHandler(),
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
        from gauntlet.github.client import ReadOnlyToken

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
        from gauntlet.github.client import ReadOnlyToken

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
