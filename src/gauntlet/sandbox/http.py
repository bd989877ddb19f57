"""The sandbox's small HTTP vocabulary: requests, responses, API errors, routing and pagination."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import unquote, urlencode

if TYPE_CHECKING:
    pass

#: Where GitHub serves its GraphQL API, beside the REST root (``<base>/graphql``, as PyGithub posts to it).
GRAPHQL_PATH = "/graphql"

# Path parameters that may contain slashes (refs, file paths, "base...head").
_SLASHY = {"path", "ref", "basehead", "branch"}
_NUMERIC = {
    "issue_number",
    "pull_number",
    "comment_id",
    "check_run_id",
    "run_id",
    "job_id",
    "artifact_id",
}


class Headers(Mapping[str, str]):
    """Request headers, looked up case-insensitively as HTTP wants (HTTP/2-style clients send lower case)."""

    def __init__(self, pairs: Mapping[str, str] | list[tuple[str, str]]) -> None:
        items = pairs.items() if isinstance(pairs, Mapping) else pairs
        self._values = {name.lower(): value for name, value in items}

    def __getitem__(self, name: str) -> str:
        return self._values[name.lower()]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._values


@dataclass(kw_only=True)
class Request:
    """One request as the handlers see it."""

    method: str
    path: str
    query: dict[str, str]
    headers: Mapping[str, str]
    body: bytes
    base: str  # scheme://host:port, from the request itself
    login: str | None  # who the token authenticates as (``gitbackend.login_of``)
    token: str | None  # the token's whole text: an ETag is bound to it (``app._conditional``)

    def json(self) -> dict[str, Any]:
        """The JSON object body (empty when there is none).

        :raises ApiError: 400 when the body is not a JSON object.
        """
        if not self.body.strip():
            return {}
        try:
            value = json.loads(self.body)
        except ValueError as exc:
            raise ApiError(400, "Problems parsing JSON") from exc
        if not isinstance(value, dict):
            raise ApiError(400, "Problems parsing JSON")
        return value


@dataclass(kw_only=True)
class Response:
    """A response; ``body`` is JSON-able unless ``raw`` is set."""

    status: int = 200
    body: Any = None
    raw: bytes | None = None
    content_type: str = "application/json; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)


class ApiError(Exception):
    """An error GitHub would answer with ``{"message", "documentation_url"[, "errors"]}``."""

    def __init__(
        self, status: int, message: str, *, errors: list[Any] | None = None, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.errors = errors
        self.headers = headers or {}

    def response(self) -> Response:
        """The error as a response."""
        body: dict[str, Any] = {"message": self.message, "documentation_url": "https://docs.github.com/rest"}
        if self.errors is not None:
            body["errors"] = self.errors
        body["status"] = str(self.status)
        return Response(status=self.status, body=body, headers=dict(self.headers))


def not_found() -> ApiError:
    """GitHub's 404."""
    return ApiError(404, "Not Found")


T = TypeVar("T")


def found(item: T | None) -> T:
    """The item a route looked up, or GitHub's 404 when there is none."""
    if item is None:
        raise not_found()
    return item


def validation_failed(message: str = "Validation Failed", /, **error: Any) -> ApiError:
    """GitHub's 422 with one entry in ``errors``."""
    return ApiError(422, message, errors=[error] if error else [])


def required_text(body: Mapping[str, Any], field: str, resource: str) -> str:
    """``body[field]`` as a non-empty string, or GitHub's 422 ``missing_field`` naming ``resource``."""
    value = body.get(field)
    if not isinstance(value, str) or not value:
        raise validation_failed(resource=resource, code="missing_field", field=field)
    return value


def created(view: dict[str, Any]) -> Response:
    """201 with the new resource's JSON, and ``Location`` pointing at its API URL as GitHub does."""
    return Response(status=201, body=view, headers={"Location": view["url"]})


@dataclass(frozen=True)
class Route:
    """One operation: method, the OpenAPI path template and its handler."""

    method: str
    template: str
    pattern: re.Pattern[str]
    handler: Callable[..., Response]
    weight: int  # literal characters in the template: the most specific match wins
    operation: str  # the documented path template whose schema the response follows


def _compile(template: str) -> re.Pattern[str]:
    parts = []
    for piece in re.split(r"(\{[a-z_]+\})", template):
        if piece.startswith("{"):
            name = piece[1:-1]
            body = r".+" if name in _SLASHY else r"\d+" if name in _NUMERIC else r"[^/]+"
            parts.append(f"(?P<{name}>{body})")
        else:
            parts.append(re.escape(piece))
    return re.compile("^" + "".join(parts) + "$")


class Router:
    """A table of routes; modules add to their own router and the app merges them."""

    def __init__(self) -> None:
        self.routes: list[Route] = []

    def add(
        self, method: str, template: str, *, documented_as: str | None = None
    ) -> Callable[[Callable[..., Response]], Callable[..., Response]]:
        """Decorator: register a handler for ``method template``.

        :param documented_as: for an undocumented alias real GitHub serves (and clients call), the documented
            operation whose response it gives.
        """

        def register(handler: Callable[..., Response]) -> Callable[..., Response]:
            weight = len(re.sub(r"\{[a-z_]+\}", "", template))
            route = Route(method, template, _compile(template), handler, weight, documented_as or template)
            self.routes.append(route)
            return handler

        return register

    def extend(self, other: Router) -> None:
        """Take over another router's routes."""
        self.routes.extend(other.routes)

    def match(self, method: str, path: str) -> tuple[Route, dict[str, str]] | None:
        """The most specific route for ``method path`` with its decoded parameters."""
        best: tuple[Route, dict[str, str]] | None = None
        for route in self.routes:
            if route.method != method:
                continue
            found = route.pattern.match(path)
            if found and (best is None or route.weight > best[0].weight):
                params = {k: unquote(v) for k, v in found.groupdict().items()}
                # No name on GitHub holds a NUL, and none may reach a git command line.
                if not any("\x00" in v for v in params.values()):
                    best = (route, params)
        return best


def page_params(request: Request) -> tuple[int, int]:
    """``(page, per_page)`` from the query, with GitHub's defaults (1, 30) and cap (100)."""
    try:
        page = max(1, int(request.query.get("page", "1")))
        per_page = min(100, max(1, int(request.query.get("per_page", "30"))))
    except ValueError as exc:
        raise validation_failed("Invalid page parameter") from exc
    return page, per_page


def paginate(request: Request, items: list[Any]) -> tuple[list[Any], dict[str, str]]:
    """Slice ``items`` for the requested page and build the ``Link`` header GitHub would send."""
    page, per_page = page_params(request)
    last = max(1, -(-len(items) // per_page))
    chunk = items[(page - 1) * per_page : page * per_page]

    def url(number: int) -> str:
        query = {**request.query, "page": str(number), "per_page": str(per_page)}
        return f"{request.base}{request.path}?{urlencode(query)}"

    links = []
    if page < last:
        links += [f'<{url(page + 1)}>; rel="next"', f'<{url(last)}>; rel="last"']
    if page > 1:
        links += [f'<{url(1)}>; rel="first"', f'<{url(page - 1)}>; rel="prev"']
    return chunk, ({"Link": ", ".join(links)} if links else {})
