"""The streaming scanner: bytes in, cleaned lines near failures out to the analyser.

The input is read in blocks of :data:`BLOCK_BYTES`; a line longer than
``Limits.max_line_bytes`` keeps only its head and the rest is dropped as it
streams past, so memory stays flat whatever the input (a 50 MB line, endless
``\\r`` progress, no newline at all). In each block the prefilter finds candidate
lines; a candidate confirmed by its trigger is fed to the analyser together with
up to :data:`CONTEXT_BEFORE` lines before it (some tools put the cause above the
keyword), and while a parser is inside a block every following line is fed too.
Line numbers count ``\\n`` in the raw input, 1-based, so ``log_lines`` point into
the log exactly as GitHub serves it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import BinaryIO

from gauntlet.ingest.limits import Limits
from gauntlet.ingest.log.analyser import Analyser
from gauntlet.ingest.log.prefilter import TRIGGER, candidate_offsets
from gauntlet.ingest.log.text import clean_line
from gauntlet.models import Finding

__all__ = ["BLOCK_BYTES", "CONTEXT_BEFORE", "iter_blocks", "scan_blocks"]

BLOCK_BYTES = 1 << 20
CONTEXT_BEFORE = 30


def iter_blocks(source: BinaryIO | Iterable[bytes], limits: Limits) -> Iterator[bytes]:
    """Yield blocks that each end at a newline (the last may not); over-long lines lose their tails.

    ``source`` is a binary stream (read in blocks) or an iterable of byte strings
    taken as lines: an item without a trailing newline still ends its line.
    """
    cap = limits.max_line_bytes
    pending = bytearray()
    skipping = False  # inside the dropped tail of an over-long line
    for piece in _pieces(source):
        if skipping:
            newline = piece.find(b"\n")
            if newline == -1:
                continue
            skipping = False
            pending += piece[newline:]
        else:
            pending += piece
        cut = pending.rfind(b"\n") + 1
        if cut:
            ready = bytes(pending[:cut])
            del pending[:cut]
            yield ready
        if len(pending) > cap:
            del pending[cap:]
            skipping = True
    if pending:
        yield bytes(pending)


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


def scan_blocks(blocks: Iterable[bytes], analyser: Analyser) -> Iterator[Finding]:
    """Feed the interesting lines of ``blocks`` to ``analyser``; yield findings as they appear."""
    cap = analyser.limits.max_line_bytes
    first_line = 1  # number of the first line of the current block
    fed_through = 0  # highest line number already fed
    carry: list[tuple[int, bytes]] = []  # last lines of the previous block, for context
    for block in blocks:
        cursor = 0  # offset of the next line not yet looked at
        number = first_line  # its line number
        candidates = candidate_offsets(block)
        index = 0
        while True:
            if analyser.active and cursor < len(block):
                cursor, number = _feed_next(block, cursor, number, analyser, cap)
                fed_through = number - 1
            elif index < len(candidates):
                offset = candidates[index]
                index += 1
                if offset < cursor:
                    continue
                end = block.find(b"\n", offset)
                raw = block[offset : end if end != -1 else len(block)]
                text = clean_line(raw[:cap])
                if not TRIGGER.search(text):
                    continue
                hit_number = number + block.count(b"\n", cursor, offset)
                _feed_context(block, cursor, offset, hit_number, fed_through, carry, analyser, cap)
                analyser.feed(hit_number, text)
                cursor = end + 1 if end != -1 else len(block)
                number = hit_number + 1
                fed_through = hit_number
            else:
                break
            if analyser.found:
                yield from _drain(analyser)
        first_line = number + block.count(b"\n", cursor)
        carry = [(n, raw[:cap]) for n, raw in _last_lines(block, cursor, len(block), first_line, CONTEXT_BEFORE)]
    analyser.finish()
    yield from _drain(analyser)


def _drain(analyser: Analyser) -> Iterator[Finding]:
    while analyser.found:
        yield analyser.found.popleft()


def _feed_next(block: bytes, cursor: int, number: int, analyser: Analyser, cap: int) -> tuple[int, int]:
    end = block.find(b"\n", cursor)
    stop = end if end != -1 else len(block)
    analyser.feed(number, clean_line(block[cursor : min(stop, cursor + cap)]))
    return stop + 1, number + 1


def _feed_context(
    block: bytes,
    cursor: int,
    offset: int,
    hit_number: int,
    fed_through: int,
    carry: list[tuple[int, bytes]],
    analyser: Analyser,
    cap: int,
) -> None:
    """Feed the lines before a hit that were not fed yet, from this block and the previous one."""
    lines = _last_lines(block, cursor, offset, hit_number, CONTEXT_BEFORE)
    wanted = CONTEXT_BEFORE - len(lines)
    if wanted > 0 and cursor == 0:
        lines = carry[-wanted:] + lines
    for line_number, raw in lines:
        if line_number > fed_through:
            analyser.feed(line_number, clean_line(raw[:cap]))


def _last_lines(block: bytes, floor: int, end: int, next_number: int, count: int) -> list[tuple[int, bytes]]:
    """The last ``count`` complete lines of ``block[floor:end]``, numbered.

    ``end`` is a line start (or the end of the block); ``next_number`` is the number of the line there.
    """
    lines: list[tuple[int, bytes]] = []
    if end <= floor:
        return lines
    # block ends with "\n" (or is a prefix ending just before a line start)
    position = end - 1
    number = next_number - 1
    while len(lines) < count and position >= floor:
        start = block.rfind(b"\n", floor, position) + 1
        start = max(start, floor)
        lines.append((number, block[start:position]))
        number -= 1
        position = start - 1
    lines.reverse()
    return lines
