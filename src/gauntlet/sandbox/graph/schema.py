"""The executable schema: GitHub's SDL subset (``schema.graphql``) and the root of every query.

Every field is resolved by graphql-core's default resolver from the nodes the functions of this package return
(``scope.py`` says how); the root below is where a query starts.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from graphql import GraphQLSchema, build_schema

from gauntlet.sandbox.graph import issues, objects, pulls
from gauntlet.sandbox.graph.scope import Node, NotFound, Scope, actor
from gauntlet.sandbox.views.repos import node_id

__all__ = ["root", "schema"]


@cache
def schema() -> GraphQLSchema:
    """The schema, built once from ``schema.graphql``."""
    sdl = resources.files(__package__).joinpath("schema.graphql").read_text(encoding="utf-8")
    return build_schema(sdl)


def root(scope: Scope) -> Node:
    """``Query``: the repository, the viewer and the rate limit."""
    return {
        "repository": lambda _info, owner, name, followRenames=True: _repository(scope, owner, name),
        "viewer": lambda _info: actor(scope, scope.login or ""),
        "rateLimit": lambda _info: scope.rate,
    }


def _repository(scope: Scope, owner: str, name: str) -> Node:
    """A repository the viewer may read (the REST rule: ``Repo.permission``), else GitHub's ``NOT_FOUND``."""
    repo = scope.store.repo(owner, name)
    if repo is None or repo.permission(scope.login) == "none":
        raise NotFound(f"Could not resolve to a Repository with the name '{owner}/{name}'.")
    return {
        "id": node_id("R", repo.id),
        "databaseId": repo.id,
        "name": repo.name,
        "nameWithOwner": repo.full_name,
        "isPrivate": repo.private,
        "url": f"{scope.base}/{repo.full_name}",
        "defaultBranchRef": lambda _info: objects.ref(scope, repo, repo.default_branch),
        "ref": lambda _info, qualifiedName: objects.ref(scope, repo, qualifiedName),
        "object": lambda _info, expression=None, oid=None: objects.resolve_object(scope, repo, expression, oid),
        "pullRequest": lambda _info, number: pulls.pull_request(scope, repo, number),
        "issues": lambda _info, **arguments: issues.issues(scope, repo, **arguments),
    }
