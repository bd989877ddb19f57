"""Who may run which ``/gauntlet`` command (DESIGN §6).

An ``issue_comment`` workflow runs the default branch's code with a write token
even when a stranger comments, so every command is checked here before it acts:

- a comment that was edited, or written by a bot (a ``[bot]`` login or ``type: Bot``)
  or by Gauntlet itself, is not read for commands at all: no reaction, no reply
  (so two bots can never talk each other into a loop);
- otherwise each command needs the collaborator permission its config level names,
  ranked ``none < read < triage < write < maintain < admin``;
- ``approve`` and ``accept-risk`` are refused to the author of the PR they concern
  unless ``commands.allow_self_approval`` is on: nobody waives their own findings.

The permission itself comes from the collaborator permission API, read at the edge
(``observe/issue_comment.py``); nothing here trusts what a comment says about its author.
"""

from __future__ import annotations

from gauntlet.config import CommandsConfig
from gauntlet.engine.commands import Command, CommandName
from gauntlet.models import CommentFact, Permission

__all__ = ["PERMISSION_RANK", "ignored_because", "is_bot", "refusal", "required_permission"]

PERMISSION_RANK: dict[Permission, int] = {"none": 0, "read": 1, "triage": 2, "write": 3, "maintain": 4, "admin": 5}

#: Commands that waive or accept something on behalf of the PR they concern.
_APPROVALS: frozenset[CommandName] = frozenset({"approve", "accept-risk"})


def is_bot(comment: CommentFact) -> bool:
    """True for a bot account or for Gauntlet's own identity (which may be a plain user with a PAT)."""
    login = comment.author.lower()
    own = comment.gauntlet_login.lower()
    return (
        comment.author_type.lower() == "bot"
        or login.endswith("[bot]")
        or login in (own, own.removesuffix("[bot]"), f"{own}[bot]")
    )


def ignored_because(comment: CommentFact) -> str | None:
    """Why a comment is not read for commands at all, or ``None`` when it is."""
    if comment.action != "created":
        return f"the comment was {comment.action}: only new comments carry commands"
    if is_bot(comment):
        return f"{comment.author} is a bot or Gauntlet itself"
    return None


def required_permission(name: CommandName, config: CommandsConfig) -> Permission:
    """The permission ``name`` needs under ``config``."""
    levels: dict[CommandName, Permission] = {
        "help": config.help,
        "status": config.status,
        "retry": config.retry,
        "accept-risk": config.accept_risk,
        "approve": config.approve,
        "reject": config.reject,
        "reset": config.reset,
        "flaky": config.flaky,
        "not-flaky": config.flaky,
        "known": config.known,
    }
    return levels[name]


def refusal(command: Command, comment: CommentFact, config: CommandsConfig, concerns_author: str | None) -> str | None:
    """Why ``comment``'s author may not run ``command``, or ``None`` when they may.

    :param command: the parsed command.
    :param comment: the comment it came from (author and permission as the edge read them).
    :param config: the ``commands`` section.
    :param concerns_author: the author of the PR the command concerns, if any.
    """
    need = required_permission(command.name, config)
    have = comment.author_permission
    if PERMISSION_RANK[have] < PERMISSION_RANK[need]:
        return f"`{command.name}` needs the {need} permission on this repository; {comment.author} has {have}"
    if (
        command.name in _APPROVALS
        and not config.allow_self_approval
        and concerns_author is not None
        and concerns_author.lower() == comment.author.lower()
    ):
        return f"`{command.name}` must come from someone other than the author of the pull request it concerns"
    return None
