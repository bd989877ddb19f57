"""``POST /graphql``: authentication, the request body, the cost, execution and GitHub's error shapes.

- No token: 401 ``This endpoint requires you to be authenticated.``; a body that is not a JSON object with a
  ``query`` string: 400.
- A query that does not parse or validate, or breaks the pagination rules (``cost.py``), is answered 200 with
  ``{"errors": [...]}`` and no ``data``, as GitHub answers it.
- Otherwise 200 ``{"data": ..., "errors": [...]}``: a missing repository or pull request is ``null`` with a
  ``"type": "NOT_FOUND"`` error. A resolver that raises anything else is a sandbox bug: it is kept in
  ``App.crashes`` for the tests to fail on, and the client gets GitHub's "Something went wrong" error.
- Points are charged to the login's GraphQL budget (``App.charge``), and ``X-RateLimit-Resource: graphql``
  reports it; a query refused before it ran costs 1 point here.
"""

from __future__ import annotations

import json
import traceback
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from graphql import (
    DocumentNode,
    GraphQLError,
    OperationDefinitionNode,
    execute_sync,
    get_operation_ast,
    parse,
    validate,
    value_from_ast_untyped,
)

from gauntlet.sandbox.app import App, Quota
from gauntlet.sandbox.graph.cost import measure
from gauntlet.sandbox.graph.schema import root, schema
from gauntlet.sandbox.graph.scope import NotFound, Scope
from gauntlet.sandbox.http import Request, Response

__all__ = ["answer"]

DOCS = "https://docs.github.com/graphql"
BUG = "Something went wrong while executing your query. This is a sandbox bug: see App.crashes."


def answer(app: App, request: Request) -> Response:
    """Answer one ``POST /graphql`` (``App``'s ``GraphQL`` handler)."""
    if request.login is None:
        return _refused(401, "This endpoint requires you to be authenticated.", app.charge(None, 0, resource="graphql"))
    login = request.login
    try:
        payload = json.loads(request.body)
    except ValueError:
        payload = None
    if not isinstance(payload, dict) or not isinstance(payload.get("variables") or {}, dict):
        return _refused(400, "Problems parsing JSON", app.charge(login, 0, resource="graphql"))
    query, name, variables = payload.get("query"), payload.get("operationName"), payload.get("variables") or {}
    if not isinstance(query, str) or not (name is None or isinstance(name, str)):
        message = "A query attribute must be specified and must be a string."
        return _refused(400, message, app.charge(login, 0, resource="graphql"))
    prepared = _prepare(query, name, variables)
    if isinstance(prepared, list):
        quota = app.charge(login, 1, resource="graphql")
        body: dict[str, Any] = {"errors": [_error(e, app.crashes) for e in prepared]}
    else:
        quota = app.charge(login, prepared.points, resource="graphql")
        scope = Scope(store=app.store, base=request.base, login=login, rate=_rate(prepared, quota))
        with app.store.lock:  # one consistent picture, as REST handlers read under the lock
            result = execute_sync(
                schema(),
                prepared.document,
                root_value=root(scope),
                context_value=scope,
                variable_values=variables,
                operation_name=name,
            )
        body = {"errors": [_error(e, app.crashes) for e in result.errors]} if result.errors else {}
        body["data"] = result.data
    return Response(status=200, body=body, headers=quota.headers())


def _refused(status: int, message: str, quota: Quota) -> Response:
    return Response(status=status, body={"message": message, "documentation_url": DOCS}, headers=quota.headers())


@dataclass(frozen=True)
class _Prepared:
    """A query that may run: its document, its cost in points and the nodes it may return."""

    document: DocumentNode
    points: int
    nodes: int


def _prepare(query: str, name: str | None, variables: dict[str, Any]) -> _Prepared | list[GraphQLError]:
    """Parse, validate and price a query; the errors that refuse it before it runs, if any."""
    try:
        document = parse(query)
    except GraphQLError as exc:
        return [exc]
    except RecursionError:  # graphql-core 3.2 has no depth limit of its own
        return [GraphQLError("Syntax Error: Document is nested too deeply. Parsing aborted.")]
    problems = validate(schema(), document)
    if problems:
        return list(problems)
    operation = get_operation_ast(document, name)
    if operation is None:
        return _Prepared(document, 1, 0)  # execution reports the missing operation
    cost = measure(schema(), document, operation, _with_defaults(operation, variables))
    return cost.errors or _Prepared(document, cost.cost, cost.nodes)


def _rate(prepared: _Prepared, quota: Quota) -> dict[str, Any]:
    """``Query.rateLimit``: this query's cost and the budget after it."""
    return {
        "cost": prepared.points,
        "limit": quota.limit,
        "nodeCount": prepared.nodes,
        "remaining": quota.remaining,
        "used": quota.used,
        "resetAt": datetime.fromtimestamp(quota.reset, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def _with_defaults(operation: OperationDefinitionNode, variables: dict[str, Any]) -> dict[str, Any]:
    """The variables with the operation's defaults filled in, for the cost (execution checks their types)."""
    values = dict(variables)
    for definition in operation.variable_definitions or ():
        name = definition.variable.name.value
        if name not in values and definition.default_value is not None:
            values[name] = value_from_ast_untyped(definition.default_value)
    return values


def _error(error: GraphQLError, crashes: list[str]) -> dict[str, Any]:
    """One error as GitHub shapes it: ``type`` (when it has one) beside ``message``, ``locations`` and ``path``."""
    original = error.original_error
    formatted: dict[str, Any] = {**error.formatted}
    extensions = dict(formatted.pop("extensions", None) or {})
    kind = "NOT_FOUND" if isinstance(original, NotFound) else extensions.pop("type", None)
    if kind is None and error.path is not None:
        # Raised while resolving, and none of the errors the sandbox means to give: a bug in a resolver.
        cause = original if original is not None else error
        crashes.append("".join(traceback.format_exception(cause)))
        formatted["message"] = BUG
    out: dict[str, Any] = {"type": kind} if kind else {}
    out.update(formatted)
    if extensions:
        out["extensions"] = extensions
    return out
