"""MSBuild and .NET: ``File.cs(12,5): error CS0103: ...`` (also MSVC's ``error C2065``) and ``dotnet test``."""

from __future__ import annotations

import re

from gauntlet.ingest.log.base import BlockParser
from gauntlet.ingest.log.draft import Line, Repeats, Sink, diagnostic, failed_test
from gauntlet.ingest.log.tools import checker_kind
from gauntlet.models import Kind

__all__ = ["MSBuild"]

_MSBUILD = re.compile(
    r"^\s*(\S.*?)\((\d+)(?:,(\d+))?(?:,\d+,\d+)?\): (?:fatal )?error ([A-Z]+\d+): (.*?)(?: \[[^\]]*\])?$"
)
_FAILED_TEST = re.compile(r"^\s+Failed (\S+) \[[\d.]+ ?m?s\]$")
_ERROR_MESSAGE = re.compile(r"^\s+Error Message:$")
_STACK_FRAME = re.compile(r" in (\S+?\.(?:cs|fs|vb)):line (\d+)$")
_TOOLS = {"CS": "csc", "FS": "fsc", "BC": "vbc", "C": "msvc", "LNK": "link", "MSB": "msbuild", "NU": "nuget"}


class MSBuild(BlockParser):
    """Compiler errors in MSBuild's format and ``dotnet test``'s ``Failed Name [12 ms]`` blocks."""

    def __init__(self) -> None:
        super().__init__()
        self._repeats = Repeats()
        self._message_next = False

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if self._draft is not None and self._in_test(number, text, sink):
            return True
        if " error " in text and (match := _MSBUILD.match(text)):
            path, row, column, code, message = match.groups()
            prefix = code.rstrip("0123456789")
            tool: str | None = _TOOLS.get(prefix, "msbuild")
            kind: Kind = "dependency" if prefix == "NU" else "build_error"
            if prefix not in _TOOLS:
                # Other tools print this shape too (tsc's ``error TS2322``): what the step ran says what it is.
                tool, kind = None, checker_kind(sink.step) or kind
            sink.emit(self._repeats.keyed(diagnostic(tool, kind, message, number, path, row, column, rule=code)))
            return True
        if "Failed " in text and (match := _FAILED_TEST.match(text)):
            name = match.group(1)
            self._draft = failed_test("dotnet", name, number)
            return True
        return False

    def _in_test(self, number: int, text: str, sink: Sink) -> bool:
        test = self._draft
        assert test is not None
        if _ERROR_MESSAGE.match(text):
            self._message_next = True
            return True
        if self._message_next and text.strip():
            test.message, test.end, self._message_next = f"{test.test_id}: {text.strip()}", number, False
            return True
        if frame := _STACK_FRAME.search(text):
            if test.path is None:
                test.path, test.line, test.end = frame.group(1), int(frame.group(2)), number
            return True
        if text.startswith("  ") and number - test.start < 40:
            return True
        self.close(sink)
        return False

    def close(self, sink: Sink) -> None:
        """Report the failed test being read."""
        self._message_next = False
        self._report(sink)
