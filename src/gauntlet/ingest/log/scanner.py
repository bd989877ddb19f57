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
from gauntlet.ingest.log.analyser import MAX_FED, Analyser
from gauntlet.ingest.log.prefilter import candidate_offsets, is_trigger
from gauntlet.ingest.log.text import clean_line
from gauntlet.models import Finding
from gauntlet.untrusted import masked_values

__all__ = ["BLOCK_BYTES", "CONTEXT_BEFORE", "NUMPY_AFTER", "count_newlines", "iter_blocks", "scan_blocks"]

BLOCK_BYTES = 4 << 20
_NEWLINE = ord("\n")
CONTEXT_BEFORE = 30


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
        if len(carry) > cap:
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


def scan_blocks(blocks: Iterable[tuple[bytes, int]], analyser: Analyser) -> Iterator[Finding]:
    """Feed the interesting lines of ``blocks`` to ``analyser``; yield findings as they appear."""
    cap = analyser.limits.max_line_bytes
    first_line = 1  # number of the first line of the current block
    fed_through = 0  # highest line number already fed
    carry: list[tuple[int, bytes]] = []  # last lines of the previous block, for context
    read = 0  # bytes read so far: past NUMPY_AFTER, newlines are counted with numpy
    for block, limit in blocks:
        big = read >= NUMPY_AFTER
        read += limit
        cursor = 0  # offset of the next line not yet looked at
        number = first_line  # its line number
        candidates = candidate_offsets(block)
        index = 0
        while True:
            if analyser.active and cursor < limit:
                cursor, number = _feed_next(block, cursor, number, analyser, cap)
                fed_through = number - 1
            elif index < len(candidates):
                offset = candidates[index]
                index += 1
                if offset < cursor:
                    continue
                if offset >= limit:
                    break
                end = block.find(b"\n", offset)
                raw = block[offset : end if end != -1 else len(block)]
                text = clean_line(raw[:cap])
                if "::add-mask::" in text:  # a prefilter anchor, so every such line is seen (DESIGN §6)
                    analyser.masks.add(masked_values([text]))
                    continue
                if not is_trigger(text):
                    continue
                hit_number = number + count_newlines(block, cursor, offset, big=big)
                _feed_context(block, cursor, offset, hit_number, fed_through, carry, analyser, cap)
                analyser.feed(hit_number, text, confirmed=True)
                cursor = end + 1 if end != -1 else limit
                number = hit_number + 1
                fed_through = hit_number
            else:
                break
            if analyser.found:
                yield from _drain(analyser)
        if analyser.fed > MAX_FED:
            break  # hostile input: bounded time matters more than the rest of it
        first_line = number + count_newlines(block, cursor, limit, big=big)
        carry = [(n, raw[:cap]) for n, raw in _last_lines(block, cursor, limit, first_line, CONTEXT_BEFORE)]
    analyser.finish()
    yield from _drain(analyser)


def count_newlines(block: bytes, start: int, end: int, *, big: bool = False) -> int:
    """``block.count(b"\\n", start, end)``; with ``big``, numpy counts long spans.

    ``bytes.count`` is a byte loop; numpy counts several times faster but costs a tenth of a
    second to import, which only pays off for big logs (the scanner says when it has read
    :data:`NUMPY_AFTER` bytes).
    """
    if not big or end - start < 1 << 16:
        return block.count(b"\n", start, end)
    import numpy

    view = numpy.frombuffer(block, dtype=numpy.uint8, count=end - start, offset=start)
    return int(numpy.count_nonzero(view == _NEWLINE))


NUMPY_AFTER = 32 << 20


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
