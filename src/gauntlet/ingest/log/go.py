"""Go: ``go build``/``go vet`` diagnostics, ``go test`` failures and panics."""

from __future__ import annotations

import re
from collections.abc import Sequence

from gauntlet.ingest.log.draft import Draft, Line, Repeats, Sink, diagnostic, failed_test
from gauntlet.models import Kind

__all__ = ["Go"]

_PACKAGE = re.compile(r"^# (\S+)(?: \[\S+\])?$")
# The column is optional: ``go build -gcflags=-C``, gccgo and older toolchains print ``file.go:15: msg``.
_DIAGNOSTIC = re.compile(r"^(\S+?\.go):(\d+):(?:(\d+):)? (.*)$")
# golangci-lint names the linter at the end (``(ineffassign)``), staticcheck its check (``(SA4017)``).
_LINTER = re.compile(r" \(([a-z][a-z0-9]+|[A-Z]{1,3}\d{4})\)$")
_TEST_FAIL = re.compile(r"^\s*--- FAIL: (\S+) \(([\d.]+)s\)$")
_SUBTEST_RESULT = re.compile(r"^\s+--- (?:PASS|FAIL|SKIP): (\S+) ")
_RACE_FRAME = re.compile(r"^\s+((?:/|[A-Za-z]:\\)\S+?\.go):(\d+) \+0x")  # D:\a\x\x\ on Windows
_TEST_LOG = re.compile(r"^\s+(\S+?\.go):(\d+): (.*)$")
_PKG_FAIL = re.compile(r"^FAIL\s+(\S+)\s+(?:\[(.*?)\]|[\d.]+s)$|^FAIL$")
_PANIC = re.compile(r"^panic: (.*?)(?: \[recovered\])?$")
_GO_FRAME = re.compile(r"^\s+(/\S+?\.go|\S+?\.go):(\d+)")
_GOROOT = re.compile(
    r"/usr/local/go/|[/\\]hostedtoolcache[/\\]|[/\\]go[/\\]pkg[/\\]mod[/\\]|[/\\]src[/\\](?:runtime|testing)[/\\]"
    r"|^\s*_testmain"
)


