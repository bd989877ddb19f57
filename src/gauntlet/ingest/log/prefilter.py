"""The prefilter: find the few lines worth parsing at memory-search speed.

Almost every line of a CI log is noise. Each anchor below is searched over a
whole chunk with ``bytes.find`` (CPython's fast search, gigabytes a second), so
the cost is a handful of passes over the bytes instead of Python work per line.
Anchors are deliberately broad fragments (``rror`` catches ``error``, ``Error``,
``TypeError``); a hit is then confirmed by :func:`is_trigger` on that one line
before any parser sees it, so a broad anchor costs little. Output that carries
no anchor of its own (go vet, a bare ``Killed``) is still read: the scanner
feeds the lines before every confirmed hit, and a failed step always ends in
one (``##[error]Process completed with exit code 1``, ``make: *** Error 2``).

Invariant: the first line of every block a parser recognises either contains an
anchor and passes :func:`is_trigger`, or passes :func:`may_start` and lies within the context fed before such
a line.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = [
    "ANCHORS",
    "ANCHOR_PATTERNS",
    "HYPERSCAN_PATTERNS",
    "candidate_offsets",
    "grep_pattern",
    "is_trigger",
    "may_start",
]

ANCHORS: tuple[bytes, ...] = (
    b"rror",  # error, Error, TypeError, ##[error]
    b"ERR",  # ERROR, npm ERR!, ERR_PNPM_*
    b"FAIL",  # FAILED, FAILURES, --- FAIL, BUILD FAILURE
    b"ail",  # fail, failed, Failures:, 1 failing
    b"anic",  # panic:, panicked at
    b"Traceback",
    b"xit",  # exit code, exited with, Exit status
    b"Segmentation",
    b"##[",  # GitHub's step boundaries: where a step starts, what it ran
    b"would reformat",  # black
    b"Code style issues",  # prettier
    b"coverage threshold",  # jest
    b">> Issue:",  # bandit
    b"::add-mask::",  # not a failure: a value to redact (the scanner takes it, no parser sees it)
)
#: Anchors that need a little structure: flake8/ruff/pylint and golangci-lint print no keyword at all (and a
#: plain log of theirs has no runner's exit line to feed them as context). One pattern: one pass.
ANCHOR_PATTERNS: tuple[re.Pattern[bytes], ...] = (re.compile(rb"\.(?:py:\d|go:\d+:)"),)

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
            r"Traceback|Segmentation\ fault|Killed|Aborted|not\ found$|not\ ok\ \d|-->\ ",
            r"\.py:\d+:\d+:\ [A-Z]|\.py:\d+:\ error|Error\)$|\ error\ [A-Z]+\d+:",
        )
    )
)
# Lines without an anchor that a parser still needs to see when they sit just before a hit: the cause
# printed above a failed step's exit (a refused connection, a kill, a go vet line, an apt error).
_HINT = re.compile(
    r"""onnect|ECONN|ETIMEDOUT|EAI_AGAIN|resolve\ host|Temporary\ failure|Name\ or\ service|returned\ error
      |Too\ Many|toomanyrequests|rate\ limit|hung\ up|unreachable|handshake|i/o\ timeout|Docker\ daemon
      |lost\ communication|shutdown\ signal|maximum\ execution|No\ space\ left|canceled
      |undefined\ reference|multiple\ definition|cannot\ find\ -l|Undefined\ symbols|out\ of\ memory|Out\ of\ memory
      |OOMKilled|MemoryError|\.go:\d+:\d+:\ |not\ recognized|ELIFECYCLE|Bus\ error|\.go:\d+:[ ]
      |\.rb:\d+:\d+:\ [CWEFR]:\ |^\[warn\][ ]
      |^(?:[\w.+-]+:\ )?[^\s:]+\.[A-Za-z][\w+-]*:\d+:|\bline\ \d+\b|^==\d+==\ |DATA\ RACE|No\ rule\ to\ make
      |^\s+Location:\ |^\s+\d+:\d+\s+(?:✖|⚠|error|warning)\s|^>>\ Issue:|\.rb:\d+:\d+:\ """,
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


def may_start(text: str) -> bool:
    """True when a context line could start a parser's block (or carries state a parser keeps)."""
    return is_trigger(text) or _HINT.search(text) is not None


# The same anchors for Hyperscan, a little sharper so that "test_error_handling" or "Failures: 0" are not
# hits at all. Each contains an anchor above, so a Hyperscan hit is always a hit of the stdlib search too;
# ``_ANSI`` lets colour codes sit between a word and its punctuation (``error[E0425]\x1b[0m:``).
_ANSI_GAP = rb"(?:\x1b\[[0-9;]*[A-Za-z])*"
HYPERSCAN_PATTERNS: tuple[bytes, ...] = (
    rb"(?:\b|\x1b\[[0-9;]*[A-Za-z])error" + _ANSI_GAP + rb"(?:[:\[\] !]|\r?$)",  # colour may lead the word
    rb"Error" + _ANSI_GAP + rb"(?:[:\[ .)]|\r?$)",
    rb"ERR",
    rb"FAIL",
    # ``failed`` but not a count of none (``0 failed``); ``Failure`` as a word, not in ``TestRetryOnFailure_3``.
    rb"(?:^|[^ ]|[^0] |\d0 )[Ff]ailed",
    rb"\b[Ff]ail(?:ing|ure(?:[^s\w]|Type|\r?$)|ures:(?: [1-9]|\r?$)|\b)",
    rb"panic",
    rb"Traceback",
    rb"[Ee]xit(?:ed)? (?:with|code|status)",
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
    for anchor in ANCHORS:
        position = find(anchor)
        while position != -1:
            starts.add(rfind(b"\n", 0, position) + 1)
            # Skip the rest of this line: one hit per line is enough.
            end = find(b"\n", position)
            if end == -1:
                break
            position = find(anchor, end)
    for pattern in ANCHOR_PATTERNS:
        for match in pattern.finditer(chunk):
            starts.add(rfind(b"\n", 0, match.start()) + 1)
    return sorted(starts)


def _hyperscan_search() -> Callable[[bytes], list[int]] | None:
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


_HYPERSCAN = _hyperscan_search()


def candidate_offsets(chunk: bytes, *, backend: str = "auto") -> list[int]:
    """Offsets of the starts of the lines in ``chunk`` that contain an anchor, sorted and unique.

    :param backend: ``hyperscan`` (one pass for all anchors), ``stdlib`` (a ``bytes.find`` pass per
        anchor) or ``auto`` (Hyperscan when it loaded).
    """
    if backend != "stdlib" and _HYPERSCAN is not None:
        return _HYPERSCAN(chunk)
    return _stdlib_offsets(chunk)


def grep_pattern() -> str:
    """The same anchors as one ``grep -E`` pattern, for benchmarks against grep."""
    literal = ["".join("\\" + c if c in "[](){}.*+?|^$\\" else c for c in a.decode()) for a in ANCHORS]
    return "|".join([*literal, r"\.py:[0-9]", r"\.go:[0-9]+:"])
