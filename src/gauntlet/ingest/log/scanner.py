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

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator

from gauntlet.ingest.log.analyser import MAX_FED, Analyser
from gauntlet.ingest.log.blocks import BLOCK_BYTES, CONTEXT_BEFORE, HEADER_LINES, iter_blocks, whole_lines
from gauntlet.ingest.log.locator import Span, previous_lines
from gauntlet.ingest.log.prefetch import HIT, MASK, UNKNOWN, Prefetched
from gauntlet.ingest.log.prefilter import Search, is_trigger, may_start, searcher, wordy_lines
from gauntlet.ingest.log.text import clean_line
from gauntlet.models import Finding
from gauntlet.untrusted import masked_values

__all__ = [
    "BLOCK_BYTES",
    "CONTEXT_BEFORE",
    "NUMPY_AFTER",
    "count_newlines",
    "iter_blocks",
    "scan_blocks",
]

_NEWLINE = ord("\n")


def scan_blocks(
    blocks: Iterable[tuple[bytes, int]],
    analyser: Analyser,
    *,
    backend: str = "auto",
    ahead: Iterator[Prefetched] | None = None,
) -> Iterator[Finding]:
    """Feed the interesting lines of ``blocks`` to ``analyser``; yield findings as they appear.

    :param backend: the prefilter's search (:func:`~gauntlet.ingest.log.prefilter.searcher`).
    :param ahead: the same blocks' candidates as a child process found them (:func:`.prefetch.read_ahead`);
        a block it does not describe is searched here.
    """
    cap = analyser.limits.max_line_bytes
    first_line = 1  # number of the first line of the current block
    fed_through = 0  # highest line number already fed
    previous: Span = (b"", 0, 1)  # the block before, for context and windows that reach back into it
    read = 0  # bytes read so far: past NUMPY_AFTER, newlines are counted with numpy
    source = _Candidates(backend, ahead, analyser)
    try:
        for block, limit in blocks:
            big = read >= NUMPY_AFTER
            read += limit
            cursor = 0  # offset of the next line not yet looked at
            number = first_line  # its line number
            candidates, lines, found = source.of(block, limit, first_line, big=big)
            index = 0
            while True:
                if analyser.active and cursor < limit:
                    cursor, number, fed = _read_on(block, cursor, number, limit, analyser, candidates, lines)
                    fed_through = number - 1 if fed else fed_through
                elif index < len(candidates):
                    offset = candidates[index]
                    index += 1
                    if offset < cursor:
                        continue
                    if offset >= limit:
                        break
                    end = block.find(b"\n", offset)
                    text = _hit_text(block, offset, end, cap, analyser, found, index - 1)
                    if text is None:
                        continue
                    hit_number = lines.number(cursor, number, offset)
                    if not text.startswith("##[") or text.startswith("##[error]"):
                        # A runner's step marker needs no context: what stands before it ended with the last step.
                        _feed_context(block, cursor, offset, hit_number, fed_through, previous, analyser, found)
                    analyser.place = (block, offset, hit_number)
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
            first_line = lines.number(cursor, number, limit)
            # Kept whole (no copy) for the lines before the next block's first hits and the locator's window.
            previous = analyser.previous = analyser.place = (block, limit, first_line)
    finally:
        source.close()
    analyser.finish()
    yield from _drain(analyser)


class _Candidates:
    """Each block's candidate lines and their line numbers: the child's (see :mod:`.prefetch`) while it
    describes the blocks read here, else searched for here."""

    def __init__(self, backend: str, ahead: Iterator[Prefetched] | None, analyser: Analyser) -> None:
        self.backend = backend
        self.ahead = ahead
        self.search: Search | None = None
        self.analyser = analyser

    def of(
        self, block: bytes, limit: int, first_line: int, *, big: bool
    ) -> tuple[list[int], _Lines, Prefetched | None]:
        """The candidates of ``block``, where their numbers come from, and the child's description if any (its
        failed steps go to the analyser)."""
        found = next(self.ahead, None) if self.ahead is not None else None
        if found is not None and (found.size, found.limit) == (len(block), limit):
            self.analyser.steps_ahead = found.steps
            return found.candidates, _Counted(first_line, found), found
        self.analyser.steps_ahead = {}
        self.close()  # no description, or not of this block (the file changed): no more help from the child
        if self.search is None:
            self.search = searcher(self.backend)
        return self.search(block), _Counter(block, big=big), None

    def close(self) -> None:
        """End the child's pass (it exits at its next write) and reap it."""
        close = getattr(self.ahead, "close", None)
        if close is not None:
            close()
        self.ahead = None


def _hit_text(
    block: bytes, offset: int, end: int, cap: int, analyser: Analyser, found: Prefetched | None, index: int
) -> str | None:
    """The cleaned text of the candidate line at ``offset`` if it is a finding's trigger (see :func:`_is_hit`)."""
    if found is None or found.kinds[index] == UNKNOWN:
        text = clean_line(block[offset : end if end != -1 else len(block)][:cap])
        return text if _is_hit(text, analyser) else None
    kind = found.kinds[index]
    if kind == MASK:
        analyser.masks.add(masked_values([found.cleaned[offset]]))
    return found.cleaned[offset] if kind == HIT else None


