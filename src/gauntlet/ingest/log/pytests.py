"""Python test runners: pytest (failure blocks, collection errors, short summary) and unittest.

A pytest failure shows up twice, as a block in ``= FAILURES =`` and as a line in
the short summary; both carry the same key (the test's name inside its file), so
the block, which explains the failure, is the one finding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gauntlet.ingest.log.draft import Draft, Line, Sink
from gauntlet.ingest.log.place import same_file
from gauntlet.ingest.log.text import repo_path

__all__ = ["Pytest", "Unittest"]

_SECTION = re.compile(r"^={3,} (FAILURES|ERRORS) ={3,}$")
_ANY_SECTION = re.compile(r"^={3,} (.*?) ={3,}$")
#: A failed test's header: ``___ test_total ___``, or pytest-sugar's ``――― test_total ―――`` (which opens no
#: FAILURES section: its header alone starts one).
_BLOCK = re.compile(r"^(?:_{3,} (.+?) _{3,}|―{3,} (\w.*?) ―{3,})$")
#: A frame's place (``tests/a.py:9: AssertionError``, a doctest's or sybil's ``usage.md:7: SybilFailure``), or
#: pytest-check's ``tests/a.py:9 in test_a() -> check...``.
_LOCATION = re.compile(r"^(\S+?\.[A-Za-z]\w{0,8}):(\d+)(?::(?: (\S.*))?| in \w+\(\) -> .*)$")
# Not unittest's closing ``FAILED (failures=1)``: a pytest summary line names a test (``path::name``).
_SUMMARY = re.compile(r"^(FAILED|ERROR) (?!\()(\S+?)(?: - (.*))?$")
_EXCEPTION = re.compile(r"^([\w.]*(?:Error|Exception|Exit|Failure|Interrupt|Failed)\b:?.*)$")
#: pytest-timeout's ``Failed: Timeout (>2.0s) from pytest-timeout.``
_TIMED_OUT = re.compile(r"^Failed: Timeout\b")
_USAGE = re.compile(r"^(?:ERROR: (file or directory not found: .*|usage: .*|not found: .*)|pytest: error: (.*))$")
_MAX_E_LINES = 12
_LIBRARY = re.compile(r"site-packages|dist-packages|/lib/python\d|^/usr/|<frozen")


@dataclass(slots=True)
class _Block:
    start: int
    name: str
    end: int
    errors: list[str] = field(default_factory=list)
    path: str | None = None
    line: int | None = None
    raised: str | None = None
    last_e: int = 0
    test_path: str | None = None
    test_line: int | None = None


class Pytest:
    """pytest's FAILURES/ERRORS sections and its short test summary."""

    def __init__(self) -> None:
        self._section = False
        self._block: _Block | None = None
        # The failed tests the step's blocks told (key → file), and those its short summary named since.
        self._told: dict[str, str | None] = {}
        self._summarized: set[str] = set()
        self._held: dict[str, Draft] = {}

    @property
    def active(self) -> bool:
        """Inside a FAILURES/ERRORS section every line belongs to pytest."""
        return self._section

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if text.startswith("==="):
            if _SECTION.match(text):
                self._flush(sink)
                self._section = True
                return True
            if self._section and _ANY_SECTION.match(text):
                self._flush(sink)
                self._section = False
                return True
        if self._section or (text.startswith("―――") and _BLOCK.match(text)):
            self._section = True
            self._in_section(number, text, sink)
            return True
        if text.startswith(("FAILED ", "ERROR ")) and (match := _SUMMARY.match(text)):
            self._summary(number, match, sink)
            return True
        if (text.startswith(("ERROR: ", "pytest: error:"))) and (match := _USAGE.match(text)):
            message = match.group(1) or match.group(2)
            sink.emit(Draft("pytest", "build_error", message, number, number))
            return True
        return False

    def close(self, sink: Sink) -> None:
        """Flush a block cut off by the end of the log, and the fixtures' errors no test's failure told."""
        self._flush(sink)
        self._section = False
        for held in self._held.values():
            sink.emit(held)
        self._held.clear()
        self._told.clear()
        self._summarized.clear()

    def _in_section(self, number: int, text: str, sink: Sink) -> None:
        if text.startswith(("___", "―――")) and (match := _BLOCK.match(text)):
            self._flush(sink)
            self._block = _Block(start=number, name=match.group(1) or match.group(2), end=number)
            return
        block = self._block
        if block is None:
            return
        if text.startswith("E ") or text == "E" or text.startswith("FAILURE: "):  # pytest-check's failed check
            if len(block.errors) < _MAX_E_LINES:
                block.errors.append(text.removeprefix("FAILURE:").removeprefix("E").strip())
            block.last_e = number
            block.end = number
        elif (match := _LOCATION.match(text)) and not text.startswith(" "):
            what = match.group(3) or ""
            in_library = _LIBRARY.search(match.group(1)) is not None
            if block.test_path is None and not in_library:
                block.test_path, block.test_line = repo_path(match.group(1)) or match.group(1), int(match.group(2))
            if not in_library:
                # The innermost frame in the project's own code is where to look.
                block.path, block.line = match.group(1), int(match.group(2))
            if what and not what.startswith("in "):
                block.raised = what
            block.end = number

    def _flush(self, sink: Sink) -> None:
        block, self._block = self._block, None
        if block is None:
            return
        name = block.name
        message = _pick_message(block.errors) or block.raised or "failed"
        if name.startswith("ERROR collecting "):
            target = name.removeprefix("ERROR collecting ").strip()
            sink.emit(
                Draft(
                    "pytest",
                    "build_error",
                    f"collection error in {target}: {message}",
                    block.start,
                    block.end,
                    path=target,
                    line=block.line,
                    key=f"pytest:collect:{target}",
                    test_id=target,
                )
            )
            return
        fixture = name.startswith(("ERROR at setup of ", "ERROR at teardown of "))
        for prefix in ("ERROR at setup of ", "ERROR at teardown of "):
            name = name.removeprefix(prefix)
        if "/" in name or "\\" in name:
            name = repo_path(name) or name  # a test named by its file's absolute path (nbmake's notebooks)
        key = _name_key(name)
        path, line = block.path, block.line
        if _TIMED_OUT.match(message) and block.test_path is not None:
            path, line = block.test_path, block.test_line  # the test that hung, not where it was waiting
        test_id = f"{block.test_path}::{key}" if block.test_path else key
        self._told[f"pytest:{key}"] = block.test_path or path
        message = f"{key}: {message}"
        draft = Draft("pytest", "test_failure", message, block.start, block.end, path=path, line=line, test_id=test_id)
        draft.key = f"pytest:{key}"
        if fixture and path is None:
            # A fixture's error with nothing to place it (inline-snapshot's teardown check) waits for the test's
            # own failure, which tells it at the assertion; only a test that did not fail is told by it.
            self._held[draft.key or ""] = draft
            return
        self._held.pop(draft.key or "", None)
        sink.emit(draft)

    def _summary(self, number: int, match: re.Match[str], sink: Sink) -> None:
        outcome, test_id, message = match.groups()
        path, _, rest = test_id.partition("::")
        # a test collected by its absolute path (nbmake's notebooks) is named from the repository's root
        path = repo_path(path) or path
        test_id = f"{path}::{rest}" if rest else path
        if rest:
            key, kind = self._told_key(f"pytest:{rest}", path), "test_failure"
        else:
            key, kind = f"pytest:collect:{path}", "build_error"
        text = message or f"{outcome.lower()}: {test_id}"
        sink.emit(
            Draft("pytest", kind, text, number, number, path=path, test_id=test_id, key=key)  # type: ignore[arg-type]
        )

    def _told_key(self, key: str, path: str) -> str:
        """The key of the block that told the failure a summary line names: its own, else that of the one block
        in its file the summary has not named yet (sybil's ``usage.md line=7 column=1`` block is summed up as
        ``docs/usage.md::line:7,column:1``)."""
        if key not in self._told:
            untold = [told for told, file in self._told.items() if file and same_file(file, path)]
            untold = [told for told in untold if told not in self._summarized]
            key = untold[0] if len(untold) == 1 else key
        self._summarized.add(key)
        return key


