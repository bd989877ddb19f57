"""C and C++: gcc/clang diagnostics, the linker, sanitizers, make, cmake and ctest."""

from __future__ import annotations

import re

from gauntlet.ingest.log.base import BlockParser, LineParser
from gauntlet.ingest.log.diagnostics import step_tool
from gauntlet.ingest.log.draft import Draft, Line, Repeats, Sink, diagnostic
from gauntlet.ingest.log.place import project_place
from gauntlet.ingest.log.tools import TEST_VERDICT, checker_kind, step_kind
from gauntlet.models import Kind

__all__ = ["CMake", "CTest", "Compiler", "Make", "Sanitizer", "Valgrind"]

_SOURCE = r"\S+?\.(?:c|cc|cpp|cxx|c\+\+|h|hh|hpp|hxx|ipp|tcc|m|mm|cu|cuh|s|S|ino|f90|f)"
_DIAGNOSTIC = re.compile(rf"^({_SOURCE}):(\d+):(?:(\d+):)? (fatal error|error): (.*?)(?: \[(-W[\w=-]+)\])?$")
# The same shape from other compilers (swiftc, zig, gfortran, ghc, nim, dmd): named by extension.
_OTHER_DIAGNOSTIC = re.compile(
    r"^(\S+?\.(swift|zig|f90|f95|hs|nim|d|cr|v|sv|vhd|sol|dart|scala|ex|exs|erl)):(\d+):(?:(\d+):)?"
    r" (?:fatal )?error: (.*)$"
)
_OTHER_TOOLS = {
    "swift": "swiftc",
    "zig": "zig",
    "f90": "gfortran",
    "f95": "gfortran",
    "hs": "ghc",
    "nim": "nim",
    "d": "dmd",
    "cr": "crystal",
    "v": "verilator",
    "sv": "verilator",
    "vhd": "ghdl",
    "sol": "solc",
    "dart": "dart",
    "scala": "scalac",
    "ex": "elixir",
    "exs": "elixir",
    "erl": "erlc",
}
_RUNTIME = re.compile(rf"^({_SOURCE}):(\d+):(\d+): runtime error: (.*)$")
_LINKER = re.compile(
    r"(undefined reference to [`'].*|multiple definition of [`'].*|cannot find -l\S+|undefined symbol: .*|"
    r"ld: symbol\(s\) not found.*|Undefined symbols for architecture.*)"
)
# ``main.c:(.text+0x9): undefined ...``; with debug information ``src/b.cpp:1: multiple definition ...``.
_LINK_WHERE = re.compile(
    rf"^({_SOURCE}):(?:\(|(\d+): )|^(?:/\S*/)?(?:ld|ld\.\w+|lld)(?:\.exe)?: (?:error: )?({_SOURCE}):(?:(\d+): )?"
)
_SNIPPET = re.compile(r"^\s+(?:\d+\s)?\|")
_COLLECT2 = re.compile(r"^collect2: error: ld returned (\d+) exit status|^clang(?:\+\+)?: error: linker command failed")


