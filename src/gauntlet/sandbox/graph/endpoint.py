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
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from graphql import (
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
from gauntlet.sandbox.store import Store

__all__ = ["answer"]

DOCS = "https://docs.github.com/graphql"
BUG = "Something went wrong while executing your query. This is a sandbox bug: see App.crashes."


def answer(app: App, request: Request) -> Response:
    """Answer one ``POST /graphql`` (``App``'s ``GraphQL`` handler)."""
    store, charge, crashes = app.store, app.charge, app.crashes
    if request.login is None:
        quota = charge(None, 0, resource="graphql")
        body = {"message": "This endpoint requires you to be authenticated.", "documentation_url": DOCS}
        return Response(status=401, body=body, headers=quota.headers())
    login = request.login
    try:
        payload = json.loads(request.body)
    except ValueError:
        payload = None
    if not isinstance(payload, dict) or not isinstance(payload.get("variables") or {}, dict):
        return _refused(400, "Problems parsing JSON", charge(login, 0, resource="graphql"))
    query, name = payload.get("query"), payload.get("operationName")
    if not isinstance(query, str) or not (name is None or isinstance(name, str)):
        return _refused(
            400, "A query attribute must be specified and must be a string.", charge(login, 0, resource="graphql")
        )
    charged: list[Quota] = []

    def pay(points: int) -> Quota:
        charged.append(charge(login, points, resource="graphql"))
        return charged[-1]

    body = _run(store, request.base, login, query, name, payload.get("variables") or {}, pay, crashes)
    quota = charged[-1] if charged else pay(1)
    return Response(status=200, body=body, headers=quota.headers())


def _refused(status: int, message: str, quota: Quota) -> Response:
    return Response(status=status, body={"message": message, "documentation_url": DOCS}, headers=quota.headers())


def _run(
    store: Store,
    base: str,
    login: str,
    query: str,
    name: str | None,
    variables: dict[str, Any],
    pay: Callable[[int], Quota],
    crashes: list[str],
) -> dict[str, Any]:
    try:
        document = parse(query)
    except GraphQLError as exc:
        return {"errors": [_error(exc, crashes)]}
    problems = validate(schema(), document)
    if problems:
        return {"errors": [_error(e, crashes) for e in problems]}
    operation = get_operation_ast(document, name)
    coerced = _coerced(operation, variables)
    if operation is not None and coerced is not None:
        cost = measure(schema(), document, operation, coerced)
        if cost.errors:
            return {"errors": [_error(e, crashes) for e in cost.errors]}
        points, nodes = cost.cost, cost.nodes
    else:
        points, nodes = 1, 0  # execution reports the missing operation or the bad variables
    quota = pay(points)
    rate = {
        "cost": points,
        "limit": quota.limit,
        "nodeCount": nodes,
        "remaining": quota.remaining,
        "used": quota.used,
        "resetAt": datetime.fromtimestamp(quota.reset, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    scope = Scope(store=store, base=base, login=login, rate=rate)
    with store.lock:  # one consistent picture, as REST handlers read under the lock
        result = execute_sync(
            schema(),
            document,
            root_value=root(scope),
            context_value=scope,
            variable_values=variables,
            operation_name=name,
        )
    body: dict[str, Any] = {}
    if result.errors:
        body["errors"] = [_error(e, crashes) for e in result.errors]
    body["data"] = result.data
    return body


def _coerced(operation: OperationDefinitionNode | None, variables: dict[str, Any]) -> dict[str, Any] | None:
    """The variables with the operation's defaults filled in, for the cost (execution checks their types)."""
    if operation is None:
        return None
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
