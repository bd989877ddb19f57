"""The JVM: javac/kotlinc diagnostics, Maven (compiler, Surefire, goals), Gradle, uncaught exceptions."""

from __future__ import annotations

import re

from gauntlet.ingest.log.base import BlockParser
from gauntlet.ingest.log.draft import Draft, Line, Repeats, Sink, diagnostic, failed_test
from gauntlet.models import Kind

__all__ = ["Gradle", "Java", "Maven", "Sbt"]

#: Under Maven ``[ERROR] ``, under Ant its task's ``    [javac] `` (the task names the compiler).
_JAVAC = re.compile(
    r"^(?:\[ERROR\] |\s*\[(?:javac|kotlinc|scalac|groovyc)\] )?(\S+?\.(?:java|kt|scala|groovy)):"
    r"(?:\[(\d+),(\d+)\]|(\d+):) (?:error: )?(.*)$"
)
_KOTLIN = re.compile(r"^e: (?:file://)?(\S+?\.kts?):(?:(\d+):(\d+)|\s*\((\d+), (\d+)\):) (.*)$")
_UNCAUGHT = re.compile(r"^Exception in thread \"(.+?)\" ([\w.$]+(?:Error|Exception))(?:: (.*))?$")
_JAVA_FRAME = re.compile(r"^\s+at ([\w.$<>/]+)\((\w+\.(?:java|kt|scala)):(\d+)\)$")
_JDK = ("java.", "javax.", "jdk.", "sun.", "kotlin.", "scala.", "org.junit.", "org.apache.maven.")


class Java(BlockParser):
    """``X.java:3: error: ...`` (javac, also under Maven as ``[ERROR] /x/X.java:[3,5] ...``), kotlinc ``e:``.

    The open block is an uncaught exception, until its stack ends.
    """

    def __init__(self) -> None:
        super().__init__()
        #: One message at several lines of a file is several findings (see :class:`Repeats`).
        self._repeats = Repeats()

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if self._draft is not None:
            draft = self._draft
            frame = _JAVA_FRAME.match(text)
            if frame and not frame.group(1).startswith(_JDK) and draft.path is None:
                draft.path, draft.line, draft.end = frame.group(2), int(frame.group(3)), number
            if (frame or text.startswith(("\t...", "Caused by:"))) and number - draft.start < 60:
                return True
            self.close(sink)
        if (".java" in text or ".kt" in text or ".scala" in text) and (match := _JAVAC.match(text)):
            path, row, column, row2, message = match.groups()
            if text.startswith("[ERROR]") or "error:" in text:
                tool = "javac" if path.endswith(".java") else "kotlinc" if ".kt" in path else "scalac"
                sink.emit(
                    self._repeats.keyed(diagnostic(tool, "build_error", message, number, path, row or row2, column))
                )
                return True
            return False
        if text.startswith("e: ") and (match := _KOTLIN.match(text)):
            path, row, column, row2, column2, message = match.groups()
            sink.emit(
                self._repeats.keyed(
                    diagnostic("kotlinc", "build_error", message, number, path, row or row2, column or column2)
                )
            )
            return True
        if text.startswith("Exception in thread") and (match := _UNCAUGHT.match(text)):
            name = match.group(2)
            self._draft = Draft("java", "crash", f"{name}: {match.group(3) or ''}".strip(": "), number, number)
            return True
        return False


def _junit_key(test_id: str) -> str:
    # Maven and Gradle both run JUnit: a test keeps one identity (class.method) whichever of them ran it.
    return "junit:" + ".".join(test_id.split(".")[-2:])


_SUREFIRE_NEW = re.compile(r"^\[ERROR\] ([\w.$]+)\.(\w+)(?:\(.*?\))? -- Time elapsed: .*<<< (FAILURE|ERROR)!$")
_SUREFIRE_OLD = re.compile(r"^\[ERROR\] (\w+)\(([\w.$]+)\)\s+Time elapsed: .*<<< (FAILURE|ERROR)!$")
# Surefire's ``Results:`` rows name the test class's line: ``[ERROR]   PriceTest.addsTax:9 expected: <1> ...``.
_SUREFIRE_ROW = re.compile(r"^\[ERROR\]\s{2,}(\w+)\.(\w+):(\d+) ")
_MAVEN_GOAL = re.compile(r"^\[ERROR\] Failed to execute goal (\S+) .*?: (.*)$")
_MAVEN_DEPENDENCY = re.compile(
    r"Could not resolve dependencies|Could not transfer artifact|Could not find artifact|"
    r"Non-resolvable parent POM|Plugin .* could not be resolved"
)