class _Counter:
    """Line numbers in a block searched here: newlines counted from the last known line on."""

    def __init__(self, block: bytes, *, big: bool) -> None:
        self.block = block
        self.big = big

    def number(self, cursor: int, number: int, offset: int) -> int:
        """The number of the line starting at ``offset``, given that ``number`` starts at ``cursor``."""
        return number + count_newlines(self.block, cursor, offset, big=self.big)

    def cleaned(self, start: int) -> str | None:
        """Not known: the line starting at ``start`` is cleaned by the caller."""
        del start
        return None

    def known_before(self, cursor: int, number: int, target: int) -> tuple[int, int]:
        """The start and number of the last line known here at or before line ``target``: ``cursor``'s."""
        del target
        return cursor, number

    def header_end(self, after: int) -> tuple[int, int] | None:
        """Not known: the end of a step header opened just before ``after`` is found by the caller."""
        del after
        return None


class _Counted:
    """Line numbers in a block the child described: looked up (only its candidates and its end are asked)."""

    def __init__(self, first_line: int, found: Prefetched) -> None:
        self.first_line = first_line
        self.lines = found.lines
        self.candidates = found.candidates
        self.numbers = found.numbers
        #: The cleaned text of a line the child described, by its start (None for another line).
        self.cleaned = found.cleaned.get
        self.jumps = found.jumps

    def number(self, cursor: int, number: int, offset: int) -> int:
        """The number of the line starting at ``offset`` (a candidate or the end of the block's lines)."""
        if offset < cursor:  # past a last line without a newline: nothing to count (as ``bytes.count``)
            return number
        return self.first_line + self.lines[offset]

    def known_before(self, cursor: int, number: int, target: int) -> tuple[int, int]:
        """The start and number of the last line at or before line ``target`` and not before ``cursor`` (line
        ``number``) whose number is known: a candidate's, or else ``cursor``'s."""
        index = bisect_right(self.numbers, target - self.first_line) - 1
        if index >= 0 and self.candidates[index] >= cursor:
            return self.candidates[index], self.first_line + self.numbers[index]
        return cursor, number

    def header_end(self, after: int) -> tuple[int, int] | None:
        """Where the jump over a step header opened on the line before ``after`` lands (see
        :func:`_header_rest`) and that line's number, as the child found it; None where it did not."""
        jump = self.jumps.get(after)
        return None if jump is None else (jump[0], self.first_line + jump[1])


#: Where the scanner gets the line numbers of a block's candidates from.
_Lines = _Counter | _Counted


def count_newlines(block: bytes, start: int, end: int, *, big: bool = False) -> int:
    """``block.count(b"\\n", start, end)``; with ``big``, numpy counts long spans.

    ``bytes.count`` is a byte loop; numpy counts several times faster but costs a tenth of a
    second to import, which only pays off for big logs (the scanner says when it has read
    :data:`NUMPY_AFTER` bytes).
    """
    if not big or end - start < NUMPY_SPAN:
        return block.count(b"\n", start, end)
    import numpy

    view = numpy.frombuffer(block, dtype=numpy.uint8, count=end - start, offset=start)
    return int(numpy.count_nonzero(view == _NEWLINE))


# Measured on this bench's log (docs/ci-logs.md): numpy's import costs what ``bytes.count`` spends on about
# 200 MB, and it counts a span of 8 KiB in half the time (less than that, the call costs more than it saves).
NUMPY_AFTER = 256 << 20
NUMPY_SPAN = 8 << 10


def _read_on(
    block: bytes,
    cursor: int,
    number: int,
    limit: int,
    analyser: Analyser,
    candidates: list[int],
    lines: _Lines,
) -> tuple[int, int, bool]:
    """Inside a block: feed the next line, or jump over the rest of a step's header, which the runner claims
    line by line anyway (the step's script, not its output). Returns the next line and whether one was fed.

    :param candidates: the prefilter's candidate lines of the block (every ``##[`` line is one).
    :param lines: the line numbers of the candidates and of the block's end.
    """
    last = analyser.header_end
    if last is not None:
        stop, after = _header_rest(block, cursor, number, limit, last, candidates, lines)
        if stop >= limit:
            return stop, after, False
        # The line jumped to ends the header (its ``##[endgroup]`` or the line past its limit): fed next.
        cursor, number = stop, after
    cursor, number = _feed_next(block, cursor, number, analyser, lines)
    return cursor, number, True


