"""The prefilter: find the few lines worth parsing at memory-search speed.

Almost every line of a CI log is noise. The anchors below (short literals, each
with a check of what stands at it) are searched over a whole chunk at once, so
the cost is a pass or a few over the bytes instead of Python work per line. Three
searches give the same lines, and the first one installed runs (:data:`BACKENDS`):
Rust's aho-corasick (one SIMD pass for all literals, then the checks), Hyperscan
(one pass of :data:`HYPERSCAN_PATTERNS`) and ``bytes.find`` (a pass per anchor,
then the checks). A candidate line is then confirmed by :func:`is_trigger` on that
one line before any parser sees it, so a broad anchor costs little. Output that
carries no anchor of its own (go vet, a bare ``Killed``) is still read: the scanner
feeds the lines before every confirmed hit, and a failed step always ends in
one (``##[error]Process completed with exit code 1``, ``make: *** Error 2``).

Invariant: the first line of every block a parser recognises either contains an
anchor and passes :func:`is_trigger`, or passes :func:`may_start` and lies within the context fed before such
a line.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from itertools import accumulate
from typing import cast

__all__ = [
    "ANCHORS",
    "ANCHOR_CHECKS",
    "BACKENDS",
    "HYPERSCAN_PATTERNS",
    "Search",
    "candidate_offsets",
    "grep_pattern",
    "is_trigger",
    "loads",
    "may_start",
    "searcher",
    "wordy_lines",
]

#: Finds the starts of the candidate lines of a chunk, sorted and unique.
Search = Callable[[bytes], list[int]]

# Colour codes may sit between a word and its punctuation (``error[E0425]\x1b[0m:``).
_ANSI_GAP = rb"(?:\x1b\[[0-9;]*[A-Za-z])*"
# A word starts after a non-word byte or right after a colour code (``\x1b[31merror``); a look-behind has a
# fixed width, so one per length of the code's parameters (16 is a 24-bit colour's ``38;2;255;255;255``).
_WORD_START = rb"(?:(?<!\w)|" + b"|".join(rb"(?<=\x1b\[[0-9;]{%d}[A-Za-z])" % n for n in range(17)) + rb")"
# ``failed`` unless a count of none (``0 failed``); ``fail``, ``failing``, ``Failures: 2`` as words.
_FAIL = (
    rb"[Ff]ailed(?:(?<!0 .ailed)|(?<=\d0 .ailed))"
    rb"|(?<!\w)[Ff]ail(?:ing|ure(?:[^s\w]|Type|\r?$)|ures:(?: [1-9]|\r?$)|\b)"
)
#: Each anchor is a literal searched for in the whole chunk with, where a bare occurrence is mostly no
#: failure (``test_error_handling``, ``0 failed``, ``exit 0``), what must stand at it for its line to be a
#: candidate (matched at the occurrence; a look-behind sees the bytes before it). Together they accept every
#: line :data:`HYPERSCAN_PATTERNS` accepts, and a few more that :func:`is_trigger` then drops.
ANCHOR_CHECKS: tuple[tuple[bytes, re.Pattern[bytes] | None], ...] = tuple(
    (literal, None if check is None else re.compile(check, re.MULTILINE))
    for literal, check in (
        # error:, error[E0308], ##[error], npm error; not -Werror or test_error_handling
        (b"error", _WORD_START + rb"error" + _ANSI_GAP + rb"(?:[:\[\] !]|\r?$)"),
        (b"Error", rb"Error" + _ANSI_GAP + rb"(?:[:\[ .)]|\r?$)"),  # TypeError:, Error 1, BUILD Error.
        (b"ERR", rb"ERR(?:OR|!|_)"),  # ERROR, npm ERR!, ERR_PNPM_*
        (b"FAIL", None),  # FAILED, FAILURES, --- FAIL, BUILD FAILURE
        (b"fail", _FAIL),
        (b"Fail", _FAIL),
        (b"panic", rb"panic(?:ked|:)"),
        (b"Traceback", None),
        (b"xit ", rb"xit (?:code|status|with)"),  # exit code, Exit status
        (b"xited", rb"xited with"),
        (b"Segmentation", None),
        # flake8/ruff/pylint and golangci-lint print no keyword at all (and a plain log of theirs has no
        # runner's exit line to feed them as context).
        (b".py:", rb"\.py:\d"),
        (b".go:", rb"\.go:\d+:"),
        (b">> Issue:", None),  # bandit
        (b",-[", None),  # miette's arrow (oxc, swc, biome): ``,-[src/a.js:4:1]`` under its ``  x message``
        (b"##[", None),  # GitHub's step boundaries: where a step starts, what it ran
        (b"would reformat ", None),  # black
        (b"Code style issues", None),  # prettier
        (b"coverage threshold", None),  # jest
        (b"::add-mask::", None),  # not a failure: a value to redact (the scanner takes it, no parser sees it)
    )
)
ANCHORS: tuple[bytes, ...] = tuple(literal for literal, _ in ANCHOR_CHECKS)

# What a failure line looks like, in two cheap parts: shapes at the start of a line (tried only there) and
# fragments anywhere in it. Every alternative of the second starts with a literal character, which lets
# ``re`` skip positions quickly. A prefilter hit that matches neither is dropped before any parsing.
_AT_START = re.compile(
    "|".join(
        (
            r"\#\#\[|::error|E:\ |e:\ |CMake\ Error|\#\ \S+$|----\ |={3,}\ (?!RUN|PAUSE|CONT|NAME)|Error\b",
            r"Exception\ in\ thread",
            r"Failures:$|Failed\ examples|npm\ (?:ERR!|error)|error\ |\[ERROR\]|Terminated$|timeout:\ ",
            r"would\ reformat\ |\[warn\]\ Code\ style|Jest:\ .*coverage\ threshold|Fatal\ Python\ error",
            r"thread\ '|panic:\ |rspec\ \./|Could\ not\ find\ gem|Bundler|Your\ bundle|Gem::|\S+\.(?:py|pyi):\d",
            r"\S+\.go:\d+:|>>\ Issue:",
            r"\s*(?:[●×✕]\ |\d+\)\ |not\ ok\ |\d+/\d+\ Test\ |\d+\ -\ )|\*\*\ \(|\[error\]\ \S+\.scala:",
        )
    )
)
_ANYWHERE = re.compile(
    "|".join(
        (
            r"error(?:\[E\d+\])?:|error\ TS\d|\ \ error\ \ |Error:\ |Error\ \d|Exception:\ |ERROR|ERR!|ERR_|FAIL",
            r"failed|Failed|failing|failureType|failures?:|errors?:$|panicked\ at",
            r"exit\ code|exit\ status|exited\ with|Exited\ with",
            r"Traceback|Segmentation\ fault|Killed|Aborted|not\ found$|not\ ok\ \d|-->\ |,-\[",
            r"\.py:\d+:\d+:\ [A-Z]|\.py:\d+:\ error|Error\)$|\ error\ [A-Z]+\d+:",
        )
    )
)
# Lines without an anchor that a parser still needs to see when they sit just before a hit: the cause
# printed above a failed step's exit (a refused connection, a kill, a go vet line, an apt error).
# Two parts, as for triggers: ``re`` tries every alternative at every position of a search, so the shapes that
# only stand at a line's start are matched there alone (twice as fast on the lines fed as context). Every
# alternative starts with a literal character, so that ``re`` skips the positions no alternative can start at:
# ``line N`` checks its word boundary behind its ``l`` (a leading ``\b`` made the search three times slower).
_HINT_ANYWHERE = re.compile(
    r"""onnect|ECONN|ETIMEDOUT|EAI_AGAIN|resolve\ host|Temporary\ failure|Name\ or\ service|returned\ error
      |Too\ Many|toomanyrequests|rate\ limit|hung\ up|unreachable|handshake|i/o\ timeout|Docker\ daemon
      |lost\ communication|shutdown\ signal|maximum\ execution|No\ space\ left|canceled
      |undefined\ reference|multiple\ definition|cannot\ find\ -l|Undefined\ symbols|out\ of\ memory|Out\ of\ memory
      |OOMKilled|MemoryError|\.go:\d+:\d+:\ |not\ recognized|ELIFECYCLE|Bus\ error|\.go:\d+:[ ]
      |l(?<=\bl)ine\ \d+\b|DATA\ RACE|No\ rule\ to\ make|\.rb:\d+:\d+:\ """,
    re.VERBOSE,
)
_HINT_AT_START = re.compile(
    r"""\[warn\][ ]|(?:[\w.+-]+:\ )?(?:[A-Za-z]:\\)?[^\s:]+\.[A-Za-z][\w+-]*:(?:[A-Za-z_]\w{0,100}:)?\d+:
      |==\d+==\ |>>\ Issue:|\s+Location:[ ]|―{3,}[ ]|\s*╭─\[|\s*┌─[ ]
      |\s+\d+:\d+\s+(?:✖|⚠|error|warning)\s""",
    re.VERBOSE,
)


# A count of nothing (``0 failed``, ``Failures: 0``) is what passing summaries print; such a line is a trigger
# only if a failure word is left once the zero counts are taken out.
_ZERO_COUNT = re.compile(r"\b0 (?:failed|failures?|errors?)\b|\b(?:[Ff]ailures|[Ee]rrors|[Ff]ailed): 0\b")


def is_trigger(text: str) -> bool:
    """True when a cleaned line that contains an anchor looks like a failure line worth parsing."""
    if _AT_START.match(text) is not None:
        return True
    match = _ANYWHERE.search(text)
    if match is None:
        return False
    return _ZERO_COUNT.search(text) is None or _ANYWHERE.search(_ZERO_COUNT.sub("", text)) is not None


def may_start(text: str, *, wordy: bool = True) -> bool:
    """True when a context line could start a parser's block (or carries state a parser keeps).

    :param wordy: False when its raw line is known to hold none of the words of the shapes that may stand
        anywhere in a line (see :func:`wordy_lines`): only the shapes at its start are tried.
    """
    if not wordy:
        return _AT_START.match(text) is not None or _HINT_AT_START.match(text) is not None
    return is_trigger(text) or _HINT_AT_START.match(text) is not None or _HINT_ANYWHERE.search(text) is not None


#: Every match of :data:`_ANYWHERE` and :data:`_HINT_ANYWHERE` holds one of these words (a property test in
#: test_prefilter.py generates their matches), and cleaning a line only takes bytes off its ends unless the line
#: holds a control byte (an ANSI escape, ``\r``), which could join words. So a raw line with neither matches
#: neither. No word starts inside another that wants a digit, so none is hidden by a match that is then refused.
_WORDS = (
    *(b"error:", b"error[", b"error ", b"errors:", b"returned error", b"Bus error", b"Error: ", b"Error ", b"Error)"),
    *(b"MemoryError", b"Exception: ", b"ERROR", b"ERR!", b"ERR_", b"FAIL", b"failed", b"failing", b"failure"),
    *(b"Failed", b"panicked at", b"exit code", b"exit status", b"exited with", b"Exited with", b"Traceback"),
    *(b"Segmentation fault", b"Killed", b"Aborted", b"not found", b"--> ", b",-[", b"onnect", b"ECONN"),
    b"ETIMEDOUT",
    *(b"EAI_AGAIN", b"resolve host", b"Name or service", b"Too Many", b"toomanyrequests", b"rate limit", b"hung up"),
    *(b"unreachable", b"handshake", b"i/o timeout", b"Docker daemon", b"lost communication", b"shutdown signal"),
    *(b"maximum execution", b"No space left", b"canceled", b"undefined reference", b"multiple definition"),
    *(b"cannot find -l", b"Undefined symbols", b"out of memory", b"Out of memory", b"OOMKilled", b"not recognized"),
    *(b"ELIFECYCLE", b"DATA RACE", b"No rule to make"),
)
#: Words the shapes want a digit after (``\d`` also takes other scripts' digits, which are not ASCII).
_BEFORE_DIGIT = (b".py:", b".go:", b".rb:", b"line ", b"not ok ")
_CONTROL_BYTE = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]")
_ASCII_NON_DIGITS = frozenset(range(0x80)) - frozenset(b"0123456789")


@functools.cache
def _word_finder() -> Callable[[bytes], list[tuple[int, int, int]]] | None:
    """The words' search (aho-corasick, one pass), or None where ``ahocorasick-rs`` is not installed."""
    try:
        import ahocorasick_rs
    except ImportError:
        return None
    automaton = ahocorasick_rs.BytesAhoCorasick(
        [*_WORDS, *_BEFORE_DIGIT], matchkind=ahocorasick_rs.MATCHKIND_LEFTMOST_FIRST
    )
    return automaton.find_matches_as_indexes


def wordy_lines(raws: Sequence[bytes]) -> set[int]:
    """The indexes of the raw lines that may hold a shape :func:`may_start` looks for anywhere in a line.

    One pass over the lines fed as context before a hit, instead of two searches per line: most context lines
    hold none of these words, and for them only the (cheap) shapes at a line's start are left to try. Without
    ``ahocorasick-rs`` every line is taken as wordy.
    """
    find = _word_finder()
    if find is None:
        return set(range(len(raws)))
    joined = b"\n".join(raws)
    hits = [match.start() for match in _CONTROL_BYTE.finditer(joined)]
    plain = len(_WORDS)
    for index, start, end in find(joined):
        # ``x.py::test`` is no ``x.py:12``: a word that wants a digit is no hit before an ASCII non-digit.
        if index < plain or (end < len(joined) and joined[end] not in _ASCII_NON_DIGITS):
            hits.append(start)
    starts = [0, *accumulate(len(raw) + 1 for raw in raws)]
    return {bisect_right(starts, hit) - 1 for hit in hits}


# The same anchors for Hyperscan (which has no look-behind), a little sharper so that "test_error_handling"
# or "Failures: 0" are not hits at all. Each hit contains an anchor whose check accepts it, so a Hyperscan
# hit is always a hit of the other searches too.
HYPERSCAN_PATTERNS: tuple[bytes, ...] = (
    rb"(?:\b|\x1b\[[0-9;]*[A-Za-z])error" + _ANSI_GAP + rb"(?:[:\[\] !]|\r?$)",  # colour may lead the word
    rb"Error" + _ANSI_GAP + rb"(?:[:\[ .)]|\r?$)",
    rb"ERR(?:OR|!|_)",  # the literals are what Hyperscan searches for: a longer one has fewer false hits
    rb"FAIL",
    # ``failed`` but not a count of none (``0 failed``); ``Failure`` as a word, not in ``TestRetryOnFailure_3``.
    rb"(?:^|[^ ]|[^0] |\d0 )[Ff]ailed",
    rb"\b[Ff]ail(?:ing|ure(?:[^s\w]|Type|\r?$)|ures:(?: [1-9]|\r?$)|\b)",
    rb"panic(?:ked|:)",
    rb"Traceback",
    rb"xit code|xit status|xited with|xit with",
    rb"Segmentation",
    rb"\.py:\d",
    rb"\.go:\d+:",
    rb">> Issue:",
    rb"##\[",
    rb"^(?:\S+ )?would reformat ",
    rb"Code style issues",
    rb"coverage threshold",
    rb"::add-mask::",
)


def _stdlib_offsets(chunk: bytes) -> list[int]:
    starts: set[int] = set()
    find = chunk.find
    rfind = chunk.rfind
    for anchor, check in ANCHOR_CHECKS:
        position = find(anchor)
        while position != -1:
            if check is not None and check.match(chunk, position) is None:
                position = find(anchor, position + 1)
                continue
            starts.add(rfind(b"\n", 0, position) + 1)
            # Skip the rest of this line: one hit per line is enough.
            end = find(b"\n", position)
            if end == -1:
                break
            position = find(anchor, end)
    return sorted(starts)


# What may follow an anchor where its check asks for it: the multi-literal search looks for these longer
# literals instead (fewer false hits: ``test_error_handling``, pytest's ``test_x.py::test_y``). At most 64
# literals in all keep the crate's SIMD search; a bare ``error`` that ends the input is looked at apart.
_FOLLOWERS = {b"error": b":[] !\x1b\r\n", b"Error": b":[ .)\x1b\r\n", b".py:": b"0123456789", b".go:": b"0123456789"}


def _ahocorasick_search() -> Search | None:
    """All anchors in one pass (Rust's aho-corasick, SIMD-accelerated), or None where it is not installed."""
    try:
        import ahocorasick_rs
    except ImportError:  # the stdlib search gives the same lines, a pass per anchor
        return None
    literals: list[bytes] = []
    checks: list[re.Pattern[bytes] | None] = []
    for anchor, check in ANCHOR_CHECKS:
        followers = _FOLLOWERS.get(anchor)
        for literal in [anchor + bytes([byte]) for byte in followers] if followers else [anchor]:
            literals.append(literal)
            checks.append(check)
    # Leftmost-first is the kind the crate accelerates (with the standard kind it walks the automaton a byte
    # at a time); no anchor starts inside another, so none hides one that matters.
    automaton = ahocorasick_rs.BytesAhoCorasick(literals, matchkind=ahocorasick_rs.MATCHKIND_LEFTMOST_FIRST)
    bare_end = tuple(anchor for anchor in _FOLLOWERS if b"\n" in _FOLLOWERS[anchor])

    def search(chunk: bytes) -> list[int]:
        starts: list[int] = []
        find = chunk.find
        rfind = chunk.rfind
        line_end = -1  # end of the last line taken: its other occurrences need no check
        for index, start, _end in automaton.find_matches_as_indexes(chunk):
            if start < line_end:
                continue
            check = checks[index]
            if check is not None and check.match(chunk, start) is None:
                continue
            starts.append(rfind(b"\n", 0, start) + 1)
            line_end = find(b"\n", start)
            if line_end == -1:
                return starts
        if chunk.endswith(bare_end) and (last := rfind(b"\n") + 1) not in starts[-1:]:
            starts.append(last)
        return starts

    return search


def _hyperscan_search() -> Search | None:
    """A Hyperscan database of :data:`HYPERSCAN_PATTERNS`, or None where Hyperscan cannot load."""
    try:
        import hyperscan
    except ImportError:  # an architecture without wheels: the stdlib search gives the same lines
        return None
    database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    database.compile(
        expressions=list(HYPERSCAN_PATTERNS),
        ids=list(range(len(HYPERSCAN_PATTERNS))),
        elements=len(HYPERSCAN_PATTERNS),
        flags=[hyperscan.HS_FLAG_MULTILINE] * len(HYPERSCAN_PATTERNS),
    )
    scratch = hyperscan.Scratch(database)

    def search(chunk: bytes) -> list[int]:
        ends: list[int] = []
        append = ends.append

        def on_match(_id: int, _start: int, end: int, _flags: int, _context: object) -> None:
            append(end)

        # A scratch space serves one scan at a time: a clone (well under a microsecond) keeps this re-entrant.
        database.scan(chunk, match_event_handler=on_match, scratch=scratch.clone())
        rfind = chunk.rfind
        return sorted({rfind(b"\n", 0, end) + 1 for end in ends})

    return search


#: The searches, fastest first (measured in docs/ci-logs.md: aho-corasick's SIMD pass and its checks take
#: half the time of Hyperscan's scan, and it loads in a millisecond where Hyperscan compiles its patterns).
BACKENDS: dict[str, Callable[[], Search | None]] = {
    "ahocorasick": _ahocorasick_search,
    "hyperscan": _hyperscan_search,
    "stdlib": lambda: _stdlib_offsets,
}


@functools.cache
def _loaded(backend: str) -> Search | None:
    return BACKENDS[backend]()


def loads(backend: str) -> bool:
    """Whether the search ``backend`` (a key of :data:`BACKENDS`) can run here."""
    return backend in BACKENDS and _loaded(backend) is not None


def searcher(backend: str = "auto") -> Search:
    """The function that finds candidate lines in a chunk (see :func:`candidate_offsets`).

    :param backend: a key of :data:`BACKENDS`, or ``auto`` for the first that loads here; one that does not
        load falls back the same way. Only the search chosen is loaded.
    """
    if loads(backend):
        return cast(Search, _loaded(backend))
    return next(search for name in BACKENDS if (search := _loaded(name)) is not None)


def candidate_offsets(chunk: bytes, *, backend: str = "auto") -> list[int]:
    """Offsets of the starts of the lines in ``chunk`` that contain an anchor, sorted and unique.

    :param backend: ``ahocorasick`` (one pass for all anchors, then their checks), ``hyperscan`` (one pass,
        :data:`HYPERSCAN_PATTERNS`), ``stdlib`` (a ``bytes.find`` pass per anchor, then their checks) or
        ``auto`` (the first of these that loads).
    """
    return searcher(backend)(chunk)


def grep_pattern() -> str:
    """The same anchors as one ``grep -E`` pattern, for benchmarks against grep (without their checks)."""
    return "|".join("".join("\\" + c if c in "[](){}.*+?|^$\\" else c for c in a.decode()) for a in ANCHORS)