class Go:
    """``# pkg`` + ``./x.go:3:2: msg``; ``--- FAIL: TestX`` with its log lines; ``panic:`` with its frame."""

    def __init__(self) -> None:
        self._package: str | None = None
        self._test: Draft | None = None
        self._panic: Draft | None = None
        #: A failed test whose block ended, held while its subtests' results follow: a failed subtest
        #: replaces it (the parent fails only because the subtest did).
        self._parent: Draft | None = None
        #: Inside a ``WARNING: DATA RACE`` report, and the first repository frame it named.
        self._in_race = False
        self._repeats = Repeats()
        self._race: tuple[str, int] | None = None

    @property
    def active(self) -> bool:
        """True while collecting a failed test's lines, a panic's stack, or a parent test's subtests."""
        return (
            self._test is not None
            or self._panic is not None
            or self._package is not None
            or self._parent is not None
            or self._in_race
        )

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if self._panic is not None:
            return self._in_panic(number, text, sink)
        if self._in_race_report(text) or self._subtest_result(text, sink):
            return True
        if self._test is not None:
            if text.startswith("panic: ") and (panic := _PANIC.match(text)):
                # The test died in a panic: one failure, told by the panic and placed at its frame.
                test, self._test = self._test, None
                test.message, test.end = f"{test.test_id}: panic: {panic.group(1)}", number
                self._panic = test
                return True
            if match := _TEST_LOG.match(text):
                if self._test.path is None:
                    self._locate(self._test, match, number, sink)
                self._test.end = number
                return True
            self._flush_test(sink)
        if text.startswith("# ") and (match := _PACKAGE.match(text)):
            self._package = match.group(1)
            return True
        if ".go:" in text and not text.startswith((" ", "\t")) and (match := _DIAGNOSTIC.match(text)):
            path, row, column, message = match.groups()
            if linter := _LINTER.search(message):
                rule = linter.group(1)
                tool = "staticcheck" if rule[0].isupper() else "golangci-lint"
                draft = diagnostic(tool, "lint", message[: linter.start()], number, path, row, column, rule=rule)
                sink.emit(self._repeats.keyed(draft))
                return True
            vet = "vet" in sink.step
            sink.emit(
                diagnostic(
                    "go vet" if vet else "go", "lint" if vet else "build_error", message, number, path, row, column
                )
            )
            return True
        self._package = None
        if "--- FAIL" in text and (match := _TEST_FAIL.match(text)):
            name = match.group(1)
            test = failed_test("go", name, number)
            parent, self._parent = self._parent, None
            if parent is not None and not name.startswith(f"{parent.test_id}/"):
                sink.emit(parent)
                parent = None
            self._test = test
            self._look_back(number, sink)
            if parent is not None and test.path is None and parent.path is not None:
                # ``go test -v`` printed the subtest's log line before the parent's ``--- FAIL`` line.
                test.path, test.line, test.start = parent.path, parent.line, parent.start
                test.message = f"{name}: {parent.message.partition(': ')[2]}"
            return True
        if text.startswith("FAIL") and _PKG_FAIL.match(text):
            kind: Kind = "build_error" if "build failed" in text or "setup failed" in text else "test_failure"
            sink.emit(Draft("go", kind, text, number, number, role="fallback", rank=2))
            return True
        if text.startswith("panic: ") and (match := _PANIC.match(text)):
            self._panic = Draft("go", "crash", f"panic: {match.group(1)}", number, number)
            return True
        return False

    def _in_race_report(self, text: str) -> bool:
        """Read a ``WARNING: DATA RACE`` report, keeping its first repository frame; True inside it."""
        if text.startswith("WARNING: DATA RACE"):
            self._in_race, self._race = True, None
            return True
        if not self._in_race:
            return False
        if text.startswith("=================="):
            self._in_race = False
        elif self._race is None and (frame := _RACE_FRAME.match(text)) and not _GOROOT.search(text):
            self._race = (frame.group(1), int(frame.group(2)))
        return True

    def _subtest_result(self, text: str, sink: Sink) -> bool:
        """True for a held parent's passed or skipped subtest; any other line but its failed one releases it."""
        if self._parent is None or self._test is not None:
            return False
        result = _SUBTEST_RESULT.match(text)
        if result and result.group(1).startswith(f"{self._parent.test_id}/"):
            return "--- FAIL" not in text
        self._release_parent(sink)
        return False

    def _look_back(self, number: int, sink: Sink) -> None:
        """``go test -v`` prints a test's log lines before its ``--- FAIL`` line."""
        test = self._test
        if test is None:
            return
        found: tuple[re.Match[str], int] | None = None
        for earlier, text in reversed(sink.tail(20, number)):
            if text.startswith("=== RUN"):
                if found is not None:
                    self._locate(test, found[0], found[1], sink)
                return
            if text.lstrip().startswith("--- "):
                return  # the lines above belong to the test reported there (``go test`` without ``-v``)
            if match := _TEST_LOG.match(text):
                found = (match, earlier)

    def _locate(self, test: Draft, match: re.Match[str], number: int, sink: Sink) -> None:
        """Place a failed test at its log line; a race report's line (in testing.go) at the race's own frame."""
        test.path, test.line = match.group(1), int(match.group(2))
        test.message = f"{test.test_id}: {match.group(3)}"
        test.start = min(test.start, number)
        if match.group(3).startswith("race detected") and (frame := self._race or _race_frame(sink.tail(200, number))):
            test.path, test.line = frame
            test.message = f"{test.test_id}: data race"

    def _flush_test(self, sink: Sink) -> None:
        test, self._test = self._test, None
        if test is None:
            return
        if test.test_id and "/" not in test.test_id:
            # Its subtests' results may follow; a failed one takes its place.
            self._release_parent(sink)
            self._parent = test
        else:
            sink.emit(test)

    def _release_parent(self, sink: Sink) -> None:
        parent, self._parent = self._parent, None
        if parent is not None:
            sink.emit(parent)

    def _in_panic(self, number: int, text: str, sink: Sink) -> bool:
        panic = self._panic
        assert panic is not None
        if (match := _GO_FRAME.match(text)) and not _GOROOT.search(text):
            panic.path, panic.line, panic.end = match.group(1), int(match.group(2)), number
            self._panic = None
            self._emit_panic(panic, sink)
            return True
        if number - panic.start > 60 or text.startswith(("FAIL", "exit status")):
            self._panic = None
            self._emit_panic(panic, sink)
            return False
        if text.startswith("\t") is False and text.startswith("goroutine ") and "[running]" in text:
            return True
        return True

    def _emit_panic(self, panic: Draft, sink: Sink) -> None:
        if panic.key is None:
            # A program's panic (not a test's, which its name identifies): one message at two places is two.
            panic.key = self._repeats.key(panic)
        sink.emit(panic)

    def close(self, sink: Sink) -> None:
        """Report what is still open."""
        self._flush_test(sink)
        self._release_parent(sink)
        panic, self._panic = self._panic, None
        if panic is not None:
            self._emit_panic(panic, sink)
        self._package = None


def _race_frame(lines: Sequence[Line]) -> tuple[str, int] | None:
    """The first repository frame of the last ``WARNING: DATA RACE`` report among ``lines``."""
    found: tuple[str, int] | None = None
    for _, text in lines:
        if text.startswith("WARNING: DATA RACE"):
            found = None
        elif found is None and (frame := _RACE_FRAME.match(text)) and not _GOROOT.search(text):
            found = (frame.group(1), int(frame.group(2)))
    return found
