"""The API application: authentication, permissions, dispatch to routes and response shaping.

Independent of the socket layer (``server.py``): ``App.handle(request)`` takes a parsed request and returns a
response, which keeps every rule testable and the HTTP server thin.
"""

from __future__ import annotations

import hashlib
import json
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from gauntlet.sandbox import bodies, shapes
from gauntlet.sandbox.http import GRAPHQL_PATH, ApiError, Request, Response, Router, found, not_found
from gauntlet.sandbox.store import Repo, Store, permission_at_least

# Observers see (method, template, status, body) for every routed response (body None when it has none);
# the contract tests validate through this.
Observer = Callable[[str, str, int, Any], None]
# Answers ``POST /graphql`` for the app (``graph.endpoint.answer``); given to the app, which the GraphQL resolvers'
# REST helpers import, so that the app imports none of them.
GraphQL = Callable[["App", Request], Response]

RATE_LIMIT = 5000
FORBIDDEN = "Resource not accessible by integration"
T = TypeVar("T")


@dataclass(kw_only=True)
class Context:
    """What a route handler gets: the request, its path parameters and the store."""

    request: Request
    params: dict[str, str]
    store: Store

    @property
    def base(self) -> str:
        """The sandbox's own ``scheme://host:port`` as the client reached it."""
        return self.request.base

    @property
    def login(self) -> str | None:
        """The authenticated login (the token's text up to a ``:``), or ``None``."""
        return self.request.login

    def body(self) -> dict[str, Any]:
        """The JSON body."""
        return self.request.json()

    def need_login(self) -> str:
        """The login, or 401 like GitHub."""
        if self.login is None:
            raise ApiError(401, "Requires authentication")
        return self.login

    def repo(self, need: str = "read", *, users_need: str | None = None) -> Repo:
        """The repository in the path, checked against the requester's permission.

        :param need: the permission required (``read`` for reads; ``write`` for most writes).
        :param users_need: a lower requirement for human users: on GitHub anyone who can read a public
            repository may open issues, comment and react, but an integration token needs the permission.
        :raises ApiError: 404 when the repository is missing or invisible, 401/403 when the permission is short.
        """
        repo = self.store.repo(self.params["owner"], self.params["repo"])
        if repo is None:
            raise not_found()
        have = repo.permission(self.login)
        if have == "none":
            raise not_found()
        if need != "read" and self.login is None:
            raise ApiError(401, "Requires authentication")
        if users_need is not None and self.login is not None and self.store.user(self.login).type == "User":
            need = users_need
        if not permission_at_least(have, need):
            raise ApiError(403, FORBIDDEN)
        return repo

    def number(self, name: str) -> int:
        """An integer path parameter."""
        return int(self.params[name])

    def numbered(self, items: Mapping[int, T], name: str) -> T:
        """The item of ``items`` keyed by the integer path parameter ``name``, or 404."""
        return found(items.get(self.number(name)))


