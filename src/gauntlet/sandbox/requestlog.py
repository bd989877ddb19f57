"""The request log behind ``GET /_sandbox/requests``: what a run cost, call by call."""

from __future__ import annotations

import threading
from typing import Any


class RequestLog:
    """A thread-safe list of ``{method, path, status}`` (status 0: the connection was dropped on purpose)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: list[dict[str, Any]] = []

    def add(self, method: str, path: str, status: int, query: str = "") -> None:
        """Record one served request."""
        with self._lock:
            self._entries.append({"method": method, "path": path, "status": status, "query": query})

    def entries(self) -> list[dict[str, Any]]:
        """A copy of the log, oldest first."""
        with self._lock:
            return [dict(e) for e in self._entries]

    def clear(self) -> None:
        """Forget everything logged so far."""
        with self._lock:
            self._entries.clear()
