"""How the scanner reads its input: blocks of whole lines, each line capped in length.

Its own small module (no parser, no pydantic) because the prefilter's read-ahead child
(:mod:`.prefetch`) cuts a file into the same blocks, and ``gauntlet ingest`` starts that child
before the parsers load.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cache
from io import SEEK_CUR
from typing import BinaryIO, cast

from gauntlet.ingest.limits import Limits

__all__ = ["BLOCK_BYTES", "CONTEXT_BEFORE", "HEADER_LINES", "iter_blocks", "whole_lines"]

BLOCK_BYTES = 1 << 20
#: Lines before a confirmed hit fed to the analyser with it (some tools put the cause above the keyword).
CONTEXT_BEFORE = 30
#: A step's header (the script GitHub echoes after ``##[group]Run``) ends at ``##[endgroup]`` or this many lines on:
#: the runner parser's rule (:class:`~gauntlet.ingest.log.ci.CiRunner`), which the read-ahead child follows too.
HEADER_LINES = 200


def iter_blocks(source: BinaryIO | Iterable[bytes], limits: Limits) -> Iterator[tuple[bytes, int]]:
    """Yield ``(block, end)`` pairs: ``block[:end]`` is whole lines (the last block may end mid-line).

    Bytes after ``end`` are repeated at the start of the next block, so no copy of the
    block is made just to cut it at its last newline. ``source`` is a binary stream
    (read in blocks) or an iterable of byte strings taken as lines: an item without a
    trailing newline still ends its line. Of a line longer than ``limits.max_line_bytes``
    only the head is kept; the rest is dropped as it streams past.
    """
    cap = limits.max_line_bytes
    carry = b""
    skipping = False  # inside the dropped tail of an over-long line
    # A file that can seek reads its unfinished last line again with the next block instead of copying the
    # block to put that line before it (a copy of every block costs a tenth of the scan).
    seekable = getattr(source, "seekable", None)
    rewind = cast(BinaryIO, source).seek if seekable is not None and seekable() else None
    for piece in _pieces(source):
        if skipping:
            newline = piece.find(b"\n")
            if newline == -1:
                continue
            skipping = False
            piece = piece[newline:]  # noqa: PLW2901 - the dropped head is gone for good
        data = carry + piece if carry else piece
        end = data.rfind(b"\n") + 1
        if end:
            yield data, end
        carry = data[end:]
        if end and carry and rewind is not None and data is piece:
            rewind(-len(carry), SEEK_CUR)
            carry = b""
        elif len(carry) > cap:
            carry = carry[:cap]
            skipping = True
    if carry:
        yield carry, len(carry)


def _pieces(source: BinaryIO | Iterable[bytes]) -> Iterator[bytes]:
    read = getattr(source, "read", None)
    if read is not None:
        while block := read(BLOCK_BYTES):
            yield block
        return
    batch: list[bytes] = []
    size = 0
    for item in source:
        batch.append(item if item.endswith(b"\n") else item + b"\n")
        size += len(item)
        if size >= BLOCK_BYTES:
            yield b"".join(batch)
            batch.clear()
            size = 0
    if batch:
        yield b"".join(batch)


@cache
def whole_lines(count: int) -> re.Pattern[bytes]:
    """A pattern over ``count`` whole lines (at most :data:`HEADER_LINES` + 1 of them)."""
    return re.compile(rb"(?:[^\n]*+\n){%d}" % count)
