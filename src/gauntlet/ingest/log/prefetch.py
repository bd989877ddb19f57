"""The prefilter's pass in a second process, one block ahead of the scanner, on big log files.

Finding a block's candidate lines, counting its newlines, cleaning and confirming its candidates and cleaning
the lines before its hits need no state, and they are half the scan of a big log; feeding the analyser is
the rest, and only one process can do that. So on a big regular file and a machine with two cores or more, a
forked child reads the same file (at its own offsets) in the same blocks and sends for each one, through a
pipe, its candidates with their line numbers and kinds and the cleaned text of the lines the scanner will
feed, while the parent feeds the lines of the block before. The pipe's buffer bounds how far ahead the child
gets, so memory stays flat.

``gauntlet ingest`` starts the child of the first big log it is given before the parsers and pydantic load
(:func:`read_ahead_paths`; this module and what it imports need neither), so that the child's pass runs while
they do: a fifth of a second, about as long as the child takes over 100 MB.

The parent checks that every block it reads is the one the child describes (same size, same end of its whole
lines); on any difference, a child that died, or a platform without ``fork``, the scanner does the work
itself: the findings are the same either way, only the time differs.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import stat
import struct
import sys
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from io import SEEK_CUR
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, TypeAlias, cast

from gauntlet.ingest.formats import HEAD_BYTES, detect_format
from gauntlet.ingest.limits import DEFAULT_LIMITS, Limits
from gauntlet.ingest.log.blocks import CONTEXT_BEFORE, HEADER_LINES, iter_blocks, whole_lines
from gauntlet.ingest.log.prefilter import is_trigger, may_start, searcher, wordy_lines
from gauntlet.ingest.log.text import clean_line

if TYPE_CHECKING:  # the locator compiles its patterns at import: in the child, after the fork, and where used
    from gauntlet.ingest.log.locator import Located, Span

__all__ = ["HIT", "MASK", "MIN_BYTES", "UNKNOWN", "Ahead", "Blocks", "Prefetched", "read_ahead", "read_ahead_paths"]

#: Below this the fork and the pipe cost more than they save (a fork is a millisecond or two; the scan of
#: 16 MB about 50 ms, of which the child takes half).
MIN_BYTES = 16 << 20
#: How far (in descriptions, about 20 KiB a block on a busy log) the child may run ahead where Linux allows it.
PIPE_BYTES = 1 << 20
#: Past this many candidates in a block the child gives only their line numbers (see :func:`_describe`).
MAX_DESCRIBED = 4096
#: The child reads back and locates failed steps only while this much it wrote waits in the pipe (a few blocks'
#: descriptions): ahead of the parent, it has the time; behind, the parent would only wait longer for it.
AHEAD_BYTES = 64 << 10
#: Of a block's failed steps the child reads back and locates at most this many lines (the rest: the analyser), so
#: that a block's description stays a few MB at most (a line the locator reads is cut at 512 characters).
MAX_STEP_LINES = 16384
#: How the scanner cuts a stream into blocks (``block[:end]`` whole lines): the child cuts the file the same way.
Blocks = Callable[[BinaryIO, Limits], Iterator[tuple[bytes, int]]]
#: What a candidate line is: no trigger, a finding's trigger, a ``::add-mask::`` line (a value to redact), or
#: not looked at (a block past :data:`MAX_DESCRIBED`: the scanner cleans and confirms it).
SKIP, HIT, MASK, UNKNOWN = 0, 1, 2, 3
# Per block: its size, the end of its whole lines, the number of candidates, its newlines up to that end,
# the numbers of lines described and of context lines among them, the size of their texts and the number of
# header jumps; then the candidates' offsets, their line indexes in the block and their kinds; the described
# lines' starts and whether each is a context line (one the scanner may feed before a hit), the context lines'
# ``may_start`` flags; the jumps' starts, where each lands and that line's index; the described lines' texts;
# the failed steps located (``marshal``: each exit line's number, the step's texts and what the locator found).
_HEADER = struct.Struct("<9q")
#: What the scanner's analyser takes of a failed step the child read: its lines and where the locator placed it.
Step: TypeAlias = "tuple[list[tuple[int, str]], Located | None]"


@dataclass(frozen=True, slots=True)
class Prefetched:
    """What the child found in one block."""

    size: int
    limit: int
    #: The starts of the candidate lines, sorted (as :func:`~gauntlet.ingest.log.prefilter.searcher` gives).
    candidates: list[int]
    #: :data:`SKIP`, :data:`HIT`, :data:`MASK` or :data:`UNKNOWN` per candidate.
    kinds: bytes
    #: The number of newlines before each candidate, and before ``limit`` (the block's line count).
    lines: dict[int, int]
    #: The same for the candidates only, in their order.
    numbers: list[int]
    #: The cleaned text of each candidate line and of the lines the scanner may feed before a hit, by start.
    cleaned: dict[int, str]
    #: By start, of each line cleaned to be fed before a hit: whether it may start a parser's block
    #: (:func:`~gauntlet.ingest.log.prefilter.may_start`; a line only cleaned has no entry).
    starts: dict[int, bool]
    #: By the start of the line after each step header's ``##[group]Run`` in the block: where the scanner's
    #: jump over the header lands, and that line's index in the block (when it lies in the block).
    jumps: dict[int, tuple[int, int]]
    #: By the number of each ``##[error]`` exit line (a step's end, when it failed): the step read back from it
    #: and located (:func:`~.locator.read_step_back`, :func:`~.locator.locate`), as the analyser would.
    steps: dict[int, Step]


def read_ahead(source: object, limits: Limits, backend: str, blocks: Blocks, context: int) -> Ahead | None:
    """Start the child for ``source`` when it is a big regular file and a second core is there, else None.

    :param blocks: how the scanner cuts a stream into blocks
        (:func:`~gauntlet.ingest.log.scanner.iter_blocks`): the child cuts the file the same way, and the
        iterator returned yields one :class:`Prefetched` per block (it ends early if the child stops; closing
        it ends the child).
    :param context: how many lines before a hit the scanner feeds: the child cleans them.
    """
    fork = getattr(os, "fork", None)
    fileno = getattr(source, "fileno", None)
    # Forking a process with threads can leave the child a lock no thread will release (the sandbox runs some).
    threading = sys.modules.get("threading")
    threaded = threading is not None and threading.active_count() > 1
    if fork is None or fileno is None or threaded or _cores() < 2:
        return None
    stream: BinaryIO = source  # type: ignore[assignment]  # has fileno, tell and read: a binary file
    try:
        descriptor = fileno()
        info = os.fstat(descriptor)
        start = stream.tell()
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size - start < MIN_BYTES:
        return None
    read_end, write_end = os.pipe()
    _widen(write_end)
    pid = fork()
    if pid == 0:  # pragma: no cover - the child's coverage is not collected
        os.close(read_end)
        status = 1
        try:
            _child(_Reader(descriptor, start), limits, backend, blocks, context, write_end)
            status = 0
        finally:
            # No interpreter shutdown in the child: the parent's buffers (stdout) must not be flushed twice.
            os._exit(status)
    os.close(write_end)
    return Ahead(read_end, pid)


def read_ahead_paths(paths: Iterable[Path], fmt: str, limits: Limits = DEFAULT_LIMITS) -> dict[Path, Ahead]:
    """Start the child of the first big log among ``paths`` now, before the parsers load; by path.

    A log is what :func:`~gauntlet.ingest.formats.detect_format` tells from the file's head, as when the file
    is read (``fmt`` ``auto``), or every file (``log``). One child at most: the next logs' children start when
    their scans do, so that no more than one waits with a full pipe.

    :param fmt: the format every path is read as (``ingest --format``).
    """
    if fmt not in ("auto", "log"):
        return {}
    for path in paths:
        try:
            # Nothing is opened but a big regular file: opening a named pipe would wait for its writer.
            info = path.stat()
            if not stat.S_ISREG(info.st_mode) or info.st_size < MIN_BYTES:
                continue
            with path.open("rb") as stream:
                if fmt == "auto" and detect_format(stream.read(HEAD_BYTES)).format != "log":
                    continue
                stream.seek(0)
                ahead = read_ahead(stream, limits, "auto", iter_blocks, CONTEXT_BEFORE)
        except OSError:
            continue  # reported when the file is read
        if ahead is not None:
            return {path: ahead}
    return {}


def _widen(pipe: int) -> None:
    """Let the child run up to :data:`PIPE_BYTES` ahead (a pipe holds 64 KiB, three blocks' descriptions), so
    that a moment when the other core is busy elsewhere does not stall the scanner at once."""
    import fcntl  # where there is fork, there is fcntl

    setsize = getattr(fcntl, "F_SETPIPE_SZ", None)  # Linux only
    if setsize is not None:
        with contextlib.suppress(OSError):  # above the system's limit for unprivileged users: the default size
            fcntl.fcntl(pipe, setsize, PIPE_BYTES)


def _queued(pipe: int) -> int | None:
    """How many bytes written to ``pipe`` are not read yet, where the system tells (Linux), else None."""
    try:
        import termios
        from fcntl import ioctl

        count = array("i", [0])
        ioctl(pipe, termios.FIONREAD, count, True)
    except (ImportError, OSError):
        return None
    return count[0]


def _cores() -> int:
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


class _Reader:
    """The file read with ``pread`` at an offset of its own: the parent's reads do not move it."""

    def __init__(self, descriptor: int, position: int) -> None:
        self._descriptor = descriptor
        self._position = position

    def read(self, size: int) -> bytes:
        """Up to ``size`` bytes from the position on (fewer only at the end of the file)."""
        parts: list[bytes] = []
        wanted = size
        while wanted:
            part = os.pread(self._descriptor, wanted, self._position)
            if not part:
                break
            parts.append(part)
            self._position += len(part)
            wanted -= len(part)
        return b"".join(parts)

    def seekable(self) -> bool:
        """Yes: the scanner re-reads a block's unfinished last line with the next block, as from a file."""
        return True

    def seek(self, offset: int, whence: int = SEEK_CUR) -> int:
        """Move back or on from the current position (the only kind of seek the scanner makes)."""
        if whence != SEEK_CUR:
            raise ValueError("only relative seeks")
        self._position += offset
        return self._position


def _child(reader: _Reader, limits: Limits, backend: str, blocks: Blocks, context: int, write_end: int) -> None:
    """Describe every block ``reader`` gives into the pipe (see :data:`_HEADER`)."""
    search = searcher(backend)
    cap = limits.max_line_bytes
    header = _Header()
    # The standard library's search keeps the child the slower process already: it locates no steps then.
    locating = search is not searcher("stdlib")
    previous: Span = (b"", 0, 1)  # the block before, as the scanner hands it to the analyser
    with open(write_end, "wb") as out:
        try:
            for block, limit in blocks(cast(BinaryIO, reader), limits):
                # Only while ahead of the parent: when it waits for the next block, it would rather locate them.
                queued = _queued(write_end)
                located = previous if locating and (queued is None or queued >= AHEAD_BYTES) else None
                out.write(_describe(block, limit, search(block), cap, context, header, located))
                previous = (block, limit, header.first + 1)
        except BrokenPipeError:  # the parent stopped reading (a hostile log's cap, an error): nothing to do
            pass


class _Header:
    """The step header the runner parser holds open, as the child follows it from block to block.

    The scanner jumps over a step's header (``##[group]Run ...`` up to its ``##[endgroup]`` or
    :data:`~.blocks.HEADER_LINES` lines on: the runner claims them all), so the child leaves the candidates
    inside one undescribed (:data:`UNKNOWN`) and cleans no lines before them: on a log with long headers that
    is a third of its work. Where the scanner reads such a line after all (another parser was inside a block
    when the header opened), it cleans and confirms it itself, as past :data:`MAX_DESCRIBED`.
    """

    def __init__(self) -> None:
        #: Lines in the blocks before (the index of the current block's first line).
        self.first = 0
        #: The index of the last line inside the open header, or -1.
        self.last = -1

    def holds(self, line: int) -> bool:
        """Whether line ``line`` (its index in the input) lies inside the open header."""
        return line <= self.last

    def see(self, line: int, text: str) -> bool:
        """Follow a confirmed candidate line as the runner parser does: open a header at ``##[group]Run``
        outside one (its lines up to ``HEADER_LINES + 1`` on), close it at an ``##[endgroup]`` inside.

        :returns: whether a header opened at the line.
        """
        if self.holds(line):
            if text.startswith("##[endgroup]"):
                self.last = -1
            return False
        if text.startswith("##[group]Run "):
            self.last = line + HEADER_LINES + 1
            return True
        return False


def _describe(
    block: bytes,
    limit: int,
    candidates: list[int],
    cap: int,
    context: int,
    header: _Header,
    back: Span | None = None,
) -> bytes:
    """One block's description: its candidates' numbers and kinds, and the lines the scanner will clean.

    :param header: the step header open where the block starts; moved on to where it ends.
    :param back: the block before (see :attr:`.Analyser.previous`), to read failed steps back into; None to
        locate none.
    """
    numbers = array("q")
    kinds = bytearray()
    texts: dict[int, str] = {}  # line start: its cleaned text
    before: dict[int, bytes] = {}  # start: raw line, of the lines the scanner may feed before a hit
    count = block.count
    find = block.find
    seen = 0
    previous = 0
    # A flood of candidates (a hostile log, a cascade) is mostly cut short by the analyser's cap on lines fed:
    # its lines are left to the scanner, rather than held cleaned in both processes (memory) and mostly unread.
    flood = len(candidates) > MAX_DESCRIBED
    jumps = _Jumps(block, limit, candidates, numbers)
    steps: list[tuple[int, list[str], tuple[object, ...] | None]] = []
    step_lines = 0
    for offset in candidates:
        seen += count(b"\n", previous, offset)
        previous = offset
        numbers.append(seen)
        if flood:
            kinds.append(UNKNOWN)
            continue
        if seen > jumps.limit:
            jumps.passing(seen)
        end = find(b"\n", offset)
        stop = end if end != -1 else len(block)
        inside = header.first + seen <= header.last
        # Inside a header only a line that may close it is read (the scanner's jump lands on it: fed next).
        if inside and find(b"##[endgroup]", offset, stop) == -1:
            kinds.append(UNKNOWN)
            continue
        if inside:
            jumps.closing(offset, seen)
        text = clean_line(block[offset:stop][:cap])
        kind = MASK if "::add-mask::" in text else HIT if is_trigger(text) else SKIP
        kinds.append(kind)
        texts[offset] = text
        if kind == HIT and (inside or text.startswith("##[group]Run ")) and header.see(header.first + seen, text):
            jumps.opening(end + 1, seen)
        if kind == HIT and not inside and (not text.startswith("##[") or text.startswith("##[error]")):
            _before(block, offset, context, before, cap)
            # A failed step's exit (``##[error]Process completed with exit code 1.``): the analyser locates what
            # explains the step, from the lines before it, unless a parser did.
            if back is not None and text.startswith("##[error]") and "xit" in text and step_lines < MAX_STEP_LINES:
                from gauntlet.ingest.log.locator import locate, read_step_back

                number = header.first + seen + 1
                step = read_step_back((block, offset, number), back)
                found = locate(step)
                step_lines += len(step)
                place = None if found is None else (*_located_fields(found),)
                steps.append((number, [text for _, text in step], place))
    total = seen + count(b"\n", previous, limit) if previous <= limit else count(b"\n", 0, limit)
    header.first += total
    jumps.passing(total)
    for start, raw in before.items():
        if start not in texts:
            texts[start] = clean_line(raw)
    return _encode(block, limit, candidates, numbers, kinds, total, texts, before, jumps.found, steps)


def _located_fields(found: Located) -> tuple[int, int, int, str, str, float]:
    return found.start, found.end, found.line, found.message, found.kind, found.score


def _encode(
    block: bytes,
    limit: int,
    candidates: list[int],
    numbers: array[int],
    kinds: bytearray,
    total: int,
    texts: dict[int, str],
    before: dict[int, bytes],
    jumps: dict[int, tuple[int, int]],
    steps: list[tuple[int, list[str], tuple[object, ...] | None]],
) -> bytes:
    """A block's description as the pipe carries it (see :data:`_HEADER`)."""
    indexes = wordy_lines(list(before.values()))
    starts = list(texts)
    flags = bytes(start in before for start in starts)  # the context lines: their ``may_start`` flags follow
    # The analyser reads a line fed before a hit only if it may start a block: told here, not tried there.
    opening = {start: may_start(texts[start], wordy=index in indexes) for index, start in enumerate(before)}
    opens = bytes(opening[start] for start in starts if start in before)  # in the order of ``starts``
    joined = "\n".join(texts.values()).encode()
    located = marshal.dumps(steps) if steps else b""
    counts = (len(candidates), total, len(starts), len(before), len(joined), len(jumps), len(located))
    sizes = _HEADER.pack(len(block), limit, *counts)
    lands = (array("q", (land for land, _ in jumps.values())), array("q", (line for _, line in jumps.values())))
    body = (array("q", candidates), numbers, kinds, array("q", starts), flags, opens, array("q", jumps), *lands)
    return sizes + b"".join(body) + joined + located


class _Jumps:
    """Where the scanner's jump over each step header opened in a block lands (see
    :func:`~gauntlet.ingest.log.scanner._header_rest`): the first line after its ``##[group]Run`` that holds
    ``##[endgroup]``, or else the line :data:`~.blocks.HEADER_LINES` + 1 past it, whichever comes first (when
    that lies in the block's whole lines)."""

    def __init__(self, block: bytes, limit: int, candidates: list[int], numbers: Sequence[int]) -> None:
        self.block = block
        self.limit = limit
        self.candidates = candidates
        self.numbers = numbers
        #: By the start of the line after each header's ``##[group]Run``: where the jump lands, and its index.
        self.found: dict[int, tuple[int, int]] = {}
        self._open: tuple[int, int] | None = None  # the header being followed: its next line's start, its limit
        #: The line index past which :meth:`passing` has a header to end (checked before calling it: it is
        #: called for no other candidate).
        self.limit = len(block)

    def opening(self, after: int, line: int) -> None:
        """A header opens at line index ``line``; ``after`` is where its next line starts (0: no next line)."""
        if after:
            self._open = (after, line + HEADER_LINES + 1)
            self.limit = line + HEADER_LINES + 1

    def closing(self, offset: int, line: int) -> None:
        """The candidate at ``offset`` (line index ``line``, inside the header) holds ``##[endgroup]``."""
        if self._open is not None:
            self.found[self._open[0]] = (offset, line)
            self._open = None
            self.limit = len(self.block)

    def passing(self, line: int) -> None:
        """The candidates have reached line index ``line`` (or the block's end): a header whose limit lies
        before ends there, at the line counted from the last candidate before it."""
        if self._open is None or line <= self._open[1]:
            return
        after, target = self._open
        self._open = None
        self.limit = len(self.block)
        index = bisect_right(self.numbers, target) - 1
        reach = whole_lines(target - self.numbers[index]).match(self.block, self.candidates[index], self.limit)
        if reach is not None:
            self.found[after] = (reach.end(), target)


def _before(block: bytes, offset: int, context: int, lines: dict[int, bytes], cap: int) -> None:
    """Add up to ``context`` lines of ``block`` before the line at ``offset`` to ``lines`` (raw, cut)."""
    position = offset - 1
    for _ in range(context):
        if position < 0:
            break
        start = block.rfind(b"\n", 0, position) + 1
        if start not in lines:
            lines[start] = block[start:position][:cap]
        position = start - 1


class Ahead:
    """The child's descriptions, block by block; it ends when the child stops. :meth:`close` ends the child."""

    def __init__(self, read_end: int, pid: int) -> None:
        """Read what child ``pid`` writes to the pipe ``read_end``."""
        self.pid = pid
        self._pipe = open(read_end, "rb")  # noqa: SIM115 - closed by close(), the child's end with it

    def __iter__(self) -> Ahead:
        return self

    def __next__(self) -> Prefetched:
        if self.pid:
            found = self._read()
            if found is not None:
                return found
            self.close()
        raise StopIteration

    def close(self) -> None:
        """Close the pipe (the child exits at its next write) and reap the child; idempotent."""
        if self.pid:
            self._pipe.close()
            os.waitpid(self.pid, 0)
            self.pid = 0

    def __del__(self) -> None:
        self.close()

    def _read(self) -> Prefetched | None:
        header = self._pipe.read(_HEADER.size)
        if len(header) != _HEADER.size:
            return None
        size, limit, count, total, described, context_lines, text_size, jumped, located = _HEADER.unpack(header)
        length = 17 * count + 9 * described + context_lines + 24 * jumped + text_size + located
        body = self._pipe.read(length)
        if len(body) != length:
            return None
        view = memoryview(body)
        candidates = view[: 8 * count].cast("q").tolist()
        numbers = view[8 * count : 16 * count].cast("q").tolist()
        lines = dict(zip(candidates, numbers, strict=True))
        lines[limit] = total
        kinds = body[16 * count : 17 * count]
        at = 17 * count
        starts = view[at : at + 8 * described].cast("q").tolist()
        at += 8 * described
        context = [start for start, flag in zip(starts, body[at : at + described], strict=True) if flag]
        at += described
        opens = dict(zip(context, map(bool, body[at : at + context_lines]), strict=True))
        at += context_lines
        froms, lands, indexes = (
            view[at + 8 * jumped * part : at + 8 * jumped * (part + 1)].cast("q") for part in range(3)
        )
        jumps = dict(zip(froms.tolist(), zip(lands.tolist(), indexes.tolist(), strict=True), strict=True))
        at += 24 * jumped
        texts = body[at : at + text_size].decode().split("\n") if described else []
        cleaned = dict(zip(starts, texts, strict=True))
        steps = _steps(marshal.loads(body[at + text_size :])) if located else {}
        return Prefetched(size, limit, candidates, kinds, lines, numbers, cleaned, opens, jumps, steps)


def _steps(found: list[tuple[int, list[str], tuple[int, int, int, str, str, float] | None]]) -> dict[int, Step]:
    """The failed steps the child located, as the analyser takes them (see :attr:`Prefetched.steps`)."""
    from gauntlet.ingest.log.locator import Located

    steps: dict[int, Step] = {}
    for number, texts, place in found:
        first = number - len(texts)
        step = [(first + index, text) for index, text in enumerate(texts)]
        steps[number] = (step, None if place is None else Located(*place))  # type: ignore[arg-type]
    return steps