class Maven(BlockParser):
    """Surefire per-test failures (``<<< FAILURE!``), ``Failed to execute goal`` and ``BUILD FAILURE``.

    The open block is a failed test's header, whose message is on the next line. Failed tests are held
    until the build's end: the ``Results:`` rows below them name the line in the test class.
    """

    def __init__(self) -> None:
        super().__init__()
        self._tests: dict[str, Draft] = {}

    @property
    def active(self) -> bool:
        """True inside a failed test's header (held tests need no more lines than Maven's own)."""
        return self._draft is not None

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if (test := self._draft) is not None:
            self._draft = None
            if text.strip() and not text.startswith("["):
                test.message = f"{test.test_id}: {text.strip()}"
                test.end = number
            self._tests.setdefault(test.test_id or "", test)
            if test.end == number:
                return True
        if row := _SUREFIRE_ROW.match(text):
            held = next((t for t in self._tests.values() if (t.test_id or "").endswith(f"{row[1]}.{row[2]}")), None)
            if held is not None and held.path is None:
                # The class's file, as far as the log names it: Java keeps a public class in ``Name.java``.
                held.path, held.line = f"{row[1]}.java", int(row[3])
            return True
        if not text.startswith("[ERROR]"):
            if text.startswith("[INFO] BUILD FAILURE"):
                self._flush_tests(sink)
                sink.emit(Draft("maven", "build_error", "BUILD FAILURE", number, number, role="fallback", rank=1))
                return True
            return False
        match = _SUREFIRE_NEW.match(text)
        if match:
            test_id = f"{match.group(1)}.{match.group(2)}"
        elif match := _SUREFIRE_OLD.match(text):
            test_id = f"{match.group(2)}.{match.group(1)}"
        if match:
            self._draft = failed_test("maven", test_id, number, key=_junit_key(test_id))
            return True
        if match := _MAVEN_GOAL.match(text):
            self._flush_tests(sink)
            message = match.group(2)
            kind: Kind = "dependency" if _MAVEN_DEPENDENCY.search(message) else "build_error"
            if kind == "dependency":
                sink.emit(Draft("maven", kind, message, number, number, rule=match.group(1)))
            else:
                sink.emit(Draft("maven", kind, message, number, number, rule=match.group(1), role="fallback", rank=2))
            return True
        if _MAVEN_DEPENDENCY.search(text):
            sink.emit(Draft("maven", "dependency", text.removeprefix("[ERROR]").strip(), number, number))
            return True
        return True  # Maven's other [ERROR] lines repeat or advise; they explain nothing new

    def _flush_tests(self, sink: Sink) -> None:
        tests, self._tests = self._tests, {}
        for test in tests.values():
            sink.emit(test)

    def close(self, sink: Sink) -> None:
        """Report the header being read and the failed tests held."""
        self._report(sink)
        self._flush_tests(sink)


_GRADLE_TEST = re.compile(r"^([\w.$]+) > (.+?) FAILED$")
_GRADLE_WRONG = re.compile(r"^\* What went wrong:$")
_GRADLE_DEPENDENCY = re.compile(r"Could not resolve|Could not find|Could not download|Could not GET")


class Gradle:
    """``Class > test FAILED`` with the exception line under it, and ``* What went wrong:``."""

    def __init__(self) -> None:
        self._test: Draft | None = None
        self._wrong: Draft | None = None

    @property
    def active(self) -> bool:
        """True inside a failed test or a What-went-wrong block."""
        return self._test is not None or self._wrong is not None

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if self._test is not None:
            test, self._test = self._test, None
            if text.startswith("    ") and text.strip():
                test.message, test.end = f"{test.test_id}: {text.strip()}", number
                frame = re.search(r" at (\w+\.(?:java|kt|groovy|scala)):(\d+)$", text)
                if frame:
                    test.path, test.line = frame.group(1), int(frame.group(2))
            sink.emit(test)
            if test.end == number:
                return True
        if self._wrong is not None:
            wrong = self._wrong
            if text.strip() and not text.startswith("* ") and number - wrong.start < 15:
                wrong.message = f"{wrong.message} {text.strip()}".strip()
                wrong.end = number
                return True
            self._wrong = None
            if _GRADLE_DEPENDENCY.search(wrong.message):
                wrong.kind, wrong.role = "dependency", "primary"
            sink.emit(wrong)
        if text.endswith(" FAILED") and (match := _GRADLE_TEST.match(text)):
            test_id = f"{match.group(1)}.{match.group(2)}"
            self._test = failed_test("gradle", test_id, number, key=_junit_key(test_id))
            return True
        if _GRADLE_WRONG.match(text):
            self._wrong = Draft("gradle", "build_error", "", number, number, role="fallback", rank=2)
            return True
        return False

    def close(self, sink: Sink) -> None:
        """Report what is still open."""
        for draft in (self._test, self._wrong):
            if draft is not None:
                sink.emit(draft)
        self._test = self._wrong = None


# sbt 1.x prints a column (``Foo.scala:6:12:``), sbt 0.13 none (``Foo.scala:6:``).
_SBT_ERROR = re.compile(r"^\[error\] (\S+?\.(?:scala|java)):(\d+):(?:(\d+):)? (.*)$")
_SCALATEST_FAILED = re.compile(r"^(?:\[info\] )?\s*- (.+?) \*\*\* FAILED \*\*\*(?: \(.*\))?$")
_SCALATEST_WHERE = re.compile(r"\((\w+\.scala):(\d+)\)$")


class Sbt(BlockParser):
    """sbt's ``[error] Foo.scala:3:5: ...`` compiler lines and ScalaTest's ``- test *** FAILED ***``.

    The open block is a failed test, whose reason follows on the next line.
    """

    def __init__(self) -> None:
        super().__init__()
        #: One message at several lines of a file is several findings (see :class:`Repeats`).
        self._repeats = Repeats()

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        if (test := self._draft) is not None:
            body = text.removeprefix("[info]").strip()
            reason = bool(body) and not _SCALATEST_FAILED.match(text) and number - test.end <= 1
            if reason:
                where = _SCALATEST_WHERE.search(body)
                test.message = f"{test.test_id}: {body}"
                if where:
                    test.path, test.line = where.group(1), int(where.group(2))
                test.end = number
            self.close(sink)
            if reason:
                return True
        if text.startswith("[error] ") and (match := _SBT_ERROR.match(text)):
            path, row, column, message = match.groups()
            sink.emit(self._repeats.keyed(diagnostic("scalac", "build_error", message, number, path, row, column)))
            return True
        if "FAILED" in text and (match := _SCALATEST_FAILED.match(text)):
            name = match.group(1)
            self._draft = failed_test("scalatest", name, number)
            return True
        return False
