"""JavaScript and TypeScript outside test runners: tsc, eslint and uncaught node errors."""

from __future__ import annotations

import re

from gauntlet.ingest.log.base import BlockParser, LineParser
from gauntlet.ingest.log.draft import Draft, Line, Repeats, Sink, diagnostic
from gauntlet.ingest.log.place import project_place
from gauntlet.ingest.log.tools import SECRET, markers
from gauntlet.models import Kind

__all__ = ["NODE_FRAME", "NODE_LOCATION", "Eslint", "NodeError", "Tsc"]

_TSC = re.compile(r"^(\S.*?)(?:\((\d+),(\d+)\):|:(\d+):(\d+) -) error (TS\d+): (.*)$")


class Tsc(LineParser):
    """``src/a.ts(1,7): error TS2322: ...`` and the ``--pretty`` form ``src/a.ts:1:7 - error TS2322``."""

    def __init__(self) -> None:
        #: One message at several lines of a file is several findings (see :class:`Repeats`).
        self._repeats = Repeats()

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if "error TS" in text and (match := _TSC.match(text)):
            path, row, column, row2, column2, code, message = match.groups()
            sink.emit(
                self._repeats.keyed(
                    diagnostic("tsc", "type_error", message, number, path, row or row2, column or column2, rule=code)
                )
            )
            return True
        return False


_ESLINT_FILE = re.compile(r"^(/\S+|[A-Za-z]:\\\S+|\S+\.[A-Za-z][\w-]{0,9})$")
_TITLED_FILE = re.compile(r"^(?:File|file|FILE):\s+(\S+\.[A-Za-z][\w-]{0,9})$")
#: A line of a report's own settings between a file's header and its rows (``Config file: /w/.linthtmlrc.json``).
_SETTING = re.compile(r"^[A-Z][\w ]{0,30}: \S")
# The stylish table eslint made common: stylelint marks errors ``✖``, yamllint wraps the rule in parentheses.
_ESLINT_ROW = re.compile(r"^\s+(\d+):(\d+)\s+(?:error|✖)\s+(.*?)(?:\s{2,}\(?([@\w/-]+)\)?)?$")
_STYLISH_TOOLS = ("stylelint", "yamllint", "markdownlint", "htmlhint", "textlint")


class Eslint(LineParser):
    """eslint's stylish format: a file line, then ``  1:7  error  message  rule`` rows (warnings ignored)."""

    def __init__(self) -> None:
        #: One message at several lines of a file is several findings (see :class:`Repeats`).
        self._repeats = Repeats()

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if ("error" in text or "✖" in text) and text.startswith(" ") and (match := _ESLINT_ROW.match(text)):
            row, column, message, rule = match.groups()
            # The file header is a line without an anchor: find it among the lines read before.
            path = self._look_back(number, sink)
            tool = next((name for name in _STYLISH_TOOLS if name in sink.step), "eslint")
            kind: Kind = "security" if SECRET.search(message) else "lint"  # a secret scanner's stylish report
            sink.emit(self._repeats.keyed(diagnostic(tool, kind, message, number, path, row, column, rule=rule)))
            return True
        return False

    @staticmethod
    def _look_back(number: int, sink: Sink) -> str | None:
        """The file header above a row: the path alone (eslint's), or ``File: path`` over a tool's settings
        (linthtml's ``File: pages/cart.html`` then ``Config file: /w/.linthtmlrc.json``)."""
        for _, text in reversed(sink.tail(60, number)):
            if text and not text[0].isspace():
                if (titled := _TITLED_FILE.match(text)) is not None:
                    return titled.group(1)
                if _SETTING.match(text) is None:
                    return text if _ESLINT_FILE.match(text) else None
        return None


# -- uncaught errors in node ---------------------------------------------------------------------

#: A node stack frame with a file location: ``    at fn (src/x.js:3:5)``.
NODE_FRAME = re.compile(
    r"^\s+at .*?\(?((?:file://)?(?:[A-Za-z]:\\|/|\w)[^\s():]*?\.[cm]?[jt]sx?):(\d+):(\d+)\)?$"  # D:\a\x\x\ too
)

