"""The ``issue_comment`` reader of ``/gauntlet`` commands: a payload -> a :class:`~gauntlet.models.CommentFact`.

The payload is untrusted JSON and says nothing trustworthy about the commenter's
rights (``author_association`` is a hint, not an authority), so the permission is
read from the collaborator permission API, and only when it can matter: a new
comment by a person that contains ``/gauntlet``. Ordinary comments cost no call.
See https://docs.github.com/webhooks/webhook-events-and-payloads#issue_comment and
https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, get_args

from gauntlet.engine.authorise import ignored_because
from gauntlet.errors import InputError
from gauntlet.github.client import NotFound
from gauntlet.models import CommentFact, Permission, evolve

if TYPE_CHECKING:
    from gauntlet.github.client import GitHubClient

__all__ = ["comment_fact", "permission_of"]

_LEVELS: tuple[Permission, ...] = get_args(Permission)
#: A comment longer than GitHub allows is not a real comment; cut it before anything reads it.
_MAX_BODY_CHARS = 65_536


def permission_of(client: GitHubClient, repository: str, login: str) -> Permission:
    """The collaborator permission of ``login`` on ``repository`` (one call).

    ``role_name`` says ``maintain`` and ``triage``, which the legacy ``permission``
    field folds into ``write`` and ``read``; a custom role falls back to the legacy
    word. An unknown user is ``none``.

    :raises GitHubUnavailable: GitHub kept failing.
    """
    try:
        # Conditional: the PR's record remembers the answer, and an unchanged permission costs nothing.
        _, data = client.read(f"/repos/{repository}/collaborators/{login}/permission")
    except NotFound:
        return "none"
    for field in ("role_name", "permission"):
        value = data.get(field) if isinstance(data, dict) else None
        if value in _LEVELS:
            level: Permission = value
            return level
    return "none"


def comment_fact(
    payload: Mapping[str, Any], permission: Callable[[str], Permission], gauntlet_login: str
) -> CommentFact:
    """The :class:`CommentFact` of an ``issue_comment`` payload.

    :param payload: the decoded event payload.
    :param permission: looks up a login's permission; called only for a new comment by a
        person that mentions ``/gauntlet``.
    :param gauntlet_login: the login Gauntlet writes as (input ``bot_login``).
    :raises InputError: the payload lacks the comment or the issue.
    """
    comment = _object(payload, "comment")
    issue = _object(payload, "issue")
    user = _optional(comment, "user")
    action = payload.get("action")
    fact = CommentFact(
        id=_number(comment, "id"),
        body=_text(comment, "body")[:_MAX_BODY_CHARS],
        author=_text(user, "login"),
        author_type=_text(user, "type") or "User",
        # Anything but a plain "created" is treated like an edit: never acted on.
        action=action if action in ("created", "edited", "deleted") else "edited",
        issue_number=_number(issue, "number"),
        is_pull_request=isinstance(issue.get("pull_request"), dict),
        gauntlet_login=gauntlet_login,
    )
    if "/gauntlet" in fact.body and fact.author and ignored_because(fact) is None:
        fact = evolve(fact, author_permission=permission(fact.author))
    return fact


def _object(payload: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = payload.get(name)
    if not isinstance(value, dict):
        raise InputError(f"issue_comment payload has no {name}")
    return value


def _optional(payload: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = payload.get(name)
    return value if isinstance(value, dict) else {}


def _text(payload: Mapping[str, Any], name: str) -> str:
    value = payload.get(name)
    return value if isinstance(value, str) else ""


def _number(value: Mapping[str, Any], name: str) -> int:
    number = value.get(name)
    if not isinstance(number, int) or isinstance(number, bool) or number <= 0:
        raise InputError(f"issue_comment payload: {name} is not a positive number")
    return number