class Compiler(BlockParser):
    """``file.c:3:5: error: ...`` from gcc/clang, linker errors, UBSan ``runtime error``.

    The open block is a diagnostic waiting for the source snippet gcc and clang print under it (``  7 | code``).
    """

    def __init__(self) -> None:
        super().__init__()
        self._repeats = Repeats()
        self._last: tuple[str, str] | None = None

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        pending = self._draft
        if pending is not None:
            if _SNIPPET.match(text) and number - pending.end == 1 and number - pending.start < 6:
                pending.end = number
                return True
            self.close(sink)
        if "error" in text:
            if match := _DIAGNOSTIC.match(text):
                path, row, column, _, message, flag = match.groups()
                if (path, row) == self._last:
                    return True  # a second error on the same line is the first one's cascade, or its note
                self._last = (path, row)
                tool: str | None = _compiler(path, sink)
                # A checker the step ran prints the compiler's shape too (``clang-format --dry-run -Werror``'s
                # ``src/a.c:4:14: error: code should be clang-formatted``): its kind, and its name.
                checker = checker_kind(sink.step)
                if checker is not None and tool not in ("cppcheck", "clang-tidy"):
                    tool = step_tool(sink.step) or tool
                kind: Kind = checker or ("lint" if tool in ("cppcheck", "clang-tidy") else "build_error")
                if TEST_VERDICT.search(message) and step_kind(sink.step) == "test_failure":
                    # A C or C++ test framework prints its failures in the compiler's shape (CppUTest's
                    # ``tests/a.cpp:14: error: Failure in TEST(Cart, Total)``, Unity's ``:FAIL:``).
                    tool, kind = None, "test_failure"
                self._draft = self._repeats.keyed(diagnostic(tool, kind, message, number, path, row, column, rule=flag))
                return True
            if match := _OTHER_DIAGNOSTIC.match(text):
                path, extension, row, column, message = match.groups()
                if "XCTAssert" in message or message.startswith("-["):  # XCTest reports failures as errors
                    name = message[2 : message.find("]")] if message.startswith("-[") else None
                    sink.emit(
                        Draft(
                            "xctest",
                            "test_failure",
                            message,
                            number,
                            number,
                            path=path,
                            line=int(row),
                            test_id=name,
                            key=f"xctest:{name}" if name else None,
                        )
                    )
                    return True
                # A checker's (swiftlint, a Verilog linter) when the step ran one: the step says so.
                checker = checker_kind(sink.step)
                named = None if checker else _OTHER_TOOLS.get(extension)
                found = diagnostic(named, checker or "build_error", message, number, path, row, column)
                sink.emit(self._repeats.keyed(found))
                return True
            if match := _RUNTIME.match(text):
                path, row, column, message = match.groups()
                sink.emit(diagnostic("ubsan", "crash", f"runtime error: {message}", number, path, row, column))
                return True
            if match := _COLLECT2.match(text):
                sink.emit(Draft("ld", "build_error", text, number, number, role="fallback", rank=2))
                return True
        if ("undefined" in text or "multiple definition" in text or "cannot find -l" in text) and (
            match := _LINKER.search(text)
        ):
            where = _LINK_WHERE.match(text)
            path = (where.group(1) or where.group(3)) if where else None
            # ``ld: src/main.c:7: undefined ...``: after the first, ld prefixes each reference with its own name.
            row_text = (where.group(2) or where.group(4)) if where else None
            row = int(row_text) if row_text else None
            sink.emit(Draft("ld", "build_error", match.group(1), number, number, path=path, line=row))
            return True
        return False


def _compiler(path: str, sink: Sink) -> str:
    step = sink.step
    if "cppcheck" in step or "clang-tidy" in step:
        return "cppcheck" if "cppcheck" in step else "clang-tidy"
    if "clang" in step:
        return "clang"
    if "nvcc" in step or path.endswith((".cu", ".cuh")):
        return "nvcc"
    return "gcc" if path.endswith((".c", ".h")) else "g++"


# -- sanitizers ----------------------------------------------------------------------------------

_SAN_HEAD = re.compile(r"^==\d+==\s*ERROR: (\w*Sanitizer): (.*?)(?: on (?:address|unknown address) .*)?$")
_SAN_FRAME = re.compile(rf"^\s*#\d+ 0x[0-9a-f]+ in (\S+) ({_SOURCE}):(\d+)")
_SAN_END = re.compile(r"^SUMMARY: (\w*Sanitizer): (.*)$|^==\d+==ABORTING")
_SANITIZER_TOOL = {
    "AddressSanitizer": "asan",
    "LeakSanitizer": "lsan",
    "ThreadSanitizer": "tsan",
    "MemorySanitizer": "msan",
    "UndefinedBehaviorSanitizer": "ubsan",
}
_SAN_LIBRARY = re.compile(r"/(?:usr|lib|opt)/|compiler-rt|sanitizer_common|libasan")


class Sanitizer:
    """AddressSanitizer, LeakSanitizer, ThreadSanitizer, MemorySanitizer reports (one per report)."""

    def __init__(self) -> None:
        self._start: int | None = None
        self._what = ""
        self._tool = ""
        self._where: tuple[str, int] | None = None

    @property
    def active(self) -> bool:
        """True inside a report."""
        return self._start is not None

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if text.startswith("==") and (match := _SAN_HEAD.match(text)):
            self._start, self._tool, self._what, self._where = number, match.group(1), match.group(2), None
            return True
        if self._start is None:
            return False
        if self._where is None and (frame := _SAN_FRAME.match(text)) and not _SAN_LIBRARY.search(frame.group(2)):
            self._where = (frame.group(2), int(frame.group(3)))
        if _SAN_END.match(text) or number - self._start > 400:
            self._flush(number, sink)
        return True

    def _flush(self, end: int, sink: Sink) -> None:
        start, self._start = self._start, None
        if start is None:
            return
        path, row = self._where if self._where else (None, None)
        tool = _SANITIZER_TOOL.get(self._tool, self._tool.lower())
        sink.emit(Draft(tool, "crash", f"{self._tool}: {self._what}", start, min(end, start + 59), path=path, line=row))

    def close(self, sink: Sink) -> None:
        """Report a sanitizer block cut off by the end of input."""
        if self._start is not None:
            self._flush(self._start, sink)


