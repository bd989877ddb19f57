"""The prefilter: find the few lines worth parsing at memory-search speed.

Almost every line of a CI log is noise. Each anchor below is searched over a
whole chunk with ``bytes.find`` (CPython's fast search, gigabytes a second), so
the cost is a handful of passes over the bytes instead of Python work per line.
Anchors are deliberately broad fragments (``rror`` catches ``error``, ``Error``,
``TypeError``); a hit is then confirmed by :data:`TRIGGER` on that one line
before any parser sees it, so a broad anchor costs little. Output that carries
no anchor of its own (go vet, a bare ``Killed``) is still read: the scanner
feeds the lines before every confirmed hit, and a failed step always ends in
one (``##[error]Process completed with exit code 1``, ``make: *** Error 2``).

Invariant: the first line of every block a parser recognises either contains an
anchor and matches :data:`TRIGGER`, or lies within the context fed before such
a line.
"""

from __future__ import annotations

import re

__all__ = ["ANCHORS", "ANCHOR_PATTERNS", "TRIGGER", "candidate_offsets", "grep_pattern"]

ANCHORS: tuple[bytes, ...] = (
    b"rror",  # error, Error, TypeError, ##[error]
    b"ERR",  # ERROR, npm ERR!, ERR_PNPM_*
    b"FAIL",  # FAILED, FAILURES, --- FAIL, BUILD FAILURE
    b"ail",  # fail, failed, Failures:, 1 failing
    b"anic",  # panic:, panicked at
    b"Traceback",
    b"xit",  # exit code, exited with, Exit status
    b"Segmentation",
)
#: Anchors that need a little structure: flake8/ruff/pylint print no keyword at all.
ANCHOR_PATTERNS: tuple[re.Pattern[bytes], ...] = (re.compile(rb"\.py:\d"),)

# What a hit line must look like to be worth parsing. Kept in step with the parsers' starting lines.
TRIGGER = re.compile(
    r"""
    (?:^|\W)(?:fatal\ )?error(?:\[\w+\])?(?::|\ TS\d|\s\s|\ -\ )   # gcc, rustc, mypy, tsc, eslint, yarn
  | \w(?:Error|Exception|Exit|Interrupt|Failure)\b             # TypeError: ..., AssertionError
  | ^Error\b|\bError:|Error\ \d|\berror\ code|\bERROR\b|ERR!|ERR_|\bnpm\ error
  | \bFAIL|\bFailures?:|\bFailed\b|\bfailed\b|\bfailure\b|\d\ failing|failureType
  | panicked\ at|^panic:|Traceback|Segmentation\ fault
  | [Ee]xit(?:ed)?\ (?:code|status|with)|exit\ code
  | \.py:\d+:(?:\d+:)?\ [A-Z]+\d+\b|\.py:\d+:\d+:\ [A-Z]\d{4}|-->\ \S+\.py:\d
    """,
    re.VERBOSE,
)


def candidate_offsets(chunk: bytes, start: int = 0) -> list[int]:
    """Offsets of the starts of the lines in ``chunk[start:]`` that contain an anchor, sorted, unique."""
    starts: set[int] = set()
    find = chunk.find
    rfind = chunk.rfind
    for anchor in ANCHORS:
        position = find(anchor, start)
        while position != -1:
            line_start = rfind(b"\n", start, position) + 1
            starts.add(max(line_start, start))
            # Skip the rest of this line: one hit per line is enough.
            end = find(b"\n", position)
            if end == -1:
                break
            position = find(anchor, end)
    for pattern in ANCHOR_PATTERNS:
        for match in pattern.finditer(chunk, start):
            starts.add(max(rfind(b"\n", start, match.start()) + 1, start))
    return sorted(starts)


def grep_pattern() -> str:
    """The same anchors as one ``grep -E`` pattern, for benchmarks against grep."""
    literal = [re.escape(a.decode()) for a in ANCHORS]
    return "|".join([*literal, r"\.py:[0-9]"])
