"""Shared helpers for the log scanner tests: scanning bytes, GitHub framing, uneven reads."""

from __future__ import annotations

import io
from collections.abc import Sequence

from gauntlet.ingest.limits import DEFAULT_LIMITS, Limits
from gauntlet.ingest.log import scan
from gauntlet.models import Finding


def findings(data: bytes, limits: Limits = DEFAULT_LIMITS) -> list[Finding]:
    """Scan a log held in memory."""
    return list(scan(io.BytesIO(data), limits))


def github(lines: Sequence[str], status: int = 1, command: str = "make") -> bytes:
    """Frame tool output as GitHub's job-logs API serves it (timestamps, groups, the exit line)."""
    body = ["##[group]Run " + command, command, "##[endgroup]", *lines]
    if status:
        body.append(f"##[error]Process completed with exit code {status}.")
    return "".join(f"2026-11-29T12:00:{i % 60:02d}.{i:07d}Z {line}\n" for i, line in enumerate(body)).encode()


class ChunkyReader(io.RawIOBase):
    """A binary stream that returns reads of the given sizes in turn (cycling), like a slow pipe."""

    def __init__(self, data: bytes, sizes: Sequence[int]) -> None:
        self._data = data
        self._sizes = [max(1, size) for size in sizes] or [1]
        self._position = 0
        self._turn = 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        del size
        step = self._sizes[self._turn % len(self._sizes)]
        self._turn += 1
        piece = self._data[self._position : self._position + step]
        self._position += len(piece)
        return piece