# -- valgrind ------------------------------------------------------------------------------------

_VG_ERROR = re.compile(
    r"^==\d+== (Invalid (?:read|write|free\(\)) .*|Conditional jump or move depends on uninitialised value.*|"
    r"Use of uninitialised value.*|Mismatched free\(\) .*|Syscall param .*|Source and destination overlap.*|"
    r"Process terminating with default action of signal .*)$"
)
_VG_FRAME = re.compile(r"^==\d+==\s+(?:at|by) 0x[0-9A-Fa-f]+: .*? \((\S+?):(\d+)\)$")


class Valgrind(BlockParser):
    """valgrind memcheck's first error (``==12== Invalid read of size 4``), placed at its first source frame."""

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if not text.startswith("=="):
            return False
        if self._draft is None:
            if match := _VG_ERROR.match(text):
                self._draft = Draft("valgrind", "crash", match.group(1), number, number)
                return True
            return False
        draft = self._draft
        if draft.path is None and (frame := _VG_FRAME.match(text)) and not _SAN_LIBRARY.search(frame.group(1)):
            draft.path, draft.line, draft.end = frame.group(1), int(frame.group(2)), number
            return True
        if number - draft.start > 30 or text.rstrip().endswith("=="):
            self.close(sink)  # a report ends at valgrind's empty ``==12==`` line
        return True


# -- build drivers -------------------------------------------------------------------------------

_MAKE = re.compile(r"^(?:g?make|mingw32-make|gmake)(?:\[\d+\])?: \*\*\* (?:\[(.+?)\] Error (\d+)|(.*))$")
_NINJA = re.compile(r"^FAILED: (\S.*)$|^ninja: build stopped: (.*)$")
_CTEST_PROGRESS = re.compile(
    r"^\s*\d+/\d+ Test\s+#\d+: (\S+) \.+\s*\**(Failed|Exception|Timeout|SegFault|Child aborted)"
)
_CTEST_LIST = re.compile(r"^\s*\d+ - (\S+) \((Failed|Timeout|SEGFAULT|Subprocess aborted|Not Run|Exception)\)")


def gave_up(text: str) -> bool:
    """Whether ``text`` is make's or ninja's line for a target it gave up on (``make: *** [a.o] Error 1``)."""
    match = _MAKE.match(text) if "***" in text else None
    return (match is not None and match.group(1) is not None) or text.startswith("FAILED: ")


class Make(LineParser):
    """make and ninja: drivers whose own lines matter only when no compiler line did."""

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if "***" in text and (match := _MAKE.match(text)):
            target, _, other = match.groups()
            if other is not None and other.startswith("No rule to make target"):
                sink.emit(Draft("make", "build_error", other, number, number))
            else:
                message = other or f"make target {target} failed"
                # the target says what failed: ``[Makefile:2: test] Error 1`` is a test run's failure
                name = (target or "").rsplit(":", 1)[-1].strip()
                kind: Kind = "test_failure" if step_kind(f"make {name}") == "test_failure" else "build_error"
                sink.emit(Draft("make", kind, message, number, number, role="fallback", rank=2))
            return True
        if text.startswith(("FAILED: ", "ninja: build stopped")) and (match := _NINJA.match(text)):
            sink.emit(Draft("ninja", "build_error", text, number, number, role="fallback", rank=2))
            return True
        return False


#: The lines that end a test's output under its ctest verdict: the next test, the summary.
_CTEST_END = re.compile(r"^\s*(?:Start\s+\d+: |\d+/\d+ Test\s+#|\d+% tests passed|The following tests)")
#: A test's output line that says what failed (the framework's assertion or error).
_CTEST_SAID = re.compile(r"(?i)\b(?:error|fail(?:ed|ure)?|assert\w*)\b")
#: Lines of a test's output read for its place.
_CTEST_OUTPUT = 40


