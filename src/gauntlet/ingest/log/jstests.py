"""JavaScript test runners: jest, vitest, mocha, Playwright, and TAP (node's test runner, tape, prove)."""

from __future__ import annotations

import re

from gauntlet.ingest.log.base import BlockParser, SectionParser, headline
from gauntlet.ingest.log.draft import Draft, Line, Sink
from gauntlet.ingest.log.javascript import NODE_FRAME
from gauntlet.ingest.log.place import first_place

__all__ = ["Jest", "Mocha", "Playwright", "Tap", "Vitest"]

# -- jest ----------------------------------------------------------------------------------------

_JEST_FILE = re.compile(r"^\s*FAIL\s+(\S+\.\w+)(?:\s+\(.*\))?$")
_JEST_BULLET = re.compile(r"^\s*● (.+)$")
_JEST_AT = re.compile(r"^\s+at .*?\(?((?:/|\w)[^\s():]*?\.[cm]?[jt]sx?):(\d+):(\d+)\)?$")
_JEST_END = re.compile(r"^\s*(?:PASS|FAIL)\s|^Test Suites:|^Tests:|^Summary of all failing tests")


class Jest(BlockParser):
    """jest's ``● Suite › test`` blocks, placed in the file of the ``FAIL path`` header above them."""

    def __init__(self) -> None:
        super().__init__()
        self._file: str | None = None

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if "●" in text and (match := _JEST_BULLET.match(text)):
            self.close(sink)
            title = match.group(1).strip()
            if title.startswith("Console") or title.startswith("Deprecation"):
                return True
            suite_failed = title == "Test suite failed to run"
            test = f"{self._file} › {title}" if suite_failed and self._file else title
            self._draft = Draft(
                "jest",
                "build_error" if suite_failed else "test_failure",
                "",
                number,
                number,
                path=self._file,
                test_id=f"{self._file} > {title}" if self._file else title,
                key=f"jest:{test}",
            )
            return True
        if "FAIL" in text and (match := _JEST_FILE.match(text)):
            self.close(sink)
            self._file = match.group(1)
            return True
        draft = self._draft
        if draft is None:
            return False
        if _JEST_END.match(text) or number - draft.start > 80:
            self.close(sink)
            return False
        stripped = text.strip()
        if stripped:
            draft.end = number if draft.line is None else draft.end
            if not draft.message:
                draft.message = stripped
            if draft.line is None and (match := _JEST_AT.match(text)) and "node_modules" not in text:
                draft.path, draft.line, draft.column = match.group(1), int(match.group(2)), int(match.group(3))
                draft.end = number
        return True

    def _finish(self, draft: Draft) -> bool:
        headline(draft, (draft.test_id or "").rsplit(" > ", 1)[-1])
        return True


# -- vitest --------------------------------------------------------------------------------------

_VITEST_FAIL = re.compile(r"^\s*FAIL\s+(\S+?\.\w+) > (.+?)(?: \[.*\])?$")
#: A stack frame, innermost first (``❯ src/a.test.ts:5:21``, or ``❯ div src/calc.js:1:51`` with its function):
#: the first in the project is where the test failed (an error thrown in the code under test: there).
_VITEST_AT = re.compile(r"^\s*❯ (?:[\w.$<>]+ )?((?!\S*node_modules/)\S+?\.[cm]?[jt]sx?):(\d+):(\d+)$")


class Vitest(BlockParser):
    """vitest's ``FAIL  src/x.test.ts > suite > test`` blocks in its ``Failed Tests`` section."""

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if "FAIL" in text and (match := _VITEST_FAIL.match(text)):
            self.close(sink)
            path, title = match.groups()
            self._draft = Draft(
                "vitest",
                "test_failure",
                "",
                number,
                number,
                path=path,
                test_id=f"{path} > {title}",
                key=f"vitest:{path} > {title}",
            )
            return True
        draft = self._draft
        if draft is None:
            return False
        stripped = text.strip()
        if stripped.startswith("⎯") or number - draft.start > 60 or stripped.startswith(("Test Files", "FAIL")):
            self.close(sink)
            return stripped.startswith("⎯")
        if stripped:
            if not draft.message:
                draft.message = stripped
                draft.end = number
            if draft.line is None and (match := _VITEST_AT.match(text)):
                draft.path, draft.line, draft.column = match.group(1), int(match.group(2)), int(match.group(3))
                draft.end = number
        return True

    def _finish(self, draft: Draft) -> bool:
        headline(draft, (draft.test_id or "").split(" > ", 1)[-1])
        return True


# -- mocha ---------------------------------------------------------------------------------------

