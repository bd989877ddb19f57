"""Rust: rustc/cargo diagnostics (``error[E0308]`` with ``-->`` location), clippy lints, panics."""

from __future__ import annotations

import re

from gauntlet.ingest.log.draft import Draft, Line, Sink
from gauntlet.ingest.log.tools import checker_kind

__all__ = ["Rust"]

_HEAD = re.compile(r"^error(?:\[(E\d{4})\])?: (.*)$")
#: A step that runs Rust's own tools: their diagnostics are rustc's, whatever the step checks.
_RUST_STEP = re.compile(r"\b(?:cargo|rustc|clippy-driver|rustdoc)\b")
_ARROW = re.compile(r"^\s*--> (\S+?):(\d+):(\d+)$")
_CLIPPY = re.compile(r"#\[deny\((clippy::[\w:]+)\)\]|-D (clippy::[\w-]+)|rust-clippy/[\w/]+index\.html#(\w+)")
_LINT = re.compile(r"#\[deny\(([\w:]+)\)\]|`-D ([\w:-]+)`")
# Summary lines that repeat what the diagnostics above already said.
_DRIVER = re.compile(
    r"^(?:could not compile|aborting due to|test failed, to rerun pass|build failed|"
    r"Recipe `|process didn't exit successfully|\d+ target failed|could not find `Cargo.toml`)"
)
#: cargo could not get a dependency (offline, a registry without it, versions that conflict).
_DEPENDENCY = re.compile(
    r"^(?:no matching package (?:named|found)|failed to select a version|failed to (?:get|download|load source"
    r" for|fetch)\b|Unable to update (?:registry|https?:)|the lock file .* needs to be updated|cyclic package)"
)
_PANIC_NEW = re.compile(r"^thread '(.+?)' (?:\(\d+\) )?panicked at (\S+?):(\d+):(\d+):$")
_PANIC_OLD = re.compile(r"^thread '(.+?)' (?:\(\d+\) )?panicked at '(.*)', (\S+?):(\d+):(\d+)$")
_TEST_STDOUT = re.compile(r"^---- (\S+) stdout ----$")
_MAX_BLOCK = 40


class Rust:
    """One finding per ``error``/``error[Exxxx]`` block and per panicking thread."""

    def __init__(self) -> None:
        self._draft: Draft | None = None
        self._panic: Draft | None = None
        self._test: str | None = None

    @property
    def active(self) -> bool:
        """True inside a diagnostic or right after a panic header."""
        return self._draft is not None or self._panic is not None

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if self._panic is not None:
            panic, self._panic = self._panic, None
            if text.strip() and not text.startswith(("note:", "stack backtrace")):
                panic.message = f"{panic.test_id}: {text.strip()}" if panic.test_id else text.strip()
                panic.end = number
            sink.emit(panic)
            return True
        if text.startswith("error") and (match := _HEAD.match(text)):
            self._flush(sink)
            code, message = match.groups()
            if _DEPENDENCY.match(message):
                sink.emit(Draft("cargo", "dependency", message, number, number))
                return True
            if _DRIVER.match(message):
                sink.emit(Draft("cargo", "build_error", message, number, number, role="fallback", rank=2))
                return True
            self._draft = Draft("rustc", "build_error", message, number, number, rule=code)
            return True
        draft = self._draft
        if draft is not None:
            if not text.strip() or number - draft.start > _MAX_BLOCK:
                self._flush(sink)
                return True
            if number - draft.start < 12:
                draft.end = number  # the snippet under the header shows the offending code
            if draft.path is None and (match := _ARROW.match(text)):
                draft.path, draft.line, draft.column = match.group(1), int(match.group(2)), int(match.group(3))
                draft.end = number
            elif lint := _CLIPPY.search(text):
                draft.tool, draft.kind = "clippy", "lint"
                rule = next(group for group in lint.groups() if group)
                draft.rule = rule if rule.startswith("clippy::") else f"clippy::{rule}"
            elif draft.rule is None and (lint := _LINT.search(text)):
                draft.kind, draft.rule = "lint", next(group for group in lint.groups() if group)
            return True
        if text.startswith("---- ") and (match := _TEST_STDOUT.match(text)):
            self._test = match.group(1)
            return True
        if text.startswith("thread '"):
            return self._panic_header(number, text, sink)
        return False

    def _panic_header(self, number: int, text: str, sink: Sink) -> bool:
        if match := _PANIC_NEW.match(text):
            thread, path, row, column = match.groups()
            message = "panicked"
        elif match := _PANIC_OLD.match(text):
            thread, message, path, row, column = match.groups()
        else:
            return False
        in_test = thread != "main" and (self._test == thread or "::" in thread or thread.startswith("test"))
        test_id = thread if in_test else None
        draft = Draft(
            "cargo",
            "test_failure" if in_test else "crash",
            message,
            number,
            number,
            path=path,
            line=int(row),
            column=int(column),
            test_id=test_id,
            key=f"cargo:{thread}" if in_test else None,
        )
        if message == "panicked":
            self._panic = draft  # the message is on the next line (Rust ≥ 1.73)
        else:
            sink.emit(draft)
        self._test = None
        return True

    def _flush(self, sink: Sink) -> None:
        draft, self._draft = self._draft, None
        if draft is None:
            return
        step = sink.step
        if draft.path is None and draft.tool == "rustc" and not any(w in step for w in ("cargo", "rustc", "clippy")):
            # ``error: ...`` without a ``-->`` location is printed by many tools (git, pip): only a hint.
            draft.tool, draft.kind, draft.role, draft.rank, draft.fails = None, "unknown", "fallback", 1, False
        elif draft.tool == "rustc" and "cargo" in step:
            draft.tool = "cargo"
        elif draft.tool == "rustc" and (checker := checker_kind(step)) and not _RUST_STEP.search(step):
            # Other checkers print rustc's shape (typos, miette and codespan reports): the step says whose.
            draft.tool, draft.kind = None, checker
        sink.emit(draft)

    def close(self, sink: Sink) -> None:
        """Report a diagnostic or panic cut off by the end of input."""
        self._flush(sink)
        panic, self._panic = self._panic, None
        if panic is not None:
            sink.emit(panic)
