""".NET test reports: NUnit 2 and 3 XML, xUnit.net v2 XML and Visual Studio TRX.

Each failed test is a ``test_failure`` (:func:`~gauntlet.ingest.testreport.failed_test`):
the message element is the message, the stack trace gives the location (its
innermost ``in <file>:line N`` frame inside the repository). The formats:

- NUnit 3 (https://docs.nunit.org/articles/nunit/technical-notes/usage/Test-Result-XML-Format.html):
  ``<test-case fullname result="Failed">`` with ``<failure><message>`` and ``<stack-trace>``;
  an empty failure takes its message from ``label`` (``Test exceeded Timeout value 1ms.``).
- NUnit 2: ``<test-case name executed="True" success="False">`` (``result`` ``Failure``/``Error``).
- xUnit.net v2 (https://xunit.net/docs/format-xml-v2): ``<test name result="Fail">`` with
  ``<failure exception-type>``, and ``<errors><error>`` for fixture and cleanup failures.
- TRX (the vstest schema, ``dotnet test --logger trx``): ``<UnitTestResult testName outcome>``
  with ``Output/ErrorInfo/Message`` and ``StackTrace``; ``Failed``, ``Error``, ``Timeout``
  and ``Aborted`` outcomes are failures, and a data-driven parent is skipped for its rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO
from xml.etree.ElementTree import Element

from gauntlet.ingest.limits import Limits
from gauntlet.ingest.testreport import FailedTest, failed_tests
from gauntlet.ingest.xml import iter_elements, local_name
from gauntlet.models import Finding

__all__ = ["read_nunit", "read_trx", "read_xunit"]

_TRX_FAILED = frozenset({"Failed", "Error", "Timeout", "Aborted"})


def read_nunit(stream: BinaryIO, name: str, limits: Limits, *, root: str | None = None) -> Iterator[Finding]:
    """Yield a finding per failed NUnit 2 or NUnit 3 test case.

    :raises InputError: not well-formed or refused XML, or beyond the size limits.
    """
    cases = iter_elements(stream, name, max_bytes=limits.max_document_bytes, tags=frozenset({"test-case"}))
    tests = (_nunit_failure(case) for case, _ in cases)
    yield from failed_tests(tests, source="nunit", tool="nunit", name=name, root=root, limits=limits)


def _nunit_failure(case: Element) -> FailedTest | None:
    # NUnit 3 says result="Failed"; NUnit 2 says success="False" (result "Failure" or "Error").
    failed = case.get("result") in ("Failed", "Failure", "Error") or case.get("success") == "False"
    if not failed or case.get("executed") == "False":
        return None
    failure = _child(case, "failure")
    return FailedTest(
        test_id=case.get("fullname") or case.get("name") or "",
        message=_text(_child(failure, "message")) or case.get("label"),
        text=_text(_child(failure, "stack-trace")),
    )


def read_xunit(stream: BinaryIO, name: str, limits: Limits, *, root: str | None = None) -> Iterator[Finding]:
    """Yield a finding per failed xUnit.net v2 test and per reported error (fixture, cleanup).

    :raises InputError: not well-formed or refused XML, or beyond the size limits.
    """
    elements = iter_elements(stream, name, max_bytes=limits.max_document_bytes, tags=frozenset({"test", "error"}))
    tests = (_xunit_failure(element) for element, _ in elements)
    yield from failed_tests(tests, source="xunit", tool="xunit", name=name, root=root, limits=limits)


def _xunit_failure(element: Element) -> FailedTest | None:
    if local_name(element.tag) == "test" and element.get("result") != "Fail":
        return None
    failure = _child(element, "failure")
    if failure is None:
        return None
    message = _text(_child(failure, "message"))
    exception = failure.get("exception-type")
    if exception and message and not message.startswith(exception):
        message = f"{exception}: {message}"
    return FailedTest(
        test_id=element.get("name") or element.get("type") or "",
        message=message,
        text=_text(_child(failure, "stack-trace")),
    )


def read_trx(stream: BinaryIO, name: str, limits: Limits, *, root: str | None = None) -> Iterator[Finding]:
    """Yield a finding per failed ``UnitTestResult`` of a Visual Studio TRX file.

    :raises InputError: not well-formed or refused XML, or beyond the size limits.
    """
    results = iter_elements(stream, name, max_bytes=limits.max_document_bytes, tags=frozenset({"UnitTestResult"}))
    tests = (_trx_failure(result) for result, _ in results)
    yield from failed_tests(tests, source="trx", tool="dotnet", name=name, root=root, limits=limits)


def _trx_failure(result: Element) -> FailedTest | None:
    if result.get("outcome") not in _TRX_FAILED or result.get("resultType") == "DataDrivenTest":
        return None
    info = _child(_child(result, "Output"), "ErrorInfo")
    return FailedTest(
        test_id=result.get("testName") or "",
        message=_text(_child(info, "Message")) or f"test {result.get('outcome', 'failed').lower()}",
        text=_text(_child(info, "StackTrace")),
    )


def _child(element: Element | None, tag: str) -> Element | None:
    if element is None:
        return None
    return next((child for child in element if local_name(child.tag) == tag), None)


def _text(element: Element | None) -> str:
    return (element.text or "").replace("\r\n", "\n").strip() if element is not None else ""
