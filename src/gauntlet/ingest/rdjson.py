"""reviewdog's Diagnostic Format: rdjson (one ``DiagnosticResult``) and rdjsonl (one ``Diagnostic`` a line).

https://github.com/reviewdog/reviewdog/tree/master/proto/rdf — ``severity`` is
``ERROR``/``WARNING``/``INFO`` (→ major/minor/nitpick), on the diagnostic or,
failing that, on the whole result; ``code.value`` is the rule.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO

from gauntlet.errors import InputError
from gauntlet.ingest.jsondoc import CappedList, load_json, load_json_lines
from gauntlet.ingest.limits import Limits
from gauntlet.ingest.paths import repo_relative
from gauntlet.ingest.structured import Fingerprints, excerpt, kind_for_tool, logger, one_line, tool_name
from gauntlet.ingest.values import as_text, json_position
from gauntlet.models import Finding, Severity

__all__ = ["read_rdjson"]

_SEVERITIES: dict[str, Severity] = {"ERROR": "major", "WARNING": "minor", "INFO": "nitpick"}


def read_rdjson(stream: BinaryIO, name: str, limits: Limits, *, root: str | None = None) -> Iterator[Finding]:
    """Yield a finding per diagnostic of an rdjson document or an rdjsonl stream.

    :param root: the repository's absolute path, to make absolute paths relative.
    :raises InputError: not JSON, not diagnostics, or beyond the size limits.
    """
    head = stream.read(1)
    while head in (b" ", b"\t", b"\r", b"\n", b"\xef", b"\xbb", b"\xbf"):
        head = stream.read(1)
    rest = _Prefixed(head, stream)
    diagnostics: Iterable[Any]
    default: dict[str, Any] = {}
    if rest.peek_document():
        document = load_json(
            rest, name, max_bytes=limits.max_document_bytes, max_items=max(4 * limits.max_findings, 10_000)
        )
        if not isinstance(document, dict) or not isinstance(document.get("diagnostics", []), list):
            raise InputError(f'{name}: not rdjson (expected {{"diagnostics": [...]}})')
        diagnostics = document.get("diagnostics", [])
        default = document
        if isinstance(diagnostics, CappedList) and diagnostics.dropped:
            logger.warning("%s: read the first %d diagnostics, dropped %d", name, len(diagnostics), diagnostics.dropped)
    else:
        diagnostics = load_json_lines(
            rest, name, max_bytes=limits.max_document_bytes, max_line_bytes=limits.max_line_bytes
        )
    fingerprints = Fingerprints()
    for emitted, diagnostic in enumerate(diagnostics, start=1):
        if not isinstance(diagnostic, dict):
            raise InputError(f"{name}: diagnostic {emitted}: not an object")
        yield _to_finding(diagnostic, default, limits, root, fingerprints)
        if emitted >= limits.max_findings:
            logger.warning("%s: stopped after %d findings", name, emitted)
            return


def _to_finding(
    diagnostic: dict[str, Any], default: dict[str, Any], limits: Limits, root: str | None, fps: Fingerprints
) -> Finding:
    source = _dict(diagnostic.get("source")) or _dict(default.get("source"))
    tool = tool_name(as_text(source.get("name")))
    level = as_text(diagnostic.get("severity")) or as_text(default.get("severity")) or "ERROR"
    location = _dict(diagnostic.get("location"))
    start = _dict(_dict(location.get("range")).get("start"))
    end = _dict(_dict(location.get("range")).get("end"))
    path = repo_relative(as_text(location.get("path")), root=root)
    rule = as_text(_dict(diagnostic.get("code")).get("value"))
    message = one_line(as_text(diagnostic.get("message")) or rule or "diagnostic", limits)
    kind = kind_for_tool(tool)
    return Finding(
        fingerprint=fps("rdjson", tool, kind, rule, path, message=message),
        source="rdjson",
        tool=tool,
        kind=kind,
        severity=_SEVERITIES.get(level.upper(), "minor"),
        path=path,
        line=json_position(start.get("line")) if path else None,
        end_line=json_position(end.get("line")) if path else None,
        column=json_position(start.get("column")) if path else None,
        rule=rule[:200] if rule else None,
        message=message,
        excerpt=excerpt(as_text(diagnostic.get("original_output")) if tool != "eslint" else None, limits),
    )


class _Prefixed:
    """A stream with some bytes already read put back in front, and a look at the first line."""

    def __init__(self, head: bytes, stream: BinaryIO) -> None:
        self._buffer = head
        self._stream = stream

    def peek_document(self) -> bool:
        """True for one rdjson document; false for rdjsonl (a whole diagnostic object on the first line)."""
        if not self._buffer.startswith(b"{"):
            return True  # not an object: let the document parser say what it is
        while b"\n" not in self._buffer and len(self._buffer) < 1024 * 1024:
            chunk = self._stream.read(64 * 1024)
            if not chunk:
                break
            self._buffer += chunk
        first = self._buffer.split(b"\n", 1)[0].strip()
        try:
            value = json.loads(first)
        except (ValueError, RecursionError):
            return True  # not a whole object on one line: a (pretty-printed) document
        return not isinstance(value, dict) or "diagnostics" in value

    def read(self, size: int = -1) -> bytes:
        if size == 0:
            return b""
        if self._buffer:
            data, self._buffer = self._buffer, b""
            return data
        return self._stream.read(size)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
