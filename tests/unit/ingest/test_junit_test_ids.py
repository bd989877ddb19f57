"""Passing test ids from JUnit reports, for the outcome history (ingest/junit.py ``read_test_ids``)."""

from __future__ import annotations

import io
from pathlib import Path

from gauntlet.ingest.junit import read_junit, read_test_ids
from gauntlet.ingest.limits import DEFAULT_LIMITS
from gauntlet.observe.files import read_test_ids as read_files

FIXTURES = Path(__file__).parents[2] / "fixtures" / "junit"

# Maven Surefire's report of a test that failed and passed on a rerun (-Dsurefire.rerunFailingTestsCount),
# in the shape the Surefire documentation "Rerun Failing Tests" and its XSD (surefire-test-report-3.0.xsd) give.
SUREFIRE_FLAKY = b"""<?xml version="1.0" encoding="UTF-8"?>
<testsuite xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xsi:noNamespaceSchemaLocation="https://maven.apache.org/surefire/maven-surefire-plugin/xsd/surefire-test-report-3.0.xsd"
  name="com.example.CalcTest" tests="2" failures="0" errors="0" skipped="0" flakes="1">
  <testcase name="adds" classname="com.example.CalcTest" time="0.01"/>
  <testcase name="divides" classname="com.example.CalcTest" time="0.02">
    <flakyFailure message="expected: &lt;2&gt; but was: &lt;3&gt;" type="org.opentest4j.AssertionFailedError"/>
  </testcase>
</testsuite>
"""


def test_the_passing_pytest_cases_are_named_as_the_failing_ones_are() -> None:
    report = FIXTURES / "pytest" / "broken-calc" / "report.xml"
    ids = read_test_ids(io.BytesIO(report.read_bytes()), "report.xml", DEFAULT_LIMITS)
    assert ids.passed == ("tests/test_calc.py::TestDivide::test_values[4-2-2]", "tests/test_calc.py::test_passes")
    assert ids.flaky == ()
    failing = {f.test_id for f in read_junit(io.BytesIO(report.read_bytes()), "report.xml", DEFAULT_LIMITS)}
    assert not failing & set(ids.passed)
    assert "tests/test_calc.py::TestDivide::test_values[9-3-4]" in failing, "the same naming for both"


def test_a_case_that_passed_on_a_rerun_is_flaky_not_passed() -> None:
    ids = read_test_ids(io.BytesIO(SUREFIRE_FLAKY), "TEST-CalcTest.xml", DEFAULT_LIMITS)
    assert ids.passed == ("com.example.CalcTest::adds",)
    assert ids.flaky == ("com.example.CalcTest::divides",)
    assert list(read_junit(io.BytesIO(SUREFIRE_FLAKY), "TEST-CalcTest.xml", DEFAULT_LIMITS)) == []


def test_only_junit_files_are_read_and_a_broken_one_adds_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.xml").write_bytes(SUREFIRE_FLAKY)
    (tmp_path / "b.xml").write_bytes(b"<testsuite><testcase name='x'>")
    (tmp_path / "review.json").write_text("[]")
    ids = read_files(
        [tmp_path / "a.xml", tmp_path / "b.xml", tmp_path / "review.json", tmp_path / "gone.xml"], tmp_path
    )
    assert ids.flaky == ("com.example.CalcTest::divides",)