def _header_rest(
    block: bytes, cursor: int, number: int, limit: int, last: int, candidates: list[int], lines: _Lines
) -> tuple[int, int]:
    """Where the open step header ends: the line of its ``##[endgroup]``, or line ``last + 1``, whichever
    comes first (or the block's end), with its number.

    The runner parser counts a header by line number (:data:`~.blocks.HEADER_LINES` from its
    ``##[group]Run`` line), so the line jumped to ends it just as when every line is fed.
    """
    allowed = last - number + 1
    if allowed <= 0:
        return cursor, number
    if allowed == HEADER_LINES and (known := lines.header_end(cursor)) is not None:
        return known  # the header opened on the line before: the read-ahead child found where it ends
    close = _endgroup_line(block, candidates, cursor, limit, allowed)
    # A real step's script is a few lines long: its ``##[endgroup]`` is near, and counting up to it is cheap.
    if close != -1 and close - cursor <= HEADER_BYTES:
        after = lines.number(cursor, number, close)
        if after - number <= allowed:
            return close, after
    # Matched from the last line known to lie before the header's limit: fewer lines to match.
    start, start_number = lines.known_before(cursor, number, number + allowed)
    reach = whole_lines(number + allowed - start_number).match(block, start, limit)
    end = limit if reach is None else reach.end()
    if close != -1 and close < end:
        return close, lines.number(cursor, number, close)
    return end, number + allowed if reach is not None else lines.number(cursor, number, end)


#: Up to where the lines before an ``##[endgroup]`` are counted rather than matched.
HEADER_BYTES = 16 << 10


def _endgroup_line(block: bytes, candidates: list[int], start: int, stop: int, lines: int) -> int:
    """The start of the first line in ``block[start:stop]`` holding ``##[endgroup]`` among its first
    ``lines + 1`` candidate lines, else -1: each candidate is a line of its own, so one further on lies more
    than ``lines`` lines past ``start``.

    Every line holding ``##[`` is a prefilter candidate (an anchor without a check), so only the candidates
    are looked at: searching the bytes for it cost a tenth of the scan of a log with many steps, and a log
    made only of ``##[`` lines still has each line looked at once.
    """
    first = bisect_left(candidates, start)
    for position in range(first, min(len(candidates), first + lines + 1)):
        offset = candidates[position]
        if offset >= stop:
            break
        end = block.find(b"\n", offset)
        if block.find(b"##[endgroup]", offset, end if end != -1 else len(block)) != -1:
            return offset
    return -1


def _is_hit(text: str, analyser: Analyser) -> bool:
    """Whether a candidate line is a finding's trigger; a ``::add-mask::`` line only registers its value."""
    if "::add-mask::" in text:  # a prefilter anchor, so every such line is seen (DESIGN §6)
        analyser.masks.add(masked_values([text]))
        return False
    return is_trigger(text)


def _drain(analyser: Analyser) -> Iterator[Finding]:
    while analyser.found:
        yield analyser.found.popleft()


def _feed_next(block: bytes, cursor: int, number: int, analyser: Analyser, lines: _Lines) -> tuple[int, int]:
    end = block.find(b"\n", cursor)
    stop = end if end != -1 else len(block)
    analyser.place = (block, cursor, number)
    text = lines.cleaned(cursor)
    if text is None:
        text = clean_line(block[cursor : min(stop, cursor + analyser.limits.max_line_bytes)])
    analyser.feed(number, text)
    return stop + 1, number + 1


def _feed_context(
    block: bytes,
    cursor: int,
    offset: int,
    hit_number: int,
    fed_through: int,
    previous: Span,
    analyser: Analyser,
    found: Prefetched | None,
) -> None:
    """Feed the lines before a hit that were not fed yet, from this block and the previous one.

    :param found: the child's description of the block, with these lines cleaned (those of the block before
        are cleaned here).
    """
    cap = analyser.limits.max_line_bytes
    lines = _lines_before(block, cursor, offset, hit_number)
    wanted = CONTEXT_BEFORE - len(lines)
    if wanted > 0 and cursor == 0:
        lines = [(number, raw, -1) for number, raw in previous_lines(previous, wanted)] + lines
    fresh = [(number, raw[:cap], start) for number, raw, start in lines if number > fed_through]
    if found is not None and all(start in found.starts for _, _, start in fresh):
        for number, _, start in fresh:
            analyser.feed(number, found.cleaned[start], starts=found.starts[start])
        return
    wordy = wordy_lines([raw for _, raw, _ in fresh])
    for index, (number, raw, _) in enumerate(fresh):
        text = clean_line(raw)
        analyser.feed(number, text, starts=may_start(text, wordy=index in wordy))


def _lines_before(block: bytes, floor: int, end: int, next_number: int) -> list[tuple[int, bytes, int]]:
    """:func:`~gauntlet.ingest.log.locator.last_lines` (:data:`CONTEXT_BEFORE` of them) with their starts."""
    lines: list[tuple[int, bytes, int]] = []
    position = end - 1
    number = next_number - 1
    rfind = block.rfind
    while len(lines) < CONTEXT_BEFORE and position >= floor:
        start = max(rfind(b"\n", floor, position) + 1, floor)
        lines.append((number, block[start:position], start))
        number -= 1
        position = start - 1
    lines.reverse()
    return lines