_MOCHA_FAILING = re.compile(r"^\s*(\d+) failing$")
_MOCHA_ITEM = re.compile(r"^\s{2}(\d+)\) (.+?):?$")
# Mocha's messages may start at column 0 (multi-line diffs); these lines are someone else's.
_AFTER_MOCHA = ("npm ", "##[", "error ", "ERR", "make", "Process completed", "> ", "FAIL", "PASS")
_ERROR_LINE = re.compile(r"^\s*((?:\w+\.)*\w*(?:Error|Exception)\b(?: \[\w+\])?:? ?.*)$")


class Mocha(SectionParser):
    """mocha's ``N failing`` section: ``1) suite`` / ``test:`` then the error and its stack."""

    def __init__(self) -> None:
        super().__init__()
        self._title: list[str] = []

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if "failing" in text and _MOCHA_FAILING.match(text):
            self._section = True
            return True
        if not self._section:
            return False
        if match := _MOCHA_ITEM.match(text):
            self._report(sink)
            self._title = [match.group(2).strip()]
            self._draft = Draft("mocha", "test_failure", "", number, number)
            return True
        draft = self._draft
        if text.startswith(_AFTER_MOCHA) or (draft is not None and number - draft.start > 120):
            self.close(sink)
            return False
        if draft is None:
            return True
        stripped = text.strip()
        if not draft.message and stripped:
            # The title ends at its second line or at a blank line (a title of one line: ``1) concats:``).
            if (error := _ERROR_LINE.match(text)) and (draft.end > draft.start or number - draft.end > 1):
                draft.message, draft.end = error.group(1), number
            elif number - draft.end <= 1 and len(self._title) < 6:
                self._title.append(stripped.rstrip(":"))
                draft.end = number
        elif draft.line is None and (match := NODE_FRAME.match(text)) and "node_modules" not in text:
            draft.path, draft.line, draft.column = match.group(1), int(match.group(2)), int(match.group(3))
            draft.end = number
        return True

    def _finish(self, draft: Draft) -> bool:
        title = " ".join(self._title)
        draft.test_id, draft.key = title, f"mocha:{title}"
        headline(draft, title)
        return True


# -- TAP (node --test, tape, prove) --------------------------------------------------------------

_NOT_OK = re.compile(r"^(\s*)(?:[❌✖✗×] ?)?not ok \d+ (?:- )?(.*?)(?: # (?:TODO|SKIP).*)?$")
#: The YAML block's fields read: node's ``location``, tape's and zora's ``at`` (``at: "file:///w/t.mjs:5:3"``).
_TAP_FIELD = re.compile(r"^\s+(location|at|failureType|error|name|message|stack): (.*)$")
#: A frame of node's ``stack:`` field: ``TestContext.<anonymous> (/w/test/round.test.js:5:10)``.
_TAP_FRAME = re.compile(r"\((?:file://)?(\S+?):(\d+):(\d+)\)$")


