"""Input formats: detection from content and the reader for each.

A reader takes an open binary stream, the name to report in errors and the
limits, and yields findings. Detection looks only at the first bytes, so it is
cheap on a 1 GB log, and says what it saw (``found``) so that a forced format
that does not match, or a document of no known format, gets a message naming
it. Readers of formats that carry file paths also accept a keyword-only
``root`` (the repository's absolute path) to make absolute paths
repository-relative.

Detection rules, first match wins (docs/formats-and-configuration.md has the table):

- XML by its root element: ``testsuites``/``testsuite`` JUnit, ``test-run`` NUnit 3,
  ``test-results`` NUnit 2, ``assemblies``/``assembly`` xUnit.net v2, ``TestRun`` TRX,
  ``checkstyle``.
- JSON by its keys: ``runs`` SARIF; ``results.tool`` + ``results.tests`` CTRF;
  ``numFailedTests``/``testResults`` jest; ``stats`` + ``passes`` mocha;
  ``diagnostics`` rdjson; GitHub comment objects; review findings.
- JSON lines by their first object: ``Action`` + ``Package`` ``go test -json``;
  ``protocolVersion`` or ``type`` + ``time`` Dart/Flutter JSON reporter; a whole
  diagnostic rdjsonl.
- Text: ``TAP version 13|14``, a leading plan ``1..N`` or ``ok``/``not ok`` test point
  (after any ``#`` comment lines) is TAP; anything else is a log.
"""

from __future__ import annotations

import functools
import importlib
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO, Literal, get_args

from gauntlet.ingest.limits import Limits
from gauntlet.kinds import Source

if TYPE_CHECKING:  # loaded with the readers: detection alone needs no pydantic
    from gauntlet.models import Finding

__all__ = ["FORMATS", "FORMAT_NAMES", "HEAD_BYTES", "Detection", "Format", "Reader", "detect_format", "reader_for"]

#: What ``--format`` accepts: every source a file can be read as, or ``auto`` (detect from content).
Format = Literal["auto", Source]
FORMATS: tuple[Format, ...] = get_args(Format)

#: How each format is named in messages.
FORMAT_NAMES: dict[Format, str] = {
    "auto": "auto-detected",
    "log": "a CI log (plain text)",
    "sarif": "SARIF",
    "junit": "JUnit XML",
    "review": "Gauntlet review JSON",
    "rdjson": "reviewdog rdjson",
    "checkstyle": "checkstyle XML",
    "comment": "GitHub comments JSON",
    "nunit": "NUnit XML",
    "xunit": "xUnit.net v2 XML",
    "trx": "Visual Studio TRX",
    "ctrf": "CTRF JSON",
    "tap": "TAP",
    "go-json": "go test -json output",
    "mocha-json": "mocha JSON reporter output",
    "jest-json": "jest --json output",
    "dart-json": "Dart/Flutter JSON reporter output",
}

Reader = Callable[[BinaryIO, str, Limits], Iterator["Finding"]]

#: What detection reads of a file: its first bytes.
HEAD_BYTES = 64 * 1024
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_XML_ROOTS: dict[bytes, Format] = {
    b"testsuites": "junit",
    b"testsuite": "junit",
    b"test-run": "nunit",
    b"test-results": "nunit",
    b"assemblies": "xunit",
    b"assembly": "xunit",
    b"TestRun": "trx",
    b"checkstyle": "checkstyle",
}
# Readers and the module that holds each, imported on first use (each pulls its own parsers).
_READERS: dict[Format, tuple[str, str]] = {
    "log": ("gauntlet.ingest.log", "read_log"),
    "review": ("gauntlet.ingest.review", "read_review"),
    "sarif": ("gauntlet.ingest.sarif", "read_sarif"),
    "junit": ("gauntlet.ingest.junit", "read_junit"),
    "rdjson": ("gauntlet.ingest.rdjson", "read_rdjson"),
    "checkstyle": ("gauntlet.ingest.checkstyle", "read_checkstyle"),
    "comment": ("gauntlet.ingest.comment", "read_comments"),
    "nunit": ("gauntlet.ingest.dotnet", "read_nunit"),
    "xunit": ("gauntlet.ingest.dotnet", "read_xunit"),
    "trx": ("gauntlet.ingest.dotnet", "read_trx"),
    "ctrf": ("gauntlet.ingest.jsreports", "read_ctrf"),
    "mocha-json": ("gauntlet.ingest.jsreports", "read_mocha"),
    "jest-json": ("gauntlet.ingest.jsreports", "read_jest"),
    "tap": ("gauntlet.ingest.tap", "read_tap"),
    "go-json": ("gauntlet.ingest.streams", "read_go_json"),
    "dart-json": ("gauntlet.ingest.streams", "read_dart_json"),
}
# TAP: the version line, a leading plan or a first test point, after any comment lines ("# Subtest: x").
_TAP_START = re.compile(
    rb"(?:#[^\n]*\n\s*)*"
    rb"(?:TAP version 1[34]\s|1\.\.\d+\s|(?:not )?ok\b(?:[ \t]+\d+)?(?:[ \t]+-[ \t]|[ \t]*#|[ \t]*\r?$))",
    re.MULTILINE,
)
_TEXT_FORMATS: frozenset[Format] = frozenset({"log", "review", "comment"})


