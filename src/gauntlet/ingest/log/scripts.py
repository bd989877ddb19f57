"""Tools that say ``line N`` in words: perl and prove, tclsh, shellcheck's terminal format, jshint.

* perl: ``... at calc.pl line 4.`` (a compile error when perl adds ``had compilation errors``, else a
  ``die`` at run time); prove's ``#   Failed test 'adds'`` with ``#   at t/add.t line 4.`` under it;
* tclsh: the error's first line, then its trace down to ``(file "total.tcl" line 3)``;
* shellcheck: ``In list.sh line 2:`` then the code and one ``^-- SC2045 (error): ...`` marker per finding;
* jshint: ``lib.js: line 2, col 12, Missing semicolon.``
"""

from __future__ import annotations

import re

from gauntlet.ingest.log.base import BlockParser
from gauntlet.ingest.log.draft import Draft, Line, Repeats, Sink, diagnostic
from gauntlet.models import Kind

__all__ = ["LineWords"]

_PERL = re.compile(r"^(?!#)(.*?) at (\S+?\.(?:pl|pm|t|cgi)) line (\d+)(?:, <\S+> (?:line|chunk) \d+)?\.$")
_PERL_COMPILE = re.compile(r"requires explicit package name|syntax error|Can't locate|had compilation errors|^BEGIN")
_PROVE_FAILED = re.compile(r"^#\s+Failed test (?:'(.*)'|in (\S+) at line (\d+)\.)?\s*$")
_PROVE_AT = re.compile(r"^#\s+at (\S+) line (\d+)\.$")
_TCL_FILE = re.compile(r'^\s+\(file "(\S+?)" line (\d+)\)$')
_SHELLCHECK_AT = re.compile(r"^In (\S+) line (\d+):$")
_SHELLCHECK_MARK = re.compile(r"^\s*\^-*\^? (SC\d{4}) \((error|warning|info|style)\): (.*)$")
_JSHINT = re.compile(r"^(\S+?\.[cm]?jsx?): line (\d+), col (\d+), (.*)$")


class LineWords(BlockParser):
    """The ``line N`` shapes above; the open block is prove's failed test or shellcheck's ``In x line N:``."""

    def __init__(self) -> None:
        super().__init__()
        self._repeats = Repeats()

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        draft = self._draft
        if draft is not None:
            if draft.tool == "prove" and (where := _PROVE_AT.match(text)):
                draft.path, draft.line, draft.end = where.group(1), int(where.group(2)), number
                self.close(sink)
                return True
            if draft.tool == "shellcheck" and number - draft.end <= 3:
                if mark := _SHELLCHECK_MARK.match(text):
                    code, level, message = mark.groups()
                    assert draft.path is not None and draft.line is not None
                    finding = diagnostic(
                        "shellcheck",
                        "lint",
                        message,
                        number,
                        draft.path,
                        draft.line,
                        rule=code,
                        warning=level != "error",
                    )
                    finding.start = draft.start
                    sink.emit(finding)
                    draft.end = number
                    return True
                if text.strip():
                    draft.end = number  # the code line under ``In x line N:``
                    return True
            self._draft = None
        if " line " in text:
            return self._line_words(number, text, sink)
        if text.startswith("#") and (failed := _PROVE_FAILED.match(text)):
            name = failed.group(1) or failed.group(2) or "test"
            self._draft = Draft("prove", "test_failure", f"{name} failed", number, number, test_id=name)
            self._draft.key = f"prove:{name}"
            if failed.group(2):
                self._draft.path, self._draft.line = failed.group(2), int(failed.group(3))
                self.close(sink)
            return True
        return False

    def _line_words(self, number: int, text: str, sink: Sink) -> bool:
        if match := _SHELLCHECK_AT.match(text):
            self._draft = Draft("shellcheck", "lint", "", number, number, path=match.group(1), line=int(match.group(2)))
            return True
        if match := _JSHINT.match(text):
            path, row, column, message = match.groups()
            draft = diagnostic("jshint", "lint", message, number, path, row, column)
            sink.emit(self._repeats.keyed(draft))
            return True
        if match := _TCL_FILE.match(text):
            path, row = match.groups()
            # The message is the trace's first line: the last line at column 0 before this one.
            head = [(n, t) for n, t in sink.tail(40, number) if t and not t[0].isspace() and not t.startswith('"')]
            start, message = head[-1] if head else (number, "tcl error")
            sink.emit(Draft("tclsh", "crash", message, start, number, path=path, line=int(row)))
            return True
        if match := _PERL.match(text):
            message, path, row = match.groups()
            later = f"{message} {sink.step}"
            kind: Kind = "build_error" if _PERL_COMPILE.search(message) or " -c" in later else "crash"
            sink.emit(Draft("perl", kind, message, number, number, path=path, line=int(row)))
            return True
        return False

    def close(self, sink: Sink) -> None:
        """Report prove's open failed test (shellcheck's blocks report each marker as it comes)."""
        draft, self._draft = self._draft, None
        if draft is not None and draft.tool == "prove":
            sink.emit(draft)
