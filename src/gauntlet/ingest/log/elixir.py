"""Elixir: ExUnit failures (``1) test adds (MathTest)``) and compile errors (``** (CompileError) ...``)."""

from __future__ import annotations

import re

from gauntlet.ingest.log.base import BlockParser, headline
from gauntlet.ingest.log.draft import Draft, Line, Sink
from gauntlet.ingest.log.tools import markers
from gauntlet.models import Kind

__all__ = ["ExUnit"]

_ITEM = re.compile(r"^\s+\d+\) test (.+) \(([\w.]+)\)$")
_WHERE = re.compile(r"^\s+(\S+?\.exs?):(\d+)$")
#: ``stacktrace:`` frames: ``test/math_test.exs:7: (test)``; the test's own file places the failing line.
_FRAME = re.compile(r"^\s+(\S+?\.exs?):(\d+): ")
_RAISED = re.compile(r"^\*\* \((\w+(?:\.\w+)*)\) (?:(\S+?\.exs?):(\d+): )?(.*)$")
#: Errors of the build: mix's own (``** (Mix) Could not compile dependency``) is no crash of the program.
_BUILD = ("CompileError", "SyntaxError", "TokenMissingError", "Mix.Error", "Mix")


class ExUnit(BlockParser):
    """ExUnit's numbered failures and the ``** (Error) ...`` lines of mix and elixir."""

    def __init__(self) -> None:
        super().__init__()
        #: The open test was placed at its first stack frame in its own file (the failing line).
        self._framed = False

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if text.startswith("** (") and (raised := _RAISED.match(text)):
            name, path, row, message = raised.groups()
            kind: Kind = "build_error" if name in _BUILD else "crash"
            if name.startswith("Mix") and markers([message]) == "dependency":
                kind = "dependency"  # ``** (Mix) Can't continue due to errors on dependencies``
            message = f"{name}: {message}"
            sink.emit(Draft("elixir", kind, message, number, number, path=path, line=int(row) if row else None))
            return True
        if " test " in text and (match := _ITEM.match(text)):
            self.close(sink)
            self._framed = False
            title, module = match.groups()
            test_id = f"{module}: test {title}"
            self._draft = Draft("exunit", "test_failure", "", number, number, test_id=test_id, key=f"exunit:{test_id}")
            return True
        draft = self._continue_indented(number, text, sink, most=40)
        if draft is None:
            return False
        stripped = text.strip()
        if draft.path is None and (where := _WHERE.match(text)):
            draft.path, draft.line, draft.end = where.group(1), int(where.group(2)), number
        elif (frame := _FRAME.match(text)) and frame.group(1) == draft.path and not self._framed:
            draft.line, draft.end, self._framed = int(frame.group(2)), number, True
        elif stripped and not draft.message and draft.path is not None:
            draft.message, draft.end = stripped, number
        return True

    def _finish(self, draft: Draft) -> bool:
        headline(draft, draft.test_id)
        return True