class App:
    """Routes requests to handlers and shapes their responses."""

    def __init__(self, store: Store, router: Router, graphql: GraphQL | None = None) -> None:
        self.store = store
        self.router = router
        self.graphql = graphql
        self.observers: list[Observer] = []
        self.crashes: list[str] = []  # tracebacks of handler bugs (answered with 500)

    def handle(self, request: Request) -> tuple[Response, str | None]:
        """Answer one API request; returns the response and the operation's path template (if routed)."""
        if request.method == "POST" and request.path == GRAPHQL_PATH and self.graphql is not None:
            return self._graphql(request, self.graphql), GRAPHQL_PATH
        matched = self.router.match(request.method, request.path)
        if matched is None:
            missing = ApiError(404, "Not Found").response()
            missing.headers.update(self.rate_headers(request.login))
            return missing, None
        route, params = matched
        if request.login is not None:
            self.store.user(request.login)
        try:
            self._check_body(request, route.operation)
            response = route.handler(Context(request=request, params=params, store=self.store))
        except ApiError as exc:
            response = exc.response()
        except Exception as exc:  # a server must answer; the bug is kept for the tests to fail on
            self.crashes.append(traceback.format_exc())
            response = Response(status=500, body={"message": f"sandbox bug: {exc!r}"})
        if response.raw is None and response.body is not None:
            response.body = shapes.complete(
                request.method, route.operation, response.status, response.body, request.base
            )
        response = _conditional(request, response)
        response.headers.update(self.rate_headers(request.login, counted=response.status != 304))
        for observer in list(self.observers):
            observer(request.method, route.operation, response.status, response.body)
        return response, route.operation

    @staticmethod
    def _check_body(request: Request, operation: str) -> None:
        if request.method in ("GET", "HEAD") or not request.body.strip():
            return
        try:
            body = json.loads(request.body)
        except ValueError as exc:
            raise ApiError(400, "Problems parsing JSON") from exc
        found = bodies.problem(request.method, operation, body)
        if found:
            raise ApiError(422, f"Invalid request.\n\n{found}")

    def rate_headers(self, login: str | None, *, counted: bool = True, resource: str = "core") -> dict[str, str]:
        """``X-RateLimit-*`` for one more request by ``login`` (``counted=False``: a 304, which GitHub does not count).

        See https://docs.github.com/rest/using-the-rest-api/best-practices-for-using-the-rest-api#use-conditional-requests-if-appropriate
        """
        return self.charge(login, 1 if counted else 0, resource=resource).headers()

    def charge(self, login: str | None, points: int, *, resource: str = "core") -> Quota:
        """Count ``points`` against ``login``'s hourly budget for ``resource`` (``core`` or ``graphql``).

        One hourly window per login and resource, like GitHub's primary rate limits for a token: GraphQL's points
        are counted apart from REST's requests. The count starts again each hour and never reaches the limit's
        consequences: the sandbox does not refuse for it.
        """
        key = login or ""
        hour = int(time.time()) // 3600
        with self.store.lock:
            if self.store.rate_hour != hour:
                self.store.rate_hour = hour
                self.store.rate_used.clear()
                self.store.graphql_used.clear()
            bucket = self.store.graphql_used if resource == "graphql" else self.store.rate_used
            used = bucket.get(key, 0) + points
            bucket[key] = used
        return Quota(resource=resource, used=used, reset=(hour + 1) * 3600)

    def _graphql(self, request: Request, answer: GraphQL) -> Response:
        """``POST /graphql``: answered by ``answer``, observed like every REST response."""
        if request.login is not None:
            self.store.user(request.login)
        try:
            response = answer(self, request)
        except Exception as exc:  # as for a REST handler: answer, and keep the bug for the tests
            self.crashes.append(traceback.format_exc())
            response = Response(status=500, body={"message": f"sandbox bug: {exc!r}"})
            response.headers.update(self.rate_headers(request.login, resource="graphql"))
        for observer in list(self.observers):
            observer(request.method, GRAPHQL_PATH, response.status, response.body)
        return response


@dataclass(frozen=True, kw_only=True)
class Quota:
    """One login's hourly budget for one resource after a request: what ``X-RateLimit-*`` says."""

    resource: str
    used: int
    reset: int  # epoch seconds
    limit: int = RATE_LIMIT

    @property
    def remaining(self) -> int:
        """What is left this hour."""
        return max(0, self.limit - self.used)

    def headers(self) -> dict[str, str]:
        """The ``X-RateLimit-*`` headers."""
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Used": str(self.used),
            "X-RateLimit-Reset": str(self.reset),
            "X-RateLimit-Resource": self.resource,
        }


def _conditional(request: Request, response: Response) -> Response:
    """Give a successful ``GET`` its ``ETag``; answer ``304 Not Modified`` when the client already holds it.

    GitHub sends an ``ETag`` on its ``GET`` responses and answers a request whose ``If-None-Match`` carries it with
    an empty 304, which does not count against the primary rate limit (``rate_headers``). The tag is a digest of
    the body and of the whole token text, so it changes exactly when the answer does, and a tag obtained with one
    token never matches a request made with another, even of the same login: on GitHub "it's currently expected
    for ETags to be auth token specific" (GitHub support, quoted in
    https://github.com/eclipse-csi/otterdog/issues/201; also https://github.com/github/docs/issues/34689).
    Each Actions job gets a new ``GITHUB_TOKEN``, so a tag remembered by one run is answered 200 in the next.
    """
    if request.method != "GET" or response.status != 200 or response.raw is not None or response.body is None:
        return response
    answer = json.dumps(response.body, sort_keys=True)
    digest = hashlib.sha256(json.dumps([answer, request.token]).encode()).hexdigest()
    etag = f'W/"{digest[:40]}"'
    response.headers["ETag"] = etag
    sent = request.headers.get("If-None-Match", "")
    if etag in {tag.strip() for tag in sent.split(",")}:
        return Response(status=304, body=None, headers={"ETag": etag})
    return response
