"""What every resolver shares: the store, who asks, the query's cost, and GitHub's ``NOT_FOUND`` error.

Resolvers are plain functions that return *nodes*: dicts keyed by GraphQL field names, whose values are plain
values or, for what costs a git call or takes arguments, functions ``(info, **arguments)`` that graphql-core's
default resolver calls only when the query asks for that field. ``__typename`` tells interfaces apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gauntlet.sandbox.store import Store
from gauntlet.sandbox.views.repos import node_id

__all__ = ["Node", "NotFound", "Scope", "actor"]

Node = dict[str, Any]


class NotFound(Exception):
    """GitHub's ``"type": "NOT_FOUND"`` error: the field is null and the error says what could not be resolved."""


@dataclass(kw_only=True)
class Scope:
    """One query's context (graphql-core's ``context_value``)."""

    store: Store
    base: str
    login: str | None
    #: ``Query.rateLimit``: this query's cost and the budget after it was charged.
    rate: Node
    #: Results of git work shared by the nodes of one query (review comment anchors, by comment).
    memo: dict[Any, Any] = field(default_factory=dict)


def actor(scope: Scope, login: str) -> Node:
    """The ``Actor`` behind a login: a ``User``, ``Bot`` or ``Organization``.

    GitHub's GraphQL names a bot by its app's slug: REST's ``github-actions[bot]`` is ``Bot.login``
    ``github-actions`` (https://docs.github.com/graphql/reference/objects#bot), at ``/apps/<slug>``.
    """
    who = scope.store.user(login)
    kind = who.type if who.type in ("User", "Bot", "Organization") else "User"
    shown = who.login.removesuffix("[bot]") if kind == "Bot" else who.login
    url = f"{scope.base}/apps/{shown}" if kind == "Bot" else f"{scope.base}/{who.login}"
    return {
        "__typename": kind,
        "login": shown,
        "url": url,
        "avatarUrl": lambda _info, size=None: f"{scope.base}/_sandbox/avatars/{who.login}",
        "id": node_id("U", who.id),
        "databaseId": who.id,
    }


def authored(scope: Scope, rest: dict[str, Any], login: str) -> Node:
    """What every ``Comment`` (an issue, a comment, a review, a review comment) shares, from its REST view: its
    ids, body, address, the author and the author's association with the repository."""
    return {
        "id": rest["node_id"],
        "databaseId": rest["id"],
        "body": rest["body"],
        "url": rest["html_url"],
        "authorAssociation": rest["author_association"],
        "author": actor(scope, login),
    }