#: The line node prints above a SyntaxError (and an error thrown at load time): ``/w/broken.js:2``.
NODE_LOCATION = re.compile(r"^((?:file://)?\S+?\.[cm]?[jt]sx?):(\d+)$")
_NODE_ERROR = re.compile(r"^((?:[A-Z]\w*)?Error)(?: \[(\w+)\])?: (.*)$")
#: Lines an assertion's message and diff may take before its first frame.
_DIFF_LINES = 8
#: A frame in an installed package (``/node_modules/nodeunit/lib/types.js``): not where the project's code threw.
_INSTALLED = re.compile(r"/node_modules/")
#: An import or reference that does not resolve: a build's error, not a crash (browserify's ``Can't walk dependency
#: graph: Cannot find module './money'``, openapi-typescript's ``Can't resolve $ref``).
_UNRESOLVED = re.compile(r"\b(?:Cannot find (?:module|package)|Can't resolve|Could not resolve)\b")
#: An error that says the input could not be read: a compile error, not a crash of the program.
_UNPARSED = re.compile(
    r"(?i)\b(?:could not|cannot|unable to|failed to) (?:parse|compile|transform)|\bparse error\b"
    r"|^Error transforming "
)


class NodeError(BlockParser):
    """An uncaught error printed by node: ``TypeError: ...`` at column 0 followed by ``    at`` frames."""

    def __init__(self) -> None:
        super().__init__()
        self._frames = 0

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        draft = self._draft
        if draft is not None:
            if text.startswith("    at ") or text.startswith("Require stack") or text.startswith("- "):
                self._frames += text.startswith("    at ")
                # Where it threw in the project: a frame of an installed package (a test framework's assert) is not.
                match = NODE_FRAME.match(text)
                if draft.path is None:
                    draft.end = number  # the frames are the block, up to the project's first
                    if match and "node:" not in match.group(1) and not _INSTALLED.search(text):
                        draft.path, draft.line, draft.column = match.group(1), int(match.group(2)), int(match.group(3))
                if number - draft.start < 40:
                    return True
            elif (
                self._frames == 0
                and number - draft.start < _DIFF_LINES
                and (draft.kind == "test_failure" or text.startswith("    "))
            ):
                # an assertion's diff between its message and its frames (``300 !== 500``), or what the error
                # says further (browserify's ``    required by /w/src/main.js``, a loader's type checker under
                # ncc's throw: ``      TS2322: Type 'number' is not assignable to type 'string'.``)
                if draft.kind == "build_error" and markers([text]) == "type_error":
                    draft.kind = "type_error"
                return True
            self._report(sink)
            return False
        if "Error" in text and (match := _NODE_ERROR.match(text)):
            _, code, message = match.groups()
            missing = _UNRESOLVED.search(message) is not None
            self._frames = 0
            kind: Kind = "build_error" if missing else "test_failure" if match.group(1) == "AssertionError" else "crash"
            if _UNPARSED.search(message):
                kind = "build_error"  # a compiler written in JavaScript that could not read its input (jison, sucrase)
            self._draft = Draft("node", kind, text, number, number, rule=code)
            if (named := project_place([message], None)) is not None:
                # The source it could not read: ``Error transforming src/cart.ts: Unexpected token (6:57)``, ``Error:
                # illegal id 'two' (proto/cart.proto, line 7)``: the tool rejected its input, it did not crash.
                self._draft.path, self._draft.line, self._draft.column = named
                self._draft.kind = "build_error" if kind == "crash" else kind
            start = number
            for earlier, previous in sink.tail(6, number):
                if previous.strip() == "^" or previous.startswith(("node:internal", "file://", "/")):
                    start = min(start, earlier)
                if match.group(1) == "SyntaxError" and (where := NODE_LOCATION.match(previous)):
                    # A syntax error has no frame in the file: its place is the line node prints above it.
                    self._draft.path, self._draft.line = where.group(1), int(where.group(2))
                    self._draft.kind = "build_error"
            self._draft.start = start
            return True
        return False

    def _finish(self, draft: Draft) -> bool:
        return self._frames > 0  # a lone error line, without frames, is not an uncaught error

    def close(self, sink: Sink) -> None:
        """Report an error whose frames ran to the end of its step (browserify's); drop one with none yet."""
        self._report(sink)