def _name_key(name: str) -> str:
    """``TestX.test_y[1.5]`` → ``TestX::test_y[1.5]`` (the id's part after the file)."""
    base, bracket, params = name.partition("[")
    return base.replace(".", "::") + bracket + params


def _pick_message(errors: list[str]) -> str:
    for error in errors:
        if _EXCEPTION.match(error):
            return error
    return errors[0] if errors else ""


# -- unittest ------------------------------------------------------------------------------------

_UT_HEADER = re.compile(r"^(FAIL|ERROR): (\w+) \(([\w.]+)\)")
_RULE = re.compile(r"^(?:={20,}|-{20,})$")
_FRAME = re.compile(r'^\s*File "(.+?)", line (\d+)')
_RAISED = re.compile(r"^([\w.]+(?:Error|Exception|Exit|Failure|Interrupt|Iteration)?)(?:: (.*))?$")


class Unittest:
    """unittest's ``FAIL: test (module.Class.test)`` blocks."""

    def __init__(self) -> None:
        self._block: _Block | None = None
        self._rules = 0

    @property
    def active(self) -> bool:
        """True inside a block."""
        return self._block is not None

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if text.startswith(("FAIL: ", "ERROR: ")) and (match := _UT_HEADER.match(text)):
            self._flush(sink)
            outcome, method, where = match.groups()
            test_id = where if where.endswith("." + method) else f"{where}.{method}"
            self._block = _Block(start=number, name=test_id, end=number)
            self._block.raised = outcome
            self._rules = 0
            return True
        block = self._block
        if block is None:
            return False
        if _RULE.match(text):
            self._rules += 1
            if self._rules > 1:
                self._flush(sink)
            return True
        block.end = number
        if match := _FRAME.match(text):
            block.path, block.line = match.group(1), int(match.group(2))
        elif text and not text.startswith(" ") and _RAISED.match(text) and not text.startswith("Traceback"):
            block.errors = [text]
            block.last_e = number
        return True

    def close(self, sink: Sink) -> None:
        """Flush a block cut off by the end of the log."""
        self._flush(sink)

    def _flush(self, sink: Sink) -> None:
        block, self._block = self._block, None
        if block is None:
            return
        message = block.errors[0] if block.errors else f"{(block.raised or 'FAIL').lower()}ed"
        end = block.last_e or block.end
        sink.emit(
            Draft(
                "unittest",
                "test_failure",
                f"{block.name}: {message}",
                block.start,
                end,
                path=block.path,
                line=block.line,
                test_id=block.name,
                key=f"unittest:{block.name}",
            )
        )
