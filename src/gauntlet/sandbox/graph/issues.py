"""``Repository.issues``: issues only (pull requests are left out, as GitHub's ``issues`` connection does).

Mapped from the REST issue view (``views/issues.py``), so URLs, bodies and counts agree with ``GET issues``.
``labels`` keeps an issue carrying any of the given labels (GitHub's GraphQL filter is "any of", where REST's
``labels=a,b`` wants all of them); ``states`` and ``orderBy`` are GitHub's.
"""

from __future__ import annotations

from typing import Any

from gauntlet.sandbox.graph.connections import connection
from gauntlet.sandbox.graph.scope import Node, Scope, authored
from gauntlet.sandbox.store import Comment, Issue, Repo
from gauntlet.sandbox.views import issues as views

__all__ = ["comments", "issues"]

_ORDER = {"CREATED_AT": "created_at", "UPDATED_AT": "updated_at"}


def issues(
    scope: Scope,
    repo: Repo,
    *,
    labels: list[str] | None = None,
    states: list[str] | None = None,
    orderBy: dict[str, str] | None = None,
    **page: Any,
) -> Node:
    """The issues of ``repo`` as a connection (default order: oldest first)."""
    wanted = {name.lower() for name in labels} if labels is not None else None
    chosen = [
        issue
        for issue in repo.issues.values()
        if issue.pull is None
        and (states is None or issue.state.upper() in states)
        and (wanted is None or wanted & {name.lower() for name in issue.labels})
    ]
    order = orderBy or {"field": "CREATED_AT", "direction": "ASC"}

    def key(issue: Issue) -> tuple[Any, int]:
        if order["field"] == "COMMENTS":
            return (len(_comments(repo, issue.number)), issue.number)
        return (getattr(issue, _ORDER[order["field"]]), issue.number)

    chosen.sort(key=key, reverse=order["direction"] == "DESC")
    return connection(chosen, lambda issue: _issue(scope, repo, issue), **page)


def _comments(repo: Repo, number: int) -> list[Comment]:
    return [c for c in repo.comments.values() if c.issue_number == number]


def _issue(scope: Scope, repo: Repo, item: Issue) -> Node:
    rest = views.issue(scope.base, scope.store, repo, item)
    return {
        **authored(scope, rest, item.user),
        "number": rest["number"],
        "title": rest["title"],
        "body": rest["body"] or "",
        "state": item.state.upper(),
        "createdAt": rest["created_at"],
        "updatedAt": rest["updated_at"],
        "closedAt": rest["closed_at"],
        "comments": lambda _info, **page: comments(scope, repo, item.number, **page),
        "labels": lambda _info, **page: connection(rest["labels"], _label, **page),
    }


def comments(scope: Scope, repo: Repo, number: int, **page: Any) -> Node:
    """The conversation comments of issue or pull request ``number``, oldest first (``GET issues/N/comments``)."""
    return connection(_comments(repo, number), lambda c: _comment(scope, repo, c), **page)


def _comment(scope: Scope, repo: Repo, item: Comment) -> Node:
    rest = views.comment(scope.base, scope.store, repo, item)
    return {**authored(scope, rest, item.user), "createdAt": rest["created_at"]}


def _label(rest: dict[str, Any]) -> Node:
    return {"id": rest["node_id"], "name": rest["name"], "color": rest["color"], "description": rest["description"]}
