"""The one PyGithub client, and the only place PyGithub and ``requests`` errors are translated (DESIGN §5).

Retries happen below PyGithub, in urllib3, through :class:`GauntletRetry`:

- 5xx, 429 and rate limits (403 with a rate-limit message) are retried with
  backoff, honouring ``Retry-After`` first and then ``x-ratelimit-reset``;
- a POST that creates something (a comment, a check run) is never replayed
  blindly after an ambiguous failure (5xx, dropped connection): the server may
  have acted. The caller looks again and creates only if nothing is there
  (:meth:`GitHubClient.create_once`). POSTs that are safe to replay (Git Data
  objects are content-addressed; reactions and reruns are idempotent) are retried;
- every HTTP attempt is counted, retries included, for the report's ``api_calls``;
- a ``GET`` may be **conditional** (:meth:`GitHubClient.read`): it carries the ``ETag`` a
  :class:`ReadCache` remembers from an earlier run, and a ``304 Not Modified`` reuses the remembered
  answer. GitHub does not count a 304 against the primary rate limit, so the client counts them apart
  (:attr:`GitHubClient.not_modified`). See
  https://docs.github.com/rest/using-the-rest-api/best-practices-for-using-the-rest-api#use-conditional-requests-if-appropriate

Errors leave this module as :mod:`gauntlet.errors` types::

    GitHubUnavailable (exit 3)   still failing after retries
    ReadOnlyToken                403 "Resource not accessible by integration" (fork PRs)
    PullRequestsNotPermitted     403 "GitHub Actions is not permitted to create or approve pull requests" (exit 2)
    NotFound                     404
    Rejected                     422 (validation failed, not a fast-forward, already exists)
    Conflict                     409 (a file's blob moved, or the branch moved under a contents write)
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar
from urllib.parse import quote

import requests
import requests.adapters
from github import Auth, Github, GithubException, GithubRetry
from urllib3.exceptions import MaxRetryError, ResponseError
from urllib3.util.retry import Retry

from gauntlet.errors import ConfigError, GauntletError, GitHubUnavailable
from gauntlet.state.pr import CachedRead

if TYPE_CHECKING:
    from github.Repository import Repository
    from urllib3.connectionpool import ConnectionPool
    from urllib3.response import BaseHTTPResponse, HTTPResponse

__all__ = [
    "DEFAULT_API_URL",
    "LOW_QUOTA",
    "CallCounter",
    "Conflict",
    "GauntletRetry",
    "GitHubClient",
    "NotFound",
    "PullRequestsNotPermitted",
    "QueryFailed",
    "ReadCache",
    "ReadOnlyToken",
    "Rejected",
]

log = logging.getLogger("gauntlet.github")

T = TypeVar("T")

DEFAULT_API_URL = "https://api.github.com"

#: The message GitHub sends when an installation token lacks a permission (fork PRs, read-only tokens).
FORBIDDEN_MESSAGE = "Resource not accessible by integration"

#: GitHub's refusal when the repository setting "Allow GitHub Actions to create and approve pull requests" is off.
#: See https://docs.github.com/repositories/managing-your-repositorys-settings-and-features/enabling-features-for-your-repository/managing-github-actions-settings-for-a-repository
NOT_PERMITTED_MESSAGE = "GitHub Actions is not permitted to create or approve pull requests"

#: Below this many requests left in the hour, a run does what matters and skips what can wait (the check's
#: annotations past the first 50): a busy repository's other runs still get theirs (docs/scale.md).
LOW_QUOTA = 100

#: POSTs that may be replayed after an ambiguous failure: same request, same result.
#: Creating a ref twice is refused with 422, which the state store already treats as a conflict.
#: A GraphQL query (Gauntlet sends no mutation) reads only.
_REPLAYABLE_POST = re.compile(r"/git/(blobs|trees|commits|refs)$|/reactions$|/rerun-failed-jobs$|/rerun$|/graphql$")

#: Every method Gauntlet uses may be retried: PATCH and PUT set a value (idempotent), and POSTs are
#: filtered by :data:`_REPLAYABLE_POST` after an ambiguous failure.
_RETRIED_METHODS = frozenset({"GET", "HEAD", "POST", "PATCH", "PUT", "DELETE"})


class ReadOnlyToken(GauntletError):
    """The token may read but not write here; the run degrades to summary and annotations."""

    exit_code: ClassVar[int] = 0


class PullRequestsNotPermitted(ConfigError):
    """The repository does not let GitHub Actions open pull requests: a setting to change, not an outage."""


class NotFound(GauntletError):
    """GitHub answered 404."""

    exit_code: ClassVar[int] = 3


class Conflict(GauntletError):
    """GitHub answered 409: what the request was based on moved (a file's blob sha, a branch under a write)."""

    exit_code: ClassVar[int] = 3


class QueryFailed(GauntletError):
    """A GraphQL answer carried errors (a field this GitHub lacks, an object not found, a limit)."""

    exit_code: ClassVar[int] = 3


class Rejected(GauntletError):
    """GitHub answered 422: validation failed, a ref update was not a fast-forward, or the thing exists."""

    exit_code: ClassVar[int] = 3


#: A remembered answer larger than this is not kept (it would travel in the state file of every run).
MAX_CACHED_BYTES = 32 * 1024
#: All remembered answers of one run together, at most.
MAX_CACHE_BYTES = 96 * 1024


@dataclass
class ReadCache:
    """Answers remembered between runs, by request (path and query), for conditional ``GET`` requests.

    ``used`` is what this run read (remembered or fresh): what the next run should remember first; what
    it did not read this time is kept after it, so a read only some runs make (the ``CODEOWNERS`` of a PR
    that files an issue) stays remembered across the runs between. Answers over :data:`MAX_CACHED_BYTES`
    are not kept, and the whole stays under :data:`MAX_CACHE_BYTES`.
    """

    entries: dict[str, CachedRead] = field(default_factory=dict)
    used: dict[str, CachedRead] = field(default_factory=dict)

    def recall(self, key: str, version: str) -> Any:
        """The answer remembered under ``key`` if it is of ``version`` (then kept for the next run), else ``None``."""
        known = self.entries.get(key)
        if known is None or known.etag != version:
            return None
        self.used[key] = known
        return known.body

    def remember(self, key: str, version: str, body: Any) -> None:
        """Keep ``body`` as ``key``'s answer at ``version`` (a blob sha, say) for the next run's :meth:`recall`."""
        self.used[key] = CachedRead(etag=version, body=body)

    def keep(self) -> dict[str, CachedRead]:
        """What this run read, then what it remembered and did not read, bounded in size, for ``If-None-Match``."""
        kept: dict[str, CachedRead] = {}
        total = 0
        older = sorted(((k, r) for k, r in self.entries.items() if k not in self.used), key=lambda item: item[0])
        for key, read in [*sorted(self.used.items()), *older]:
            size = len(json.dumps(read.body)) + len(key)
            if size > MAX_CACHED_BYTES or total + size > MAX_CACHE_BYTES:
                continue
            kept[key] = read
            total += size
        return kept


def cache_key(path: str, params: dict[str, Any] | None) -> str:
    """The request a cached answer belongs to: the path and its sorted query, percent-encoded.

    Encoded because the state is redacted as it is written: a plain path such as
    ``/repos/o/calculator/collaborators/maya/permission`` is one run of 48 Base64 characters, which redaction
    takes for key material, and the answer would be remembered under ``[REDACTED]``, never to be found again.
    """
    query = "&".join(f"{k}={v}" for k, v in sorted((params or {}).items()))
    return quote(f"{path}?{query}" if query else path, safe="")


class CallCounter:
    """Counts HTTP attempts (retries included); shared by every copy of a :class:`GauntletRetry`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.value = 0

    def add(self) -> None:
        """Count one attempt."""
        with self._lock:
            self.value += 1


class GauntletRetry(GithubRetry):
    """PyGithub's retry with call counting, scaled waits and no blind replay of creating POSTs.

    :param counter: where attempts are counted.
    :param wait_scale: multiplies every wait; 1 in production, near 0 in tests ("throttling off").
    """

    def __init__(self, *, counter: CallCounter, wait_scale: float = 1.0, **kwargs: Any) -> None:
        self.counter = counter
        self.wait_scale = wait_scale
        super().__init__(**kwargs)

    def new(self, **kw: Any) -> GauntletRetry:
        """A copy for the next attempt, sharing the counter."""
        kw.update(counter=self.counter, wait_scale=self.wait_scale)
        return super().new(**kw)

    def is_retry(self, method: str, status_code: int, has_retry_after: bool = False) -> bool:
        """urllib3 asks this once for every response: count it here."""
        self.counter.add()
        return bool(super().is_retry(method, status_code, has_retry_after))

    def increment(  # type: ignore[override]  # PyGithub narrows the response type
        self,
        method: str | None = None,
        url: str | None = None,
        response: HTTPResponse | None = None,
        error: Exception | None = None,
        _pool: ConnectionPool | None = None,
        _stacktrace: Any = None,
    ) -> GauntletRetry:
        """Refuse to replay a creating POST after an ambiguous failure; otherwise retry as PyGithub does."""
        if error is not None and response is None:
            self.counter.add()  # a dropped connection never reaches is_retry
        if method == "POST" and not _REPLAYABLE_POST.search(url or "") and _ambiguous(response, error):
            if error is not None:
                raise error
            raise MaxRetryError(_pool, url, ResponseError("not replaying a POST"))  # type: ignore[arg-type]
        retry = super().increment(method, url, response, error, _pool, _stacktrace)
        assert isinstance(retry, GauntletRetry)
        return retry

    def get_retry_after(self, response: BaseHTTPResponse) -> float | None:
        """``Retry-After``, else the time until ``x-ratelimit-reset`` when the quota is spent; scaled."""
        seconds = super().get_retry_after(response)
        if seconds is None and response.headers.get("x-ratelimit-remaining") == "0":
            reset = response.headers.get("x-ratelimit-reset", "")
            if reset.isdigit():
                seconds = max(0.0, int(reset) - time.time()) + 1
        return None if seconds is None else seconds * self.wait_scale

    def get_backoff_time(self) -> float:
        """The exponential backoff, scaled."""
        return float(super().get_backoff_time()) * self.wait_scale


def _download_retry() -> Retry:
    return Retry(total=3, backoff_factor=0.5, status_forcelist=[*range(500, 600), 429], allowed_methods={"GET"})


def _ambiguous(response: HTTPResponse | None, error: Exception | None) -> bool:
    """True when the server may have acted: a 5xx, or the connection broke after the request was sent."""
    if response is not None:
        return response.status >= 500
    from urllib3.exceptions import ConnectTimeoutError, NewConnectionError

    return not isinstance(error, ConnectTimeoutError | NewConnectionError)


class GitHubClient:
    """The PyGithub client every GitHub-side module uses.

    :param token: the token (``github_token`` input).
    :param api_url: ``GITHUB_API_URL`` (GitHub Enterprise Server and the sandbox are honoured).
    :param throttle: space writes one second apart and wait as GitHub asks; off in tests.
    :param retries: attempts per request after the first.
    """

    def __init__(self, token: str, api_url: str = DEFAULT_API_URL, *, throttle: bool = True, retries: int = 5) -> None:
        self.counter = CallCounter()
        #: Answered ``304 Not Modified``: sent, but not counted against the rate limit.
        self.not_modified = CallCounter()
        #: Answers remembered from the last run (the PR record carries them), for :meth:`read`.
        self.cache = ReadCache()
        #: The GraphQL points left this hour, as the last GraphQL answer said (``None``: none sent).
        self.graphql_left: int | None = None
        retry = GauntletRetry(
            counter=self.counter,
            wait_scale=1.0 if throttle else 0.001,
            total=retries,
            backoff_factor=0.5,
            backoff_max=30,
            status_forcelist=[*range(500, 600), 429],
            allowed_methods=_RETRIED_METHODS,
            raise_on_status=False,
            respect_retry_after_header=True,
            secondary_rate_wait=60.0,
            max_rate_limit_wait=300.0,
        )
        self.github = Github(
            base_url=api_url.rstrip("/"),
            auth=Auth.Token(token),
            per_page=100,
            retry=retry,
            timeout=30,
            seconds_between_requests=None,
            seconds_between_writes=1.0 if throttle else None,
            lazy=True,
        )

    @property
    def calls(self) -> int:
        """HTTP attempts made so far, retries included."""
        return self.counter.value

    @property
    def counted(self) -> int:
        """HTTP attempts that count against the primary rate limit: all but the 304s."""
        return self.counter.value - self.not_modified.value

    def repo(self, full_name: str) -> Repository:
        """The repository ``owner/name`` as a lazy object (no call until it is used)."""
        return self.github.get_repo(full_name)

    def request(
        self, verb: str, path: str, *, params: dict[str, Any] | None = None, body: dict[str, Any] | None = None
    ) -> Any:
        """One REST call on ``path`` (relative to the API URL); returns the decoded JSON.

        :raises GitHubUnavailable, ReadOnlyToken, NotFound, Rejected: translated failures.
        """
        with self.translated(f"{verb} {path}"):
            _, data = self.github.requester.requestJsonAndCheck(verb, path, parameters=params, input=body)
        return data

    def send(self, verb: str, path: str, *, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        """One REST call whose success status matters (201 created, 200 already there); returns it and the JSON.

        :raises GitHubUnavailable, ReadOnlyToken, NotFound, Rejected: translated failures.
        """
        requester = self.github.requester
        with self.translated(f"{verb} {path}"):
            status, headers, output = requester.requestJson(verb, path, input=body)
            if status >= 400:
                raise requester.createException(status, headers, _decoded(output))
        return status, _decoded(output)

    def read(
        self, path: str, *, params: dict[str, Any] | None = None, keep: Callable[[Any], Any] | None = None
    ) -> tuple[dict[str, Any], Any]:
        """A conditional ``GET``: with the remembered ``ETag``, a 304 answers with the remembered JSON for free.

        Only for answers that rarely change between runs and are small (:data:`MAX_CACHED_BYTES`): each is
        remembered in the state for the next run (:class:`ReadCache`).

        :param keep: what of a fresh answer to remember and return (``None``: nothing is remembered); the
            remembered form is what a 304 returns, so the caller sees one shape.
        :returns: the response headers and the decoded (or kept) JSON.
        :raises GitHubUnavailable, ReadOnlyToken, NotFound, Rejected: translated failures.
        """
        key = cache_key(path, params)
        known = self.cache.entries.get(key)
        sent = {"If-None-Match": known.etag} if known is not None else None
        requester = self.github.requester
        with self.translated(f"GET {path}"):
            status, headers, output = requester.requestJson("GET", path, parameters=params, headers=sent)
            if status >= 400:
                raise requester.createException(status, headers, _decoded(output))
        if status == 304 and known is not None:
            self.not_modified.add()
            self.cache.used[key] = known
            return headers, known.body
        data = _decoded(output)
        if keep is not None:
            data = keep(data)
        etag = headers.get("etag")
        if etag and data is not None:
            self.cache.used[key] = CachedRead(etag=str(etag), body=data)
        return headers, data

    def pages(self, path: str, *, max_pages: int = 10, conditional: bool = False) -> list[Any]:
        """Every item of a list endpoint, 100 a page, following ``Link: rel="next"`` (one call a page).

        :param max_pages: stop after this many calls, whatever is left (a bound on a hostile or huge list).
        :param conditional: send each page as a conditional request (:meth:`read`).
        :raises GitHubUnavailable, ReadOnlyToken, NotFound, Rejected: translated failures.
        """
        items: list[Any] = []
        for page in range(1, max_pages + 1):
            params = {"per_page": 100, "page": page}
            if conditional:
                headers, data = self.read(path, params=params)
                items.extend(data if isinstance(data, list) else [])
                if 'rel="next"' not in (headers.get("link") or ""):
                    break
                continue
            with self.translated(f"GET {path}"):
                headers, data = self.github.requester.requestJsonAndCheck("GET", path, parameters=params)
            items.extend(data if isinstance(data, list) else [])
            if 'rel="next"' not in (headers.get("link") or ""):
                break
        return items

    def graphql(self, query: str, variables: dict[str, Any]) -> Any:
        """One GraphQL query (``POST /graphql``); returns its ``data``.

        GraphQL has a rate limit of its own (points, not requests): what its answer says is left of it is kept
        apart (:attr:`graphql_left`), and the REST quota the client reports stays the REST one.

        :raises QueryFailed: the answer carried errors (none of its data is used then).
        :raises GitHubUnavailable, ReadOnlyToken, NotFound: translated failures.
        """
        requester = self.github.requester
        rest = requester.rate_limiting, requester.rate_limiting_resettime
        try:
            with self.translated("POST /graphql"):
                headers, data = requester.requestJsonAndCheck(
                    "POST", requester.graphql_url, input={"query": query, "variables": variables}
                )
        finally:
            requester.rate_limiting, requester.rate_limiting_resettime = rest
        left = str(headers.get("x-ratelimit-remaining", ""))
        self.graphql_left = int(left) if left.isdigit() else self.graphql_left
        if not isinstance(data, dict) or data.get("errors") or not isinstance(data.get("data"), dict):
            errors = data.get("errors") if isinstance(data, dict) else None
            first = errors[0] if isinstance(errors, list) and errors and isinstance(errors[0], dict) else {}
            raise QueryFailed(f"POST /graphql: {str(first.get('message') or 'no data in the answer')[:200]}")
        return data["data"]

    def location(self, path: str) -> str:
        """Where a download endpoint (job logs, artifact archives) redirects: its 302 ``Location``.

        :raises GitHubUnavailable, ReadOnlyToken, NotFound: translated failures, or no redirect.
        """
        with self.translated(f"GET {path}"):
            headers, _ = self.github.requester.requestJsonAndCheck("GET", path)
        location = headers.get("location")
        if not location:
            raise GitHubUnavailable(f"GET {path}: GitHub sent no download location")
        return str(location)

    def download(self, url: str, limit: int) -> tuple[bytes, bool]:
        """Fetch a short-lived download URL, keeping at most the last ``limit`` bytes.

        The URL points at another host and carries its own signature: the token is
        never sent there. Returns the bytes and whether the start was cut off.

        :raises GitHubUnavailable: the download failed after retries.
        """
        kept = bytearray()
        cut = False
        with requests.Session() as session:
            session.mount("http://", requests.adapters.HTTPAdapter(max_retries=_download_retry()))
            session.mount("https://", requests.adapters.HTTPAdapter(max_retries=_download_retry()))
            self.counter.add()
            try:
                with session.get(url, stream=True, timeout=30) as response:
                    response.raise_for_status()
                    for chunk in response.iter_content(chunk_size=64 * 1024):
                        kept += chunk
                        if len(kept) > limit:
                            del kept[: len(kept) - limit]
                            cut = True
            except requests.RequestException as exc:
                raise GitHubUnavailable(f"download failed: {exc.__class__.__name__}") from exc
        return bytes(kept), cut

    def remaining(self) -> int | None:
        """The primary rate-limit quota left, as the last response reported it (``None`` before any response)."""
        remaining, limit = self.github.requester.rate_limiting
        return remaining if limit > 0 and remaining >= 0 else None

    def low_on_quota(self) -> bool:
        """True when fewer than :data:`LOW_QUOTA` requests are left this hour: skip what can wait."""
        left = self.remaining()
        return left is not None and left < LOW_QUOTA

    def quota(self) -> str:
        """The remaining primary rate-limit quota as the last response reported it (no extra call), logged too."""
        remaining, limit = self.github.requester.rate_limiting
        if limit <= 0:
            return f"{self.calls} API calls"
        free = self.not_modified.value
        log.info("GitHub API quota: %d of %d requests left; %d calls this run", remaining, limit, self.calls)
        spent = f"{self.calls} API calls" + (f" ({free} answered 304, not counted)" if free else "")
        points = f"; {self.graphql_left} GraphQL points left" if self.graphql_left is not None else ""
        return f"{spent}, {remaining} of {limit} left this hour{points}"

    @contextmanager
    def translated(self, what: str) -> Iterator[None]:
        """Translate PyGithub and ``requests`` failures inside the block into Gauntlet errors."""
        try:
            yield
        except GithubException as exc:
            raise _translate(exc, what) from exc
        except requests.RequestException as exc:
            raise GitHubUnavailable(f"{what}: GitHub unreachable after retries: {exc.__class__.__name__}") from exc

    def call(self, what: str, fn: Callable[[], T]) -> T:
        """Run ``fn`` (PyGithub calls) with failures translated."""
        with self.translated(what):
            return fn()

    def create_once(self, what: str, create: Callable[[], T], find: Callable[[], T | None]) -> T:
        """Create something that must exist once: after an ambiguous failure, look before trying again.

        :param create: the creating call (a POST that is never replayed blindly).
        :param find: looks the thing up; ``None`` when it does not exist.
        :raises GitHubUnavailable: still failing after a second look and a second try.
        """
        try:
            return self.call(what, create)
        except GitHubUnavailable:
            log.info("%s failed ambiguously; looking before creating again", what)
            found = find()
            if found is not None:
                return found
            return self.call(what, create)


def _decoded(output: str) -> Any:
    """A response body as JSON; one that is not JSON (a proxy's error page) as GitHub's ``message``."""
    if not output:
        return None
    try:
        return json.loads(output)
    except ValueError:
        return {"message": output[:200]}


def _translate(exc: GithubException, what: str) -> GauntletError:
    message = exc.data.get("message", "") if isinstance(exc.data, dict) else str(exc.data)
    if exc.status == 403 and FORBIDDEN_MESSAGE.lower() in str(message).lower():
        return ReadOnlyToken(f"{what}: the token cannot write here ({FORBIDDEN_MESSAGE})")
    if exc.status == 403 and NOT_PERMITTED_MESSAGE.lower() in str(message).lower():
        return PullRequestsNotPermitted(
            f'{what}: {NOT_PERMITTED_MESSAGE}. Turn on Settings → Actions → General → "Allow GitHub Actions to '
            'create and approve pull requests", or pass a GitHub App token as github_token; a rerun reuses the branch'
        )
    if exc.status == 404:
        return NotFound(f"{what}: not found")
    if exc.status == 422:
        return Rejected(f"{what}: rejected: {message}")
    if exc.status == 409:
        return Conflict(f"{what}: conflict: {message}")
    return GitHubUnavailable(f"{what}: GitHub answered {exc.status} after retries: {message}")
