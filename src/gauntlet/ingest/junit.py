"""JUnit XML (pytest, jest-junit, vitest, Maven surefire, go-junit-report, cargo2junit, ruff): failed test cases.

Every ``<failure>`` and ``<error>`` of a ``<testcase>`` is a ``test_failure``
with a ``test_id``, and a file and line where the report gives them (an
attribute, or the test file's frame in the failure text). Passing, skipped and
flaky-but-passed cases are not findings. Dialects differ in how they name
tests; :func:`_test_id` turns pytest's back into its node ids (what the log
shows), so the same failure from both merges. Ruff writes lint errors as JUnit
test cases; those stay ``lint`` findings with their rule.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO
from xml.etree.ElementTree import Element

from gauntlet.classify.defaults import default_severity
from gauntlet.ingest.failure_text import before_stack, failure_location, failure_message, strip_ansi
from gauntlet.ingest.limits import Limits
from gauntlet.ingest.paths import repo_relative
from gauntlet.ingest.structured import Fingerprints, excerpt, logger, one_line
from gauntlet.ingest.values import xml_position
from gauntlet.ingest.xml import iter_elements, local_name
from gauntlet.models import Finding, Kind, Severity

__all__ = ["MAX_TEST_IDS", "TestIds", "read_junit", "read_test_ids"]

_PROBLEMS = ("failure", "error")
_XSI_SCHEMA = "{http://www.w3.org/2001/XMLSchema-instance}noNamespaceSchemaLocation"
_RUFF_SEVERITY: dict[str, Severity] = {"error": "major", "warning": "minor"}
_JS_FRAME = re.compile(r"\(?(?P<file>(?:/|[A-Za-z]:\\|file://)[^\s():]+):(?P<line>\d+):\d+\)?")
# Rust: "thread 'tests::x' (123) panicked at src/lib.rs:11:9:" then the message on the next line.
_PANIC = re.compile(r"panicked at (?P<file>[^\s:]+):(?P<line>\d+):\d+:\s*\n\s*(?P<message>[^\n]+)")


def read_junit(stream: BinaryIO, name: str, limits: Limits, *, root: str | None = None) -> Iterator[Finding]:
    """Yield a finding per failed or errored test case.

    :param root: the repository's absolute path, to make absolute file names relative.
    :raises InputError: not well-formed or refused XML, or beyond the size limits.
    """
    fingerprints = Fingerprints()
    emitted = 0
    cases = iter_elements(stream, name, max_bytes=limits.max_document_bytes, tags=frozenset({"testcase"}))
    for case, ancestors in cases:
        problem = next((child for child in case if local_name(child.tag) in _PROBLEMS), None)
        if problem is None:
            continue
        tool = _tool(ancestors)
        if tool == "ruff":
            yield _ruff_finding(case, problem, ancestors, limits, root, fingerprints)
        else:
            yield _test_finding(case, problem, tool, limits, root, fingerprints)
        emitted += 1
        if emitted >= limits.max_findings:
            logger.warning("%s: stopped after %d findings", name, emitted)
            return


#: Passing test ids kept per report: enough for the tests that failed before, bounded for a huge suite.
MAX_TEST_IDS = 20_000
_FLAKY = ("flakyFailure", "flakyError")
_SKIPPED = "skipped"


@dataclass(frozen=True)
class TestIds:
    """What a report says about the tests that are not findings: passed, and passed only on a retry."""

    __test__ = False  # not a pytest test class

    passed: tuple[str, ...] = ()
    #: Surefire/Gradle ``<flakyFailure>``/``<flakyError>``: failed, then passed on a rerun of the same commit.
    flaky: tuple[str, ...] = ()


def read_test_ids(stream: BinaryIO, name: str, limits: Limits, *, root: str | None = None) -> TestIds:
    """The ids of the passing test cases (named as :func:`read_junit` names failing ones), for the outcome history.

    :raises InputError: not well-formed or refused XML, or beyond the size limits.
    """
    passed: list[str] = []
    flaky: list[str] = []
    cases = iter_elements(stream, name, max_bytes=limits.max_document_bytes, tags=frozenset({"testcase"}))
    for case, ancestors in cases:
        tags = {local_name(child.tag) for child in case}
        if tags & {*_PROBLEMS, _SKIPPED} or len(passed) + len(flaky) >= MAX_TEST_IDS:
            continue
        tool = _tool(ancestors)
        path = repo_relative(case.get("file"), root=root)
        classname = case.get("classname", "").strip()
        if path is None and _looks_like_file(classname):
            path = repo_relative(classname, root=root)
        test_id = _test_id(tool, classname, case.get("name", "").strip(), path)[:500]
        if test_id:
            (flaky if tags & set(_FLAKY) else passed).append(test_id)
    return TestIds(passed=tuple(passed), flaky=tuple(flaky))


def _tool(ancestors: list[Element]) -> str | None:
    for element in ancestors:
        suite = element.get("name", "")
        if suite == "ruff" or element.get("package") == "org.ruff":
            return "ruff"
        if suite in {"pytest", "pytest tests"}:
            return "pytest"
        if suite == "jest tests":
            return "jest"
        if suite == "vitest tests":
            return "vitest"
        if suite == "test" and element.get("package") == "test":
            return "cargo"  # libtest's --format junit
        if "surefire" in element.get(_XSI_SCHEMA, ""):
            return "surefire"
        for prop in element.iter("property"):
            if prop.get("name") == "go.version":
                return "go"
    return None


def _test_finding(
    case: Element, problem: Element, tool: str | None, limits: Limits, root: str | None, fps: Fingerprints
) -> Finding:
    classname = case.get("classname", "").strip()
    name = case.get("name", "").strip()
    path = repo_relative(case.get("file"), root=root)
    if path is None and _looks_like_file(classname):
        path = repo_relative(classname, root=root)
    test_id = _test_id(tool, classname, name, path)
    if tool == "pytest" and path is None and "::" in test_id:
        path = test_id.split("::", 1)[0]
    text = strip_ansi((problem.text or "").strip() or _captured_output(case))
    panic = _PANIC.search(text)
    if panic and path is None:
        path = repo_relative(panic.group("file"), root=root)
    if path is None:
        path = _first_own_frame(text, root)
    first = panic.group("message") if panic else before_stack(text)
    said = problem.get("message") or first or problem.get("type") or "test failed"
    message = one_line(failure_message(said, limits.max_message_chars), limits)
    line = (
        xml_position(panic.group("line")) if panic and path == repo_relative(panic.group("file"), root=root) else None
    )
    line = line or _frame_line(text, path, case.get("file"), root) or _attr_line(case, tool)
    column = None
    # The innermost frame inside the repository is where the failure was raised (src/app/calc.py:16),
    # more precise than the test's own line that called it.
    frame = failure_location(text, root)
    if frame is not None and frame.line is not None:
        path, line, column = frame.path, frame.line, frame.column
    kind: Kind = "test_failure"
    return Finding(
        fingerprint=fps("junit", tool, kind, test_id, message=message),
        source="junit",
        tool=tool,
        kind=kind,
        severity=default_severity(kind),
        path=path,
        line=line if path else None,
        column=column if path else None,
        test_id=test_id[:500] or None,
        message=message,
        excerpt=excerpt(text, limits),
    )


def _ruff_finding(
    case: Element, problem: Element, ancestors: list[Element], limits: Limits, root: str | None, fps: Fingerprints
) -> Finding:
    suite = next((a for a in reversed(ancestors) if local_name(a.tag) == "testsuite"), None)
    path = repo_relative(suite.get("name") if suite is not None else None, root=root)
    rule = case.get("name", "").removeprefix("org.ruff.") or None
    level = next((p.get("value", "") for p in case.iter("property") if p.get("name") == "severity"), "error")
    message = one_line(problem.get("message") or problem.text or rule, limits)
    return Finding(
        fingerprint=fps("junit", "ruff", "lint", rule, path, message=message),
        source="junit",
        tool="ruff",
        kind="lint",
        severity=_RUFF_SEVERITY.get(level, "major"),
        path=path,
        line=xml_position(case.get("line")) if path else None,
        column=xml_position(case.get("column")) if path else None,
        rule=rule,
        message=message,
    )


def _test_id(tool: str | None, classname: str, name: str, path: str | None) -> str:
    """Name the test as its runner does on the command line (pytest node ids; ``class::name`` otherwise)."""
    if tool == "pytest":
        parts = [p for p in classname.split(".") if p]
        if path and path.endswith(".py"):
            classes = _after_module(parts, path[: -len(".py")].split("/"))
        else:
            classes = []
            while parts and parts[-1][:1].isupper():
                classes.insert(0, parts.pop())
            path = "/".join(parts) + ".py" if parts else None
        return "::".join([p for p in (path, *classes, name) if p])
    if not classname or name.startswith(classname):
        return name
    return f"{classname}::{name}"


def _after_module(parts: list[str], module: list[str]) -> list[str]:
    """The class names in a dotted pytest classname, after the longest tail of the module path it starts with."""
    for size in range(min(len(module), len(parts)), 0, -1):
        if parts[:size] == module[-size:]:
            return parts[size:]
    return [p for p in parts if p[:1].isupper()]


def _looks_like_file(classname: str) -> bool:
    return "/" in classname or bool(re.search(r"\.(?:[jt]sx?|mjs|cjs|py|go|rs|rb)$", classname))


def _frame_line(text: str, path: str | None, file_attr: str | None, root: str | None) -> int | None:
    """The line of the test file's last frame in the failure text (where the test failed)."""
    if not path or not text:
        return None
    line = None
    for match in re.finditer(r"(?P<file>[^\s():'\"]+):(?P<line>\d+)", text[:100_000]):
        candidate = match.group("file")
        if candidate in (path, file_attr) or repo_relative(candidate, root=root) == path:
            line = xml_position(match.group("line"))
    return line


def _first_own_frame(text: str, root: str | None) -> str | None:
    """The first stack frame (``file:line:column``, as node prints them) inside the repository, outside node_modules."""
    for match in _JS_FRAME.finditer(text[:100_000]):
        if "node_modules/" not in match.group("file"):
            path = repo_relative(match.group("file"), root=root)
            if path is not None:
                return path
    return None


def _attr_line(case: Element, tool: str | None) -> int | None:
    line = xml_position(case.get("line"))
    if line is not None and tool == "pytest":
        return line + 1  # pytest writes the 0-based line of the test definition
    return line


def _captured_output(case: Element) -> str:
    """libtest puts the panic in the case's ``<system-out>``, leaving ``<failure>`` empty."""
    for tag in ("system-out", "system-err"):
        output = next((c for c in case if local_name(c.tag) == tag), None)
        if output is not None and (output.text or "").strip():
            return (output.text or "").strip()
    return ""
