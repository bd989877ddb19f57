"""Bounded JSON: build a document from a stream without trusting its size or shape.

``json.loads`` would hold the whole text and every object of a SARIF file with a
million results, and recurses on deep nesting. Here the document is built from
``ijson`` events (the yajl C backend): the byte count, the nesting depth and the
number of values are capped, and arrays stop growing at ``max_items`` — the
dropped items are parsed, counted in :attr:`CappedList.dropped` and forgotten,
so memory stays bounded whatever the input.

Valid JSON that yajl refuses is still read: a UTF-8 byte order mark (Visual
Studio and several .NET tools write one before SARIF) is skipped, and a
document with an integer beyond 64 bits (RFC 8259 §6 sets no limit; SARIF ids
are arbitrary) is parsed again with ijson's pure-Python backend.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from io import BytesIO
from typing import Any, Protocol

import ijson  # type: ignore[import-untyped]

from gauntlet.errors import InputError

__all__ = ["ByteSource", "CappedList", "CountingReader", "load_json", "load_json_lines", "valid_text"]

MAX_DEPTH = 64
MAX_VALUES = 2_000_000
_BOM = b"\xef\xbb\xbf"


class ByteSource(Protocol):
    """Anything with a binary ``read``: an open file, ``BytesIO``, a wrapper."""

    def read(self, size: int = -1, /) -> bytes: ...


class CappedList(list[Any]):
    """A JSON array that kept its first items; ``dropped`` counts the rest."""

    dropped: int = 0


class CountingReader:
    """A read-only stream wrapper that refuses to read past ``limit`` bytes."""

    def __init__(self, stream: ByteSource, name: str, limit: int) -> None:
        self._stream = stream
        self._name = name
        self._limit = limit
        self._started = False
        self.count = 0

    def read(self, size: int = -1) -> bytes:
        """Read like :meth:`io.RawIOBase.read`; raises :class:`InputError` past the limit."""
        if size == 0:  # ijson reads 0 bytes to learn whether the stream is binary
            return b""
        if size < 0 or size > 64 * 1024:
            size = 64 * 1024
        data = self._stream.read(size)
        if not self._started:
            self._started = True
            data = data.removeprefix(_BOM)
        self.count += len(data)
        if self.count > self._limit:
            raise InputError(f"{self._name}: larger than {self._limit} bytes")
        return data

    def read_all(self) -> bytes:
        """The rest of the stream, within the limit."""
        return b"".join(iter(self.read, b""))


def load_json(stream: ByteSource, name: str, *, max_bytes: int, max_items: int) -> Any:
    """Build one JSON document from ``stream`` within bounds.

    :param stream: binary input.
    :param name: the file name to put in error messages.
    :param max_bytes: refuse documents larger than this.
    :param max_items: keep at most this many items of any array (see :class:`CappedList`).
    :raises InputError: not JSON, too large, nested deeper than 64 or more than 2,000,000 values.
    """
    try:
        return _load(stream, name, max_bytes, max_items)
    except UnicodeDecodeError as exc:
        if not _rewind(stream):
            raise InputError(f"{name}: not valid JSON: a string is not valid UTF-8") from exc
    # Lone UTF-16 surrogates (``"\ud800"``) or bytes that are not UTF-8 in a string: yajl refuses to decode
    # them. Read again (``max_bytes`` bounds it) with each one replaced by U+FFFD, as every text Gauntlet keeps.
    return _load(BytesIO(valid_text(CountingReader(stream, name, max_bytes).read_all())), name, max_bytes, max_items)


def _load(stream: ByteSource, name: str, max_bytes: int, max_items: int) -> Any:
    events = ijson.basic_parse(CountingReader(stream, name, max_bytes), use_float=True)
    try:
        return _build(events, name, max_items)
    except ijson.JSONError as exc:
        if "integer overflow" not in str(exc) or not _rewind(stream):
            raise InputError(f"{name}: not valid JSON: {_one_line(exc)}") from exc
    events = _PYTHON_BACKEND.basic_parse(CountingReader(stream, name, max_bytes), use_float=True)
    try:
        return _build(events, name, max_items)
    except ijson.JSONError as exc:
        if not _rewind(stream):
            raise InputError(f"{name}: not valid JSON: {_one_line(exc)}") from exc
    # Python itself refuses to build an integer of thousands of digits (the int-string limit): such a number
    # can be no count, line or column, so it is read as null (DESIGN §6). Rare and hostile, so this last pass
    # may hold the document, which ``max_bytes`` bounds.
    text = _HUGE_NUMBER.sub(_null_outside_strings, CountingReader(stream, name, max_bytes).read_all())
    events = _PYTHON_BACKEND.basic_parse(BytesIO(text), use_float=True)
    try:
        return _build(events, name, max_items)
    except ijson.JSONError as exc:
        raise InputError(f"{name}: not valid JSON: {_one_line(exc)}") from exc


#: A JSON string (kept as it is) or a number with more digits than any position or count can have.
_HUGE_NUMBER = re.compile(rb'"(?:[^"\\]|\\.)*"|-?\d{100,}(?:\.\d+)?(?:[eE][+-]?\d+)?')


#: A ``\\uXXXX`` escape of a high surrogate not followed by a low one, or of a low one not after a high one.
_LONE_SURROGATE = re.compile(
    rb"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)


def valid_text(data: bytes) -> bytes:
    """JSON bytes whose strings all decode: lone surrogate escapes and bytes that are not UTF-8 become U+FFFD."""
    return _LONE_SURROGATE.sub(rb"\\ufffd", data).decode("utf-8", "replace").encode("utf-8")


def _null_outside_strings(match: re.Match[bytes]) -> bytes:
    found = match.group()
    return found if found.startswith(b'"') else b"null"


_PYTHON_BACKEND = ijson.get_backend("python")


def _rewind(stream: ByteSource) -> bool:
    """Go back to the start of ``stream`` if it can (a file can; a pipe cannot)."""
    seek = getattr(stream, "seek", None)
    if seek is None:
        return False
    try:
        seek(0)
    except OSError:
        return False
    return True


def load_json_lines(stream: ByteSource, name: str, *, max_bytes: int, max_line_bytes: int) -> Iterator[Any]:
    """Yield one parsed value per non-blank line (JSON Lines), each line within ``max_line_bytes``.

    :raises InputError: a line is not JSON or is too long; the document is too large.
    """
    reader = CountingReader(stream, name, max_bytes)
    pending = b""
    number = 0
    while True:
        chunk = reader.read(64 * 1024)
        pending += chunk
        lines = pending.split(b"\n")
        pending = lines.pop() if chunk else b""
        for raw in lines:
            number += 1
            if len(raw) > max_line_bytes:
                raise InputError(f"{name}: line {number}: longer than {max_line_bytes} bytes")
            if raw.strip():
                yield _load_line(raw, name, number)
        if len(pending) > max_line_bytes:
            raise InputError(f"{name}: line {number + 1}: longer than {max_line_bytes} bytes")
        if not chunk:
            return


def _load_line(raw: bytes, name: str, number: int) -> Any:
    try:
        return _build(ijson.basic_parse(BytesIO(raw), use_float=True), name, 10_000)
    except UnicodeDecodeError:
        return _load_line(valid_text(raw), name, number)  # as in :func:`load_json`; once: the result decodes
    except ijson.JSONError as exc:
        if "integer overflow" not in str(exc):
            raise InputError(f"{name}: line {number}: not valid JSON: {_one_line(exc)}") from exc
    try:
        return _build(_PYTHON_BACKEND.basic_parse(BytesIO(raw), use_float=True), name, 10_000)
    except ijson.JSONError as exc:
        raise InputError(f"{name}: line {number}: not valid JSON: {_one_line(exc)}") from exc


_STARTS = frozenset({"start_map", "start_array"})
_ENDS = frozenset({"end_map", "end_array"})


def _build(events: Any, name: str, max_items: int) -> Any:
    root: Any = None
    stack: list[Any] = []  # open containers
    keys: list[str | None] = []  # the pending key of each open map
    values = 0
    events = iter(events)
    for event, value in events:
        if event == "map_key":
            keys[-1] = value
            continue
        if event in _ENDS:
            stack.pop()
            keys.pop()
            continue
        parent = stack[-1] if stack else None
        if isinstance(parent, CappedList) and len(parent) >= max_items:
            # The array is full: count the rest of its items without building them, then close it.
            parent.dropped += _drop_rest(events, event)
            stack.pop()
            keys.pop()
            continue
        values += 1
        if values > MAX_VALUES:
            raise InputError(f"{name}: more than {MAX_VALUES} JSON values")
        if event == "start_map":
            node: Any = {}
        elif event == "start_array":
            node = CappedList()
        else:
            node = value
        if parent is None:
            root = node
        elif isinstance(parent, list):
            parent.append(node)
        else:
            parent[keys[-1]] = node
        if event in _STARTS:
            if len(stack) >= MAX_DEPTH:
                raise InputError(f"{name}: JSON nested deeper than {MAX_DEPTH} levels")
            stack.append(node)
            keys.append(None)
    return root


def _drop_rest(events: Iterator[tuple[str, Any]], first: str) -> int:
    """Consume an array's remaining items, starting with the event ``first``, through its ``end_array``."""
    dropped = 1
    depth = 1 if first in _STARTS else 0
    starts, ends = _STARTS, _ENDS
    for event, _ in events:
        if event in starts:
            if depth == 0:
                dropped += 1
            depth += 1
        elif event in ends:
            if depth == 0:
                return dropped  # the array's own end
            depth -= 1
        elif depth == 0 and event != "map_key":
            dropped += 1
    return dropped


def _one_line(exc: Exception) -> str:
    detail = exc.args[0] if exc.args else exc
    text = detail.decode("utf-8", "replace") if isinstance(detail, bytes) else str(detail)
    # yajl's message is its verdict, then the offending bytes and a "(right here) ------^" pointer:
    # keep the verdict, so the file's content never reaches a summary or a comment.
    first = next((line for line in text.splitlines() if line.strip()), text)
    return " ".join(first.split())[:200]
