"""Event streams of test runners, one JSON object a line: ``go test -json`` and Dart/Flutter's JSON reporter.

Both are read line by line (JSON Lines, each line bounded), keeping only the
output of tests still running, so memory follows the number of open tests,
not the length of the stream.

- ``go test -json`` (``go doc test2json``): events ``{Action, Package, Test, Output}``.
  A test's ``output`` lines are its text; on its ``fail`` it is a finding, unless one
  of its subtests (``TestX/case``) failed, which is then the finding. A package that
  fails without a failed test (a build failure, a panic in ``TestMain``, a timeout)
  is one finding for the package. The location is what the output names: a panic's
  innermost frame in the repository, else the ``file_test.go:12:`` of ``t.Error``, in the
  package's folder when a trace of the same package shows it (so a package's findings are
  given when the package ends).
- Dart (``dart test --reporter json``, ``flutter test --machine``; the protocol at
  https://github.com/dart-lang/test/blob/master/pkgs/test/doc/json_reporter.md):
  ``testStart`` names the test (``name``, ``url``/``root_url`` and ``line``), ``error``
  events carry ``error`` and ``stackTrace``, and ``testDone`` with ``result``
  ``failure`` or ``error`` ends a failed test. Hidden tests (suite loading) count
  only when they failed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from itertools import pairwise
from typing import Any, BinaryIO

from gauntlet.ingest.jsondoc import load_json_lines
from gauntlet.ingest.limits import Limits
from gauntlet.ingest.testreport import FailedTest, failed_tests
from gauntlet.ingest.values import as_text, json_index, json_position
from gauntlet.models import Finding

__all__ = ["read_dart_json", "read_go_json"]

_MAX_OUTPUT_LINES = 400
_MAX_OPEN_TESTS = 10_000


def _events(stream: BinaryIO, name: str, limits: Limits) -> Iterator[dict[str, Any]]:
    for value in load_json_lines(
        stream, name, max_bytes=limits.max_document_bytes, max_line_bytes=limits.max_line_bytes
    ):
        if isinstance(value, dict):
            yield value


def read_go_json(stream: BinaryIO, name: str, limits: Limits, *, root: str | None = None) -> Iterator[Finding]:
    """Yield a finding per failed Go test (the innermost failed subtest) and per package that failed alone.

    :raises InputError: a line is not JSON or too long, or the stream is beyond the size limit.
    """
    failures = _go_failures(_events(stream, name, limits))
    yield from failed_tests(failures, source="go-json", tool="go", name=name, root=root, limits=limits)


def _go_failures(events: Iterator[dict[str, Any]]) -> Iterator[FailedTest]:
    output: dict[tuple[str, str], list[str]] = {}
    # (package, test) pairs with a failed subtest: their own "fail" only repeats it. A subtest's
    # prefixes are added when it fails, so the check costs its depth, not the number of failures.
    failed_parents: set[tuple[str, str]] = set()
    # A package's failures wait for its end: a panic's trace may show the package's folder, which the
    # bare file names of t.Error ("calc_test.go:7") are relative to. Past the cap they go out at once.
    waiting: dict[str, list[FailedTest]] = {}
    held = 0
    folders: dict[str, str] = {}
    for event in events:
        package = as_text(event.get("Package")) or ""
        test = as_text(event.get("Test")) or ""
        key = (package, test)
        action = event.get("Action")
        if action == "output":
            lines = output.get(key)
            if lines is None and len(output) < _MAX_OPEN_TESTS:
                lines = output[key] = []
            if lines is not None and len(lines) < _MAX_OUTPUT_LINES:
                lines.append(str(event.get("Output", "")))
        elif action in ("pass", "skip"):
            output.pop(key, None)
        elif action == "fail":
            text = _go_text(output.pop(key, []))
            folder = _package_folder(package, text)
            if folder is not None and len(folders) < _MAX_OPEN_TESTS:
                folders.setdefault(package, folder)
            if test and len(failed_parents) < _MAX_OPEN_TESTS:
                parts = test.split("/")  # the package itself ("") and every enclosing test
                failed_parents.update((package, "/".join(parts[:n])) for n in range(len(parts)))
            if key not in failed_parents:
                failure = FailedTest(test_id=test or package, text=text, message=_go_message(text))
                if held < _MAX_OPEN_TESTS:
                    waiting.setdefault(package, []).append(failure)
                    held += 1
                else:
                    yield failure
        if not test and action in ("pass", "fail", "skip"):
            for failure in waiting.pop(package, []):
                held -= 1
                yield replace(failure, folder=folders.get(package))
    for package, failures in waiting.items():  # a stream cut off before its packages ended
        for failure in failures:
            yield replace(failure, folder=folders.get(package))


def _package_folder(package: str, text: str) -> str | None:
    """The folder of ``package``, from a goroutine trace: ``pkg.Func(...)`` then a tab and ``/abs/dir/file.go:N``."""
    lines = text.splitlines()
    for caller, location in pairwise(lines):
        if caller.startswith(f"{package}.") and location.startswith("\t/"):
            return location[1:].rsplit("/", 1)[0]
    return None


def _go_text(lines: list[str]) -> str:
    # The framing lines say only that the test ran and failed; the rest is what it printed.
    kept = [line for line in lines if not line.lstrip().startswith(("=== RUN", "=== PAUSE", "=== CONT", "--- FAIL"))]
    return "".join(kept).strip("\n")


def _go_message(text: str) -> str | None:
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("panic:"):
            return stripped
        if ".go:" in stripped and ": " in stripped:
            return stripped.split(": ", 1)[1]  # "calc_test.go:7: Add(2, 2) = 0, want 4"
    return None


def read_dart_json(stream: BinaryIO, name: str, limits: Limits, *, root: str | None = None) -> Iterator[Finding]:
    """Yield a finding per failed test of a Dart/Flutter JSON reporter stream.

    :raises InputError: a line is not JSON or too long, or the stream is beyond the size limit.
    """
    failures = _dart_failures(_events(stream, name, limits))
    yield from failed_tests(failures, source="dart-json", tool="dart", name=name, root=root, limits=limits)


def _dart_failures(events: Iterator[dict[str, Any]]) -> Iterator[FailedTest]:
    tests: dict[int, dict[str, Any]] = {}
    suites: dict[int, str] = {}
    errors: dict[int, list[tuple[str, str]]] = {}
    for event in events:
        kind = event.get("type")
        if kind == "suite":
            suite = _dict(event.get("suite"))
            suite_id = json_index(suite.get("id"))
            if suite_id is not None and len(suites) < _MAX_OPEN_TESTS:
                suites[suite_id] = as_text(suite.get("path")) or ""
        elif kind == "testStart":
            test = _dict(event.get("test"))
            test_id = json_index(test.get("id"))
            if test_id is not None and len(tests) < _MAX_OPEN_TESTS:
                tests[test_id] = test
        elif kind == "error":
            test_id = json_index(event.get("testID"))
            if test_id is not None and test_id in tests:
                entry = (as_text(event.get("error")) or "", as_text(event.get("stackTrace")) or "")
                errors.setdefault(test_id, []).append(entry)
        elif kind == "testDone":
            test_id = json_index(event.get("testID"))
            test = tests.pop(test_id, {}) if test_id is not None else {}
            reported = errors.pop(test_id, []) if test_id is not None else []
            if event.get("result") in ("failure", "error") and test:
                yield _dart_failure(test, reported, suites)


def _dart_failure(test: dict[str, Any], errors: list[tuple[str, str]], suites: dict[int, str]) -> FailedTest:
    # root_url/root_line point at the test in the user's file when `url` is a helper's.
    url = as_text(test.get("root_url")) or as_text(test.get("url"))
    line = json_position(test.get("root_line")) or json_position(test.get("line"))
    suite_id = json_index(test.get("suiteID"))
    file = url or (suites.get(suite_id) if suite_id is not None else None)
    message = errors[0][0] if errors else None
    text = "\n".join(f"{error}\n{stack}" for error, stack in errors)
    return FailedTest(test_id=as_text(test.get("name")) or "", file=file, line=line, message=message, text=text)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
