"""One failed test case as a finding, the same way for every test-report format.

JUnit, NUnit, xUnit.net, TRX, CTRF, TAP, ``go test -json``, mocha, jest and
Dart reports all say the same things in different shapes: a test's id, its
file, perhaps a line, and the failure's message and text. The readers pull
those out; :func:`failed_test` turns them into a ``test_failure`` finding with
the telling message and the most precise location the text names
(:mod:`gauntlet.ingest.failure_text`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from gauntlet.classify.defaults import default_severity
from gauntlet.ingest.failure_text import before_stack, failure_location, failure_message, strip_ansi
from gauntlet.ingest.limits import Limits
from gauntlet.ingest.paths import repo_relative
from gauntlet.ingest.structured import Fingerprints, excerpt, logger, one_line
from gauntlet.models import Finding, Kind, Source

__all__ = ["FailedTest", "failed_test", "failed_tests"]


@dataclass(frozen=True, slots=True)
class FailedTest:
    """What a report says about one failed test (every field as the report wrote it)."""

    test_id: str
    #: The test's own file, when the report names it.
    file: str | None = None
    #: The test's line in that file, when the report gives one.
    line: int | None = None
    #: The short failure message, when the report has one apart from the text.
    message: str | None = None
    #: The failure text: stack trace, traceback, assertion output.
    text: str = ""
    #: Where bare file names in the text live (Go prints ``calc_test.go:7`` relative to its package's folder).
    folder: str | None = None


def failed_test(
    test: FailedTest,
    *,
    source: Source,
    tool: str | None,
    root: str | None,
    limits: Limits,
    fingerprints: Fingerprints,
    kind: Kind = "test_failure",
) -> Finding:
    """Build the finding of one failed test.

    The location is the innermost frame the text names inside the repository
    when there is one (where the failure was raised), else the test's file and line.

    :param test: what the report says.
    :param source: the report format.
    :param tool: the test runner, lower case.
    :param root: the repository's absolute path, for absolute paths in the report.
    :param limits: message and excerpt caps.
    :param fingerprints: the file's fingerprint numbering.
    :param kind: ``test_failure``, or ``crash``/``timeout`` where the report says so.
    """
    text = strip_ansi(test.text).strip()
    path = repo_relative(test.file, root=root) if test.file else None
    line = test.line if path else None
    column = None
    frame = failure_location(text, root) if text else None
    if frame is not None and frame.line is not None:
        path, line, column = frame.path, frame.line, frame.column
        if test.folder and "/" not in path:
            path = repo_relative(f"{test.folder}/{path}", root=root) or path
    said = test.message if test.message and test.message.strip() else before_stack(text)
    message = one_line(failure_message(said, limits.max_message_chars), limits) or "test failed"
    test_id = " ".join(strip_ansi(test.test_id).split())[:500]
    return Finding(
        fingerprint=fingerprints(source, tool, kind, test_id, message=message),
        source=source,
        tool=tool,
        kind=kind,
        severity=default_severity(kind),
        path=path,
        line=line,
        column=column,
        test_id=test_id or None,
        message=message,
        excerpt=excerpt(text or said, limits),
    )


def failed_tests(
    tests: Iterable[FailedTest | None],
    *,
    source: Source,
    tool: str | None,
    name: str,
    root: str | None,
    limits: Limits,
) -> Iterator[Finding]:
    """Yield the finding of every failed test (``None`` entries are tests that did not fail), within the cap.

    :param name: the input's name, for the warning when the cap stops the file.
    """
    fingerprints = Fingerprints()
    emitted = 0
    for test in tests:
        if test is None:
            continue
        yield failed_test(test, source=source, tool=tool, root=root, limits=limits, fingerprints=fingerprints)
        emitted += 1
        if emitted >= limits.max_findings:
            logger.warning("%s: stopped after %d findings", name, emitted)
            return