@dataclass(frozen=True, slots=True)
class Detection:
    """What the first bytes of a file are: a format (``None`` when no known one) and what was seen."""

    format: Format | None
    found: str


def detect_format(head: bytes) -> Detection:
    """Tell the format of a file from its first bytes.

    Plain text is a log; JSON or XML that is no known findings format has ``format`` ``None``.
    """
    if head.startswith(_UTF16_BOMS):
        head = head[:HEAD_BYTES].decode("utf-16", "replace").encode("utf-8")
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:HEAD_BYTES]
    if text.startswith(b"<"):
        return _detect_xml(text)
    if text.startswith((b"{", b"[")):
        return _detect_json(text)
    if _TAP_START.match(text):
        return Detection("tap", "TAP")
    return Detection("log", "plain text")


def _detect_xml(text: bytes) -> Detection:
    # The first element that is not the prolog, a comment or a doctype decides.
    root = re.search(rb"<(?![?!])([A-Za-z_][\w.:-]*)", text)
    name = root.group(1).split(b":")[-1] if root else b""
    fmt = _XML_ROOTS.get(name)
    if fmt == "nunit":
        version = "NUnit 3" if name == b"test-run" else "NUnit 2"
        return Detection(fmt, f"{version} XML")
    if fmt is not None:
        return Detection(fmt, FORMAT_NAMES[fmt])
    shown = name.decode("utf-8", "replace")[:40] or "?"
    return Detection(None, f"XML whose root element is <{shown}>")


def _detect_json(text: bytes) -> Detection:
    first = text.split(b"\n", 1)[0]
    line = _json_value(first)
    if isinstance(line, dict) and len(first) < len(text.rstrip()):  # JSON lines: the first object says what
        stream = _detect_stream(line)
        if stream is not None:
            return Detection(stream, FORMAT_NAMES[stream])
    checks: list[tuple[Format, bytes]] = [
        ("sarif", rb'"runs"\s*:'),
        ("ctrf", rb'"results"\s*:\s*\{\s*"tool"|"reportFormat"\s*:\s*"CTRF"'),
        ("jest-json", rb'"num(?:Failed|Total)Tests"\s*:|"numFailedTestSuites"\s*:'),
        ("mocha-json", rb'"stats"\s*:\s*\{[^}]*"passes"\s*:'),
        ("rdjson", rb'"diagnostics"\s*:'),
    ]
    for fmt, pattern in checks:
        if re.search(pattern, text):
            return Detection(fmt, FORMAT_NAMES[fmt])
    if isinstance(line, dict) and "location" in line and "message" in line:
        return Detection("rdjson", "reviewdog rdjsonl")
    if (
        re.search(rb'"body"\s*:', text)
        and re.search(rb'"(?:user|html_url|pull_request_review_id|author_association)"\s*:', text)
        and not re.search(rb'"description"\s*:', text)
    ):
        return Detection("comment", FORMAT_NAMES["comment"])
    if (
        re.fullmatch(rb"\[\s*\]\s*", text)
        or re.match(rb'\{\s*"issues"\s*:', text)
        or re.search(rb'"description"\s*:', text)
    ):
        return Detection("review", FORMAT_NAMES["review"])
    return Detection(None, _describe_json(text))


def _detect_stream(value: dict[str, Any]) -> Format | None:
    if "Action" in value and ("Package" in value or "Test" in value):
        return "go-json"
    if "protocolVersion" in value or ("type" in value and "time" in value and isinstance(value.get("time"), int)):
        return "dart-json"
    return None


def _json_value(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return None


def _describe_json(text: bytes) -> str:
    keys = re.findall(rb'"([^"\\]{1,40})"\s*:', text[:4096])
    shown = ", ".join(dict.fromkeys(k.decode("utf-8", "replace") for k in keys[:6]))
    return f"JSON with keys {shown}" if shown else "JSON of no known shape"


def reader_for(fmt: Format, *, root: str | None = None) -> Reader:
    """Return the reader for a concrete format (imported lazily: each pulls its own parsers).

    :param fmt: a format other than ``auto`` (detect it first).
    :param root: the repository's absolute path (``GITHUB_WORKSPACE``, or the working
        directory locally); readers of path-carrying formats make absolute paths under it relative.
    """
    if fmt not in _READERS:
        raise ValueError(f"format {fmt!r} has no reader: detect it first")
    module, function = _READERS[fmt]
    reader: Callable[..., Iterator[Finding]] = getattr(importlib.import_module(module), function)
    if root is not None and fmt not in _TEXT_FORMATS:
        return functools.partial(reader, root=root)
    return reader
