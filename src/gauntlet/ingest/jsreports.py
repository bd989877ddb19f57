"""JSON test reports: CTRF, mocha's ``json`` reporter and ``jest --json``.

Each failed test is a ``test_failure`` (:func:`~gauntlet.ingest.testreport.failed_test`),
located at the innermost repository frame of its stack when there is one:

- CTRF (https://ctrf.io/docs/specification/overview): ``results.tests[]`` with ``status``
  ``failed``, ``message``, ``trace``, ``filePath`` and ``line``; ``results.tool.name`` is the
  tool. A test that passed on a retry (``flaky: true``, status ``passed``) is not a failure.
- mocha (``--reporter json``, https://mochajs.org/#json): ``failures[]`` with ``fullTitle``,
  ``file`` and ``err.message`` / ``err.stack``.
- jest (``--json``, the ``AggregatedResult`` of ``@jest/test-result``): ``testResults[]`` per
  file with ``assertionResults[]``; a failed assertion's ``failureMessages`` hold the message
  and stack, ``location`` (with ``--testLocationInResults``) its line. A file that failed to run
  (syntax error, import failure) has no assertions, only a ``message``: one finding for the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO

from gauntlet.errors import InputError
from gauntlet.ingest.jsondoc import load_json
from gauntlet.ingest.limits import Limits
from gauntlet.ingest.structured import tool_name
from gauntlet.ingest.testreport import FailedTest, failed_tests
from gauntlet.ingest.values import as_text, json_position
from gauntlet.models import Finding

__all__ = ["read_ctrf", "read_jest", "read_mocha"]


def _load(stream: BinaryIO, name: str, limits: Limits) -> dict[str, Any]:
    document = load_json(
        stream, name, max_bytes=limits.max_document_bytes, max_items=max(4 * limits.max_findings, 10_000)
    )
    if not isinstance(document, dict):
        raise InputError(f"{name}: expected a JSON object")
    return document


def read_ctrf(stream: BinaryIO, name: str, limits: Limits, *, root: str | None = None) -> Iterator[Finding]:
    """Yield a finding per failed test of a CTRF report.

    :raises InputError: not JSON, no ``results.tests`` list, or beyond the size limits.
    """
    results = _dict(_load(stream, name, limits).get("results"))
    tests = results.get("tests")
    if not isinstance(tests, list):
        raise InputError(f'{name}: not a CTRF report (no "results.tests" list)')
    tool = tool_name(as_text(_dict(results.get("tool")).get("name")))
    failures = (_ctrf_failure(_dict(test)) for test in tests)
    yield from failed_tests(failures, source="ctrf", tool=tool, name=name, root=root, limits=limits)


def _ctrf_failure(test: dict[str, Any]) -> FailedTest | None:
    if test.get("status") != "failed":
        return None
    suite = as_text(test.get("suite"))
    title = as_text(test.get("name")) or ""
    # Reporters differ: jest's and mocha's name is the full title, playwright's only the last part.
    innermost = suite.rsplit(" > ", 1)[-1] if suite else ""
    return FailedTest(
        test_id=title if not suite or title.startswith(innermost) else f"{suite} > {title}",
        file=as_text(test.get("filePath")),
        line=json_position(test.get("line")),
        message=as_text(test.get("message")),
        text=as_text(test.get("trace")) or "",
    )


def read_mocha(stream: BinaryIO, name: str, limits: Limits, *, root: str | None = None) -> Iterator[Finding]:
    """Yield a finding per entry of a mocha JSON report's ``failures``.

    :raises InputError: not JSON, no ``failures`` list, or beyond the size limits.
    """
    failures = _load(stream, name, limits).get("failures")
    if not isinstance(failures, list):
        raise InputError(f'{name}: not a mocha JSON report (no "failures" list)')
    tests = (_mocha_failure(_dict(test)) for test in failures)
    yield from failed_tests(tests, source="mocha-json", tool="mocha", name=name, root=root, limits=limits)


def _mocha_failure(test: dict[str, Any]) -> FailedTest:
    error = _dict(test.get("err"))
    stack = as_text(error.get("stack")) or ""
    # The stack's first line is "<name>: <message>"; the message alone lacks the error's name.
    message = as_text(error.get("message"))
    error_name = as_text(error.get("name")) or (stack.split(":", 1)[0] if ":" in stack[:80] else None)
    if message and error_name and not message.startswith(error_name):
        message = f"{error_name}: {message}"
    return FailedTest(
        test_id=as_text(test.get("fullTitle")) or as_text(test.get("title")) or "",
        file=as_text(test.get("file")),
        message=message,
        text=stack,
    )


def read_jest(stream: BinaryIO, name: str, limits: Limits, *, root: str | None = None) -> Iterator[Finding]:
    """Yield a finding per failed assertion of ``jest --json``, and per test file that failed to run.

    :raises InputError: not JSON, no ``testResults`` list, or beyond the size limits.
    """
    files = _load(stream, name, limits).get("testResults")
    if not isinstance(files, list):
        raise InputError(f'{name}: not jest JSON (no "testResults" list)')
    tests = (test for entry in files for test in _jest_failures(_dict(entry)))
    yield from failed_tests(tests, source="jest-json", tool="jest", name=name, root=root, limits=limits)


def _jest_failures(entry: dict[str, Any]) -> Iterator[FailedTest]:
    file = as_text(entry.get("name"))
    assertions = [_dict(a) for a in _list(entry.get("assertionResults"))]
    for assertion in assertions:
        if assertion.get("status") != "failed":
            continue
        text = "\n".join(m for m in _list(assertion.get("failureMessages")) if isinstance(m, str))
        names = [t for t in _list(assertion.get("ancestorTitles")) if isinstance(t, str)]
        title = as_text(assertion.get("title")) or as_text(assertion.get("fullName")) or ""
        yield FailedTest(
            test_id=" › ".join([*names, title]),  # jest's own separator in its console output
            file=file,
            line=json_position(_dict(assertion.get("location")).get("line")),
            text=text,
        )
    if entry.get("status") == "failed" and not any(a.get("status") == "failed" for a in assertions):
        yield FailedTest(test_id=file or "test file", file=file, text=as_text(entry.get("message")) or "")


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
