"""Reading a log: the tool parsers in the order each line is offered to them, and the scan that feeds them."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from typing import BinaryIO

from gauntlet.ingest.limits import DEFAULT_LIMITS, Limits
from gauntlet.ingest.log.analyser import Analyser
from gauntlet.ingest.log.blocks import CONTEXT_BEFORE, iter_blocks
from gauntlet.ingest.log.c import CMake, Compiler, CTest, Make, Sanitizer, Valgrind
from gauntlet.ingest.log.ci import CiRunner
from gauntlet.ingest.log.diagnostics import Diagnostics
from gauntlet.ingest.log.dotnet import MSBuild
from gauntlet.ingest.log.draft import Parser
from gauntlet.ingest.log.elixir import ExUnit
from gauntlet.ingest.log.formatters import Formatters
from gauntlet.ingest.log.go import Go
from gauntlet.ingest.log.javascript import Eslint, NodeError, Tsc
from gauntlet.ingest.log.jstests import Jest, Mocha, Playwright, Tap, Vitest
from gauntlet.ingest.log.jvm import Gradle, Java, Maven, Sbt
from gauntlet.ingest.log.packages import Apt, Npm
from gauntlet.ingest.log.php import Php
from gauntlet.ingest.log.precommit import PreCommit
from gauntlet.ingest.log.prefetch import Ahead, read_ahead
from gauntlet.ingest.log.pytests import Pytest, Unittest
from gauntlet.ingest.log.python import Bandit, Pip, PythonLint, Traceback, TypeCheck
from gauntlet.ingest.log.ruby import Minitest, Rspec, RubyError
from gauntlet.ingest.log.rust import Rust
from gauntlet.ingest.log.scanner import scan_blocks
from gauntlet.ingest.log.scripts import LineWords
from gauntlet.ingest.log.shell import Shell
from gauntlet.ingest.paths import Checkout
from gauntlet.models import Finding
from gauntlet.untrusted import Masks

__all__ = ["make_parsers", "read_log", "scan"]


def make_parsers(exclude: Collection[str] = ()) -> list[Parser]:
    """Fresh parsers, in the order they are offered each line (block readers before line matchers).

    :param exclude: parser class names left out (``bench/corpus.py --leave-one-out`` takes a tool's own parser
        out of play, to measure what the generic ones make of its output).
    """
    parsers: list[Parser] = [
        CiRunner(),
        Pytest(),
        Unittest(),
        Rspec(),
        Minitest(),
        RubyError(),
        Php(),
        Mocha(),
        Jest(),
        Vitest(),
        Tap(),
        Playwright(),
        PreCommit(),
        Formatters(),
        Pip(),
        Traceback(),
        TypeCheck(),
        PythonLint(),
        Bandit(),
        Tsc(),
        MSBuild(),
        Eslint(),
        Sanitizer(),
        Valgrind(),
        Compiler(),
        CMake(),
        Make(),
        CTest(),
        Rust(),
        Go(),
        Java(),
        Maven(),
        Gradle(),
        Sbt(),
        ExUnit(),
        Npm(),
        Apt(),
        Shell(),
        NodeError(),
        LineWords(),
        Diagnostics(),
    ]
    return [parser for parser in parsers if type(parser).__name__ not in exclude]


def read_log(
    stream: BinaryIO,
    name: str,
    limits: Limits = DEFAULT_LIMITS,
    *,
    masks: Masks | None = None,
    checkout: Checkout | None = None,
    ahead: Ahead | None = None,
) -> Iterator[Finding]:
    """Yield the findings of a log file read from ``stream`` (any bytes are a log: nothing is malformed).

    :param masks: filled with the values the log registers with ``::add-mask::``, as it is read.
    :param checkout: the repository checkout the log was made from, when known (see :func:`scan`).
    :param ahead: the read-ahead child already started for this file (see :func:`scan`).
    """
    del name
    yield from scan(stream, limits, masks=masks, checkout=checkout, ahead=ahead)


def scan(
    lines: Iterable[bytes] | BinaryIO,
    limits: Limits = DEFAULT_LIMITS,
    *,
    masks: Masks | None = None,
    backend: str = "auto",
    exclude: Collection[str] = (),
    checkout: Checkout | None = None,
    ahead: Ahead | None = None,
) -> Iterator[Finding]:
    """Yield one finding per failure found in a log.

    :param lines: a binary stream, or byte strings taken as lines (newline-terminated or not).
    :param limits: caps on line length, findings, message and excerpt sizes.
    :param backend: the prefilter's search; every one yields the same findings, only its speed differs.
    :param exclude: parser class names left out (:func:`make_parsers`).
    :param checkout: the repository checkout: of the ``path:line`` places a block no parser read names, one
        of its files is preferred, and absolute paths under its root become repository-relative.
    :param ahead: the read-ahead child of ``lines`` (a file), started before the parsers loaded
        (:func:`~.prefetch.read_ahead_paths`); else one is started here where it pays.
    """
    if ahead is None:  # started first, so that the child's pass runs while the parsers are made
        ahead = read_ahead(lines, limits, backend, iter_blocks, CONTEXT_BEFORE)
    analyser = Analyser(make_parsers(exclude), limits, masks, checkout)
    yield from scan_blocks(iter_blocks(lines, limits), analyser, backend=backend, ahead=ahead)
