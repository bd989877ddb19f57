"""Go: ``go build``/``go vet`` diagnostics, ``go test`` failures and panics."""

from __future__ import annotations

import re

from gauntlet.ingest.log.draft import Draft, Line, Sink, diagnostic, failed_test
from gauntlet.models import Kind

__all__ = ["Go"]

_PACKAGE = re.compile(r"^# (\S+)(?: \[\S+\])?$")
_DIAGNOSTIC = re.compile(r"^(\S+?\.go):(\d+):(\d+): (.*)$")
_LINTER = re.compile(r" \(([a-z][a-z0-9]+)\)$")
_TEST_FAIL = re.compile(r"^\s*--- FAIL: (\S+) \(([\d.]+)s\)$")
_TEST_LOG = re.compile(r"^\s+(\S+?\.go):(\d+): (.*)$")
_PKG_FAIL = re.compile(r"^FAIL\s+(\S+)\s+(?:\[(.*?)\]|[\d.]+s)$|^FAIL$")
_PANIC = re.compile(r"^panic: (.*?)(?: \[recovered\])?$")
_GO_FRAME = re.compile(r"^\s+(/\S+?\.go|\S+?\.go):(\d+)")
_GOROOT = re.compile(r"/usr/local/go/|/opt/hostedtoolcache/go/|/go/pkg/mod/|/src/runtime/|/src/testing/|^\s*_testmain")


class Go:
    """``# pkg`` + ``./x.go:3:2: msg``; ``--- FAIL: TestX`` with its log lines; ``panic:`` with its frame."""

    def __init__(self) -> None:
        self._package: str | None = None
        self._test: Draft | None = None
        self._panic: Draft | None = None

    @property
    def active(self) -> bool:
        """True while collecting a failed test's lines or a panic's stack."""
        return self._test is not None or self._panic is not None or self._package is not None

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if self._panic is not None:
            return self._in_panic(number, text, sink)
        if self._test is not None:
            if text.startswith("panic: ") and (panic := _PANIC.match(text)):
                # The test died in a panic: one failure, told by the panic and placed at its frame.
                test, self._test = self._test, None
                test.message, test.end = f"{test.test_id}: panic: {panic.group(1)}", number
                self._panic = test
                return True
            if match := _TEST_LOG.match(text):
                if self._test.path is None:
                    self._test.path, self._test.line = match.group(1), int(match.group(2))
                    self._test.message = f"{self._test.test_id}: {match.group(3)}"
                self._test.end = number
                return True
            self._flush_test(sink)
        if text.startswith("# ") and (match := _PACKAGE.match(text)):
            self._package = match.group(1)
            return True
        if ".go:" in text and (match := _DIAGNOSTIC.match(text)):
            path, row, column, message = match.groups()
            if linter := _LINTER.search(message):
                # golangci-lint names the linter at the end: ``ineffectual assignment to x (ineffassign)``.
                sink.emit(
                    diagnostic(
                        "golangci-lint",
                        "lint",
                        message[: linter.start()],
                        number,
                        path,
                        row,
                        column,
                        rule=linter.group(1),
                    )
                )
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
            self._test = failed_test("go", name, number)
            self._look_back(number, sink)
            return True
        if text.startswith("FAIL") and _PKG_FAIL.match(text):
            kind: Kind = "build_error" if "build failed" in text or "setup failed" in text else "test_failure"
            sink.emit(Draft("go", kind, text, number, number, role="fallback", rank=2))
            return True
        if text.startswith("panic: ") and (match := _PANIC.match(text)):
            self._panic = Draft("go", "crash", f"panic: {match.group(1)}", number, number)
            return True
        return False

    def _look_back(self, number: int, sink: Sink) -> None:
        """``go test -v`` prints a test's log lines before its ``--- FAIL`` line."""
        test = self._test
        if test is None:
            return
        for earlier, text in reversed(sink.tail(20, number)):
            if text.startswith("=== RUN") or text.startswith("--- "):
                break
            if match := _TEST_LOG.match(text):
                test.path, test.line = match.group(1), int(match.group(2))
                test.message = f"{test.test_id}: {match.group(3)}"
                test.start = earlier

    def _flush_test(self, sink: Sink) -> None:
        test, self._test = self._test, None
        if test is not None:
            sink.emit(test)

    def _in_panic(self, number: int, text: str, sink: Sink) -> bool:
        panic = self._panic
        assert panic is not None
        if (match := _GO_FRAME.match(text)) and not _GOROOT.search(text):
            panic.path, panic.line, panic.end = match.group(1), int(match.group(2)), number
            self._panic = None
            sink.emit(panic)
            return True
        if number - panic.start > 60 or text.startswith(("FAIL", "exit status")):
            self._panic = None
            sink.emit(panic)
            return False
        if text.startswith("\t") is False and text.startswith("goroutine ") and "[running]" in text:
            return True
        return True

    def close(self, sink: Sink) -> None:
        """Report what is still open."""
        self._flush_test(sink)
        panic, self._panic = self._panic, None
        if panic is not None:
            sink.emit(panic)
        self._package = None
