"""Formatters and coverage gates: black, isort, prettier, RuboCop, pytest-cov and jest thresholds.

A formatter check fails the job without an error line of its own (``would reformat x.py``), so each
of these gets an anchor in the prefilter.
"""

from __future__ import annotations

import re

from gauntlet.ingest.log.base import LineParser
from gauntlet.ingest.log.draft import Draft, Line, Repeats, Sink, diagnostic
from gauntlet.ingest.log.text import repo_path

__all__ = ["Formatters"]

_BLACK = re.compile(r"^would reformat (\S.*)$")
# ``error: cannot format x.py: Cannot parse: 1:6: ...`` (black < 24) and ``error: cannot parse: x.py:1:6`` (later).
_BLACK_FAILED = re.compile(
    r"^error: cannot (?:format (\S+?): (?:Cannot parse: )?(?:(\d+):\d+: )?(.*)|parse: (\S+?):(\d+):\d+)$"
)
_ISORT = re.compile(r"^ERROR: (\S+) Imports are incorrectly sorted")
_PRETTIER_FILE = re.compile(r"^\[warn\] (\S+\.\w+)$")
_PRETTIER_END = re.compile(r"^\[warn\] Code style issues found")
# RuboCop's ``app/x.rb:4:1: C: [Correctable] Style/X: msg``; standardrb indents its rows and may leave out the
# severity (``  app/x.rb:4:1: Lint/UselessAssignment: msg``).
_RUBOCOP = re.compile(
    r"^\s*(\S+?\.(?:rb|rake|gemspec|ru)):(\d+):(\d+): (?:([CWEFR]): )?(?:\[Correctable\] )?([A-Z]\w+/\w+): (.*)$"
)
_PYTEST_COV = re.compile(r"^FAIL Required test coverage of (\S+) not reached\. Total coverage: (\S+)")
_JEST_COV = re.compile(r"^Jest: \"?(\w+)\"? coverage threshold for (\w+) \((\S+)\) not met: (\S+)")


class Formatters(LineParser):
    """One lint finding per file a formatter would change; coverage below the configured gate."""

    def __init__(self) -> None:
        #: One message at several lines of a file is several findings (see :class:`Repeats`).
        self._repeats = Repeats()

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if text.startswith("would reformat ") and (match := _BLACK.match(text)):
            path = repo_path(match.group(1)) or match.group(1)
            sink.emit(Draft("black", "lint", f"would reformat {path}", number, number, path=path, rule="black"))
            return True
        if text.startswith("error: cannot ") and (match := _BLACK_FAILED.match(text)):
            path, row, message, path2, row2 = match.groups()
            path = repo_path(path or path2) or path or path2
            message = f"cannot format {path}: {message or 'cannot parse'}"
            sink.emit(Draft("black", "lint", message, number, number, path=path, line=int(row or row2 or 0) or None))
            return True
        if text.startswith("ERROR: ") and (match := _ISORT.match(text)):
            path = match.group(1)
            sink.emit(Draft("isort", "lint", "imports are incorrectly sorted", number, number, path=path, rule="isort"))
            return True
        if text.startswith("[warn] ") and _PRETTIER_END.match(text):
            files = [
                (earlier, found.group(1))
                for earlier, previous in sink.tail(50, number)
                if (found := _PRETTIER_FILE.match(previous))
            ]
            for earlier, path in files or [(number, None)]:
                draft = Draft(
                    "prettier", "lint", "code style issues found", earlier, number, path=path, rule="prettier"
                )
                sink.emit(draft)
            return True
        if (match := _RUBOCOP.match(text)) is not None:
            path, row, column, severity, cop, message = match.groups()
            tool = "standardrb" if "standard" in sink.step else "rubocop"
            minor = severity is not None and severity in "CR"
            sink.emit(
                self._repeats.keyed(
                    diagnostic(tool, "lint", message, number, path, row, column, rule=cop, warning=minor)
                )
            )
            return True
        if text.startswith("FAIL Required") and (match := _PYTEST_COV.match(text)):
            required, total = match.groups()
            message = f"test coverage {total} is below the required {required}"
            sink.emit(Draft("pytest-cov", "lint", message, number, number, rule="coverage"))
            return True
        if text.startswith("Jest:") and (match := _JEST_COV.match(text)):
            scope, metric, required, actual = match.groups()
            message = f"{scope} {metric} coverage {actual} is below the required {required}"
            sink.emit(Draft("jest", "lint", message, number, number, rule="coverage"))
            return True
        return False