class Tap(BlockParser):
    """``not ok N - name`` with node's YAML block; parents that only report failed subtests are skipped."""

    def __init__(self) -> None:
        super().__init__()
        self._indent = ""
        self._error_next = False
        #: Inside the ``stack:`` field, until a frame in the test's own file placed the failing line.
        self._in_stack = False
        #: The indentation of the step's last ``not ok``: one less indented is its parent's (brittle's and
        #: node-tap's ``not ok 2 - total # time=3.6ms`` under its failed assertion), which says nothing more.
        self._failed_indent: str | None = None
        self._parent = False

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if "not ok" in text and (match := _NOT_OK.match(text)):
            self._end_block(sink)
            if "# TODO" in text or "# SKIP" in text:
                return True
            self._indent = match.group(1)
            self._parent = self._failed_indent is not None and len(self._indent) < len(self._failed_indent)
            self._failed_indent = self._indent
            name = match.group(2)
            # An assertion is named by what it checks (``should equal``): the test is the comment above it
            # (tape's ``# cart: sums the prices``), and two tests' equal assertions are two failures.
            test = next((text[2:] for _, text in reversed(sink.tail(3, number)) if text.startswith("# ")), None)
            key = f"tap:{test} > {name}" if test else f"tap:{name}"
            self._draft = Draft("tap", "test_failure", "", number, number, test_id=name, key=key)
            if "node" in sink.step or "--test" in sink.step:
                self._draft.tool = "node"
            return True
        draft = self._draft
        if draft is None:
            return False
        stripped = text.strip()
        if text.startswith("#") and number - draft.end <= 1 and not text.startswith("# Subtest"):
            # TAP's diagnostics are comments under the test line (bats: ``# (in test file t/a.bats, line 5)``).
            draft.end = number
            if draft.path is None and (place := first_place(text)) is not None:
                draft.path, draft.line, draft.column = place
            return True
        if stripped == "..." or (text and not text.startswith(" ")) or number - draft.start > 80:
            self._end_block(sink)
            return stripped == "..."
        if self._error_next and stripped:
            draft.message, self._error_next = stripped, False
            draft.end = number
        elif self._in_stack and (frame := _TAP_FRAME.search(stripped)) and not _TAP_FIELD.match(text):
            if frame.group(1) == draft.path:
                # ``location`` is where the test is declared; its stack's frame in that file is the failing line.
                if draft.line != int(frame.group(2)):
                    draft.line, draft.column, draft.end = int(frame.group(2)), int(frame.group(3)), number
                self._in_stack = False
        elif match := _TAP_FIELD.match(text):
            self._in_stack = match.group(1) == "stack"
            field, value = match.group(1), match.group(2).strip("'\" ")
            if field == "failureType" and value == "subtestsFailed":
                draft.kind = "unknown"  # marks a parent: dropped on close
            elif field in ("location", "at") and draft.path is None and (frame := _TAP_FRAME.search(value)):
                # tape's ``at: Test.<anonymous> (/w/test/cart.js:5:5)``: a frame, not a bare place
                draft.path, draft.line, draft.column = frame.group(1), int(frame.group(2)), int(frame.group(3))
            elif field in ("location", "at") and draft.path is None:
                path, _, rest = value.removeprefix("file://").rpartition(":")
                path, _, row = path.rpartition(":")
                draft.path, draft.line = path or None, int(row) if row.isdigit() else None
                draft.column = int(rest) if rest.isdigit() else None
            elif field == "error" and not draft.message:
                if value in ("|-", "|", ">-", ""):
                    self._error_next = True
                else:
                    draft.message, draft.end = value, number
        return True

    def close(self, sink: Sink) -> None:
        """Report the block being read, unless it only says its subtests failed; a step's end ends its stream."""
        self._end_block(sink)
        self._failed_indent = None

    def _end_block(self, sink: Sink) -> None:
        self._error_next = self._in_stack = False
        self._report(sink)

    def _finish(self, draft: Draft) -> bool:
        if draft.kind == "unknown" or (self._parent and draft.path is None):
            return False  # a parent that only says its subtests failed
        headline(draft, draft.test_id, "not ok")
        return True


# -- Playwright ----------------------------------------------------------------------------------

# The project is shown only when there are several; the title is padded with a rule cut at the width.
_PLAYWRIGHT_ITEM = re.compile(r"^\s+\d+\) (?:\[([\w-]+)\] › )?(\S+?):(\d+):(\d+) › (.+?)(?:\s+─.*)?$")


class Playwright(BlockParser):
    """Playwright's ``1) [chromium] › tests/a.spec.ts:3:5 › title`` blocks (the summary repeats them)."""

    def __init__(self) -> None:
        super().__init__()
        #: The block's failing line was read from its stack (only its first frame in the test's file counts).
        self._placed = False

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if "›" in text and (match := _PLAYWRIGHT_ITEM.match(text)):
            self.close(sink)
            project, path, row, column, title = match.groups()
            test_id = f"{path} › {title}"
            self._placed = False
            self._draft = Draft(
                "playwright",
                "test_failure",
                "",
                number,
                number,
                path=path,
                line=int(row),
                column=int(column),
                test_id=test_id,
                key=f"playwright:{project}:{test_id}",
            )
            return True
        draft = self._continue_indented(number, text, sink, most=40)
        if draft is None:
            return False
        stripped = text.strip()
        if stripped and not draft.message and not stripped.startswith("─"):
            draft.message, draft.end = stripped, number
        elif not self._placed and (frame := NODE_FRAME.match(text)) and _in_file(frame.group(1), draft.path):
            # The header names where the test is declared; its first frame in that file is the failing line.
            draft.line, draft.column, draft.end = int(frame.group(2)), int(frame.group(3)), number
            self._placed = True
        return True

    def _finish(self, draft: Draft) -> bool:
        headline(draft, draft.test_id)
        return True


def _in_file(frame_path: str, path: str | None) -> bool:
    """The frame is in the test's file (``/home/runner/work/x/x/tests/a.spec.js`` for ``tests/a.spec.js``)."""
    frame_path = frame_path.replace("\\", "/")  # ``D:\a\x\x\tests\a.spec.js`` on Windows
    return path is not None and (frame_path == path or frame_path.endswith(f"/{path}"))
