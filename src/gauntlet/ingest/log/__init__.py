"""CI log scanning: one finding per real failure in a job log.

``read_log`` adapts a binary stream to :func:`scan`, which takes lines and yields
findings; parsers per tool recognise their own output.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import BinaryIO

from gauntlet.classify.defaults import default_severity
from gauntlet.ingest.fingerprint import make_fingerprint, normalise_message
from gauntlet.ingest.limits import Limits
from gauntlet.ingest.redact import redact
from gauntlet.models import Finding

__all__ = ["read_log", "scan"]

_PYTEST_SUMMARY = re.compile(r"^(FAILED|ERROR) (?P<test>\S+?)(?: - (?P<message>.*))?$")


def read_log(stream: BinaryIO, name: str, limits: Limits) -> Iterator[Finding]:
    """Yield the findings of a log file read from ``stream``."""
    del name  # logs are never malformed: any bytes are a log
    yield from scan(stream, limits)


def scan(lines: Iterable[bytes], limits: Limits) -> Iterator[Finding]:
    """Yield one finding per failure found in ``lines`` (raw bytes, newline-terminated or not)."""
    seen: set[str] = set()
    for number, raw in enumerate(lines, start=1):
        line = raw[: limits.max_line_bytes].decode("utf-8", "replace").rstrip("\r\n")
        match = _PYTEST_SUMMARY.match(line)
        if not match:
            continue
        test_id = match.group("test")
        message = redact(match.group("message") or f"{match.group(1).lower()} in {test_id}")
        fingerprint = make_fingerprint("pytest", "test_failure", test_id, normalise_message(message))
        if fingerprint in seen:
            continue
        seen.add(fingerprint)
        yield Finding(
            fingerprint=fingerprint,
            source="log",
            tool="pytest",
            kind="test_failure",
            severity=default_severity("test_failure"),
            path=test_id.split("::", 1)[0],
            test_id=test_id,
            message=message[: limits.max_message_chars],
            excerpt=redact(line)[: limits.max_excerpt_chars],
            log_lines=(number, number),
        )
        if len(seen) >= limits.max_findings:
            return
