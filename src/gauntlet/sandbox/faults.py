"""Injected latency and faults, drawn from a seeded generator so a failing test can be replayed.

Faults model what a GitHub client must survive: 500/502/503, the 403 secondary rate limit with ``Retry-After``,
429, and a connection dropped without an answer. They apply to API calls (REST and ``POST /graphql``; ``paths``
narrows them, e.g. to ``/graphql``), never to ``/_sandbox/``.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field

from gauntlet.sandbox.http import Response

KINDS = ("500", "502", "503", "403", "429", "drop")
DROP = "drop"
SECONDARY_LIMIT = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."


@dataclass(kw_only=True)
class FaultSettings:
    """What to inject: ``rate`` is the chance per request, ``kinds`` the faults drawn from."""

    rate: float = 0.0
    seed: int = 0
    latency_ms: int = 0
    kinds: tuple[str, ...] = KINDS
    retry_after: int = 1
    paths: tuple[str, ...] = field(default_factory=tuple)  # only paths starting with one of these (empty: all)


class Faults:
    """Thread-safe fault drawing."""

    def __init__(self, settings: FaultSettings | None = None) -> None:
        self._lock = threading.Lock()
        self.settings = settings or FaultSettings()
        self._rng = random.Random(self.settings.seed)

    def configure(self, settings: FaultSettings) -> None:
        """Replace the settings and reseed."""
        unknown = set(settings.kinds) - set(KINDS)
        if unknown or not 0.0 <= settings.rate <= 1.0:
            raise ValueError(f"bad fault settings: rate {settings.rate}, unknown kinds {sorted(unknown)}")
        with self._lock:
            self.settings = settings
            self._rng = random.Random(settings.seed)

    @property
    def latency_seconds(self) -> float:
        """The latency to add to every REST call."""
        return self.settings.latency_ms / 1000.0

    def draw(self, path: str) -> str | None:
        """A fault kind for this request, or ``None``."""
        with self._lock:
            settings = self.settings
            if settings.rate <= 0 or not settings.kinds:
                return None
            if settings.paths and not any(path.startswith(p) for p in settings.paths):
                return None
            if self._rng.random() >= settings.rate:
                return None
            return self._rng.choice(settings.kinds)

    def response(self, kind: str) -> Response:
        """The answer GitHub gives for a fault kind (not for ``drop``, which has none)."""
        retry = str(self.settings.retry_after)
        if kind == "403":
            body = {
                "message": SECONDARY_LIMIT,
                "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
            }
            return Response(status=403, body=body, headers={"Retry-After": retry})
        if kind == "429":
            body = {"message": "API rate limit exceeded", "documentation_url": "https://docs.github.com/rest"}
            return Response(status=429, body=body, headers={"Retry-After": retry})
        messages = {"500": "Server Error", "502": "Bad Gateway", "503": "Service Unavailable"}
        return Response(status=int(kind), body={"message": messages.get(kind, "Server Error")})