class CTest(BlockParser):
    """ctest's failed test (``1/2 Test #1: sum_works ...***Failed``, or the list at the end), placed where the
    output it prints under it (``--output-on-failure``) says its framework failed.

    Whatever framework the test ran (Boost.Test's ``tests/a.cpp(12): error: in "t": ...``, Catch2's, doctest's,
    a plain ``assert``), the first project ``path:line`` of that output is where it failed; a framework a
    parser knows (GoogleTest) claims its lines before this sees them.
    """

    def __init__(self) -> None:
        super().__init__()
        self._said = False

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        draft = self._draft
        if draft is not None:
            if _CTEST_END.match(text) or number - draft.start > _CTEST_OUTPUT:
                self.close(sink)
            else:
                self._read_output(draft, number, text)
                return True
        if ("Test" in text and (match := _CTEST_PROGRESS.match(text))) or (match := _CTEST_LIST.match(text)):
            name, outcome = match.groups()
            kind: Kind = "timeout" if outcome.lower() == "timeout" else "test_failure"
            self._draft = Draft("ctest", kind, f"{name}: {outcome}", number, number, test_id=name, key=f"ctest:{name}")
            self._said = False
            return True
        return False

    def _read_output(self, draft: Draft, number: int, text: str) -> None:
        """Take the test's place and what failed from a line of its output."""
        if draft.path is None and (place := project_place([text], None)) is not None:
            draft.path, draft.line, draft.column = place
            draft.end = number
        if not self._said and _CTEST_SAID.search(text):
            self._said = True
            draft.message = f"{draft.test_id}: {text.strip()}"
            draft.end = max(draft.end, number)


_CMAKE_AT = re.compile(r"^CMake Error(?: at (\S+?):(\d+) \((\w+)\))?:\s*(.*)$")
#: A frame of the call stack under an error raised inside a module: ``  CMakeLists.txt:4 (find_package)``.
_CMAKE_FRAME = re.compile(r"^\s+(\S+?):(\d+) \((\w+)\)$")
#: CMake's own modules (and any absolute path): the error was raised there, the project's call is below.
_CMAKE_OUTSIDE = re.compile(r"^(?:/|[A-Za-z]:[/\\])(?!home/runner/work/|__w/|github/workspace/|[A-Za-z]:[/\\]a[/\\])")


class CMake(BlockParser):
    """``CMake Error at CMakeLists.txt:3 (find_package):`` and the indented message under it.

    An error raised inside one of CMake's modules (``FindPackageHandleStandardArgs.cmake:230``) is placed at
    the project's own call, the first frame of its ``Call Stack`` outside those modules.
    """

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if text.startswith("CMake Error") and (match := _CMAKE_AT.match(text)):
            self.close(sink)
            path, row, command, message = match.groups()
            self._draft = Draft(
                "cmake", "build_error", message, number, number, path=path, line=int(row) if row else None, rule=command
            )
            return True
        draft = self._draft
        if draft is None:
            return False
        if text.startswith("Call Stack (most recent call first):") and number - draft.start < 30:
            draft.end = number
            return True
        if (frame := _CMAKE_FRAME.match(text)) and number - draft.start < 30:
            outside = draft.path is None or _CMAKE_OUTSIDE.match(draft.path)
            if outside and not _CMAKE_OUTSIDE.match(frame.group(1)):
                draft.path, draft.line, draft.rule = frame.group(1), int(frame.group(2)), frame.group(3)
            draft.end = number
            return True
        if text.startswith(" ") and text.strip() and number - draft.start < 30:
            if len(draft.message) < 300:
                draft.message = f"{draft.message} {text.strip()}".strip()
            draft.end = number
            return True
        if not text.strip() and number == draft.end + 1:
            return True  # the blank line between the header and its message
        self.close(sink)
        return False

    def _finish(self, draft: Draft) -> bool:
        if draft.message.startswith("Could NOT find") or "find_package" in (draft.rule or ""):
            draft.kind = "dependency"
        if draft.path is not None and _CMAKE_OUTSIDE.match(draft.path):
            draft.path = draft.line = None  # only a module's line: no place in the project
        return True
