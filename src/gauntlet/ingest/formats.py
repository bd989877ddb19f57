"""Input formats: detection from content and the reader for each.

A reader takes an open binary stream, the name to report in errors and the
limits, and yields findings. Detection looks only at the first bytes, so it is
cheap on a 1 GB log.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import BinaryIO, Literal, get_args

from gauntlet.ingest.limits import Limits
from gauntlet.models import Finding

__all__ = ["FORMATS", "Format", "Reader", "detect_format", "reader_for"]

Format = Literal["auto", "log", "sarif", "junit", "review", "rdjson", "checkstyle", "comment"]
FORMATS: tuple[Format, ...] = get_args(Format)

Reader = Callable[[BinaryIO, str, Limits], Iterator[Finding]]

_HEAD_BYTES = 64 * 1024


def detect_format(head: bytes) -> Format:
    """Guess the format of a file from its first bytes; anything unrecognised is a log."""
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"<"):
        if re.search(rb"<(?:testsuites|testsuite)\b", text[:_HEAD_BYTES]):
            return "junit"
        if re.search(rb"<checkstyle\b", text[:_HEAD_BYTES]):
            return "checkstyle"
        return "log"
    if text.startswith((b"{", b"[")):
        sample = text[:_HEAD_BYTES]
        if b'"runs"' in sample and (b"sarif" in sample.lower() or b'"tool"' in sample):
            return "sarif"
        if b'"diagnostics"' in sample or _looks_like_rdjsonl(sample):
            return "rdjson"
        return "review"
    return "log"


def _looks_like_rdjsonl(sample: bytes) -> bool:
    first = sample.split(b"\n", 1)[0]
    try:
        value = json.loads(first)
    except ValueError:
        return False
    return isinstance(value, dict) and "location" in value and "message" in value and "severity" in value


def reader_for(fmt: Format) -> Reader:
    """Return the reader for a concrete format (imported lazily: each pulls its own parsers)."""
    if fmt == "log":
        from gauntlet.ingest.log import read_log

        return read_log
    if fmt == "review":
        from gauntlet.ingest.review import read_review

        return read_review
    raise NotImplementedError(f"format {fmt!r} is not supported yet")
