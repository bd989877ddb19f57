"""Input formats: detection from content and the reader for each.

A reader takes an open binary stream, the name to report in errors and the
limits, and yields findings. Detection looks only at the first bytes, so it is
cheap on a 1 GB log. Readers of formats that carry file paths also accept a
keyword-only ``root`` (the repository's absolute path) to make absolute paths
repository-relative.
"""

from __future__ import annotations

import functools
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
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def detect_format(head: bytes) -> Format:
    """Guess the format of a file from its first bytes; anything unrecognised is a log."""
    if head.startswith(_UTF16_BOMS):
        head = head[:_HEAD_BYTES].decode("utf-16", "replace").encode("utf-8")
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:_HEAD_BYTES]
    if text.startswith(b"<"):
        return _detect_xml(text)
    if text.startswith((b"{", b"[")):
        return _detect_json(text)
    return "log"


def _detect_xml(text: bytes) -> Format:
    # The first element that is not the prolog, a comment or a doctype decides.
    root = re.search(rb"<(?![?!])([A-Za-z_][\w.:-]*)", text)
    name = root.group(1).split(b":")[-1] if root else b""
    if name in (b"testsuites", b"testsuite"):
        return "junit"
    if name == b"checkstyle":
        return "checkstyle"
    return "log"


def _detect_json(text: bytes) -> Format:
    if re.search(rb'"runs"\s*:', text) and (b"sarif" in text.lower() or re.search(rb'"(?:tool|results)"\s*:', text)):
        return "sarif"
    if re.search(rb'"diagnostics"\s*:', text) or _looks_like_rdjsonl(text):
        return "rdjson"
    if (
        re.search(rb'"body"\s*:', text)
        and re.search(rb'"(?:user|html_url|pull_request_review_id|author_association)"\s*:', text)
        and not re.search(rb'"description"\s*:', text)
    ):
        return "comment"
    return "review"


def _looks_like_rdjsonl(sample: bytes) -> bool:
    first = sample.split(b"\n", 1)[0]
    try:
        value = json.loads(first)
    except (ValueError, RecursionError):
        return False
    return isinstance(value, dict) and "location" in value and "message" in value


def reader_for(fmt: Format, *, root: str | None = None) -> Reader:
    """Return the reader for a concrete format (imported lazily: each pulls its own parsers).

    :param fmt: a format other than ``auto`` (detect it first).
    :param root: the repository's absolute path (``GITHUB_WORKSPACE``, or the working
        directory locally); readers of path-carrying formats make absolute paths under it relative.
    """
    reader = _reader(fmt)
    if root is not None and fmt in ("sarif", "junit", "rdjson", "checkstyle"):
        return functools.partial(reader, root=root)
    return reader


def _reader(fmt: Format) -> Callable[..., Iterator[Finding]]:
    if fmt == "log":
        from gauntlet.ingest.log import read_log

        return read_log
    if fmt == "review":
        from gauntlet.ingest.review import read_review

        return read_review
    if fmt == "sarif":
        from gauntlet.ingest.sarif import read_sarif

        return read_sarif
    if fmt == "junit":
        from gauntlet.ingest.junit import read_junit

        return read_junit
    if fmt == "rdjson":
        from gauntlet.ingest.rdjson import read_rdjson

        return read_rdjson
    if fmt == "checkstyle":
        from gauntlet.ingest.checkstyle import read_checkstyle

        return read_checkstyle
    if fmt == "comment":
        from gauntlet.ingest.comment import read_comments

        return read_comments
    raise ValueError(f"format {fmt!r} has no reader: detect it first")
