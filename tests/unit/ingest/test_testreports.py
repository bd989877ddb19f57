"""The test-report readers on real output: each failure's id, the place it was raised and what failed.

Fixtures produced here (mocha, jest, CTRF reporters, node:test's TAP, ``go test -json``) and the
tools' published examples (NUnit, xUnit.net, TRX, Dart); each folder says which.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from gauntlet.errors import InputError
from gauntlet.ingest.formats import Format, reader_for
from gauntlet.ingest.limits import DEFAULT_LIMITS
from gauntlet.models import Finding

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
NODE = "/tmp/fx/node-reports"
# Both node suites: an assertion in the test file, and a ReferenceError raised in src/sum.js:6:25.
RISKY = ("src/sum.js", 6, 25, "ReferenceError: undefinedThing is not defined")


def _read(fmt: Format, fixture: str, root: str | None = None) -> list[Finding]:
    with (FIXTURES / fixture).open("rb") as stream:
        return list(reader_for(fmt, root=root)(stream, fixture, DEFAULT_LIMITS))


def _places(findings: list[Finding]) -> list[tuple[str | None, str | None, int | None, str]]:
    return [(f.test_id, f.path, f.line, f.message) for f in findings]


def test_mocha_json() -> None:
    findings = _read("mocha-json", "mocha-json/mocha/broken-sum/mocha.json", NODE)
    assert [(f.test_id, f.path, f.line, f.column, f.message) for f in findings] == [
        (
            "sum adds two numbers",
            "mocha/sum.spec.js",
            6,
            12,
            "AssertionError: Expected values to be strictly equal: 0 !== 4",
        ),
        ("sum runs risky code", *RISKY),
    ]
    assert {(f.source, f.tool, f.kind, f.severity) for f in findings} == {
        ("mocha-json", "mocha", "test_failure", "critical")
    }


def test_jest_json() -> None:
    findings = _read("jest-json", "jest-json/jest/broken-sum/jest.json", NODE)
    assert [(f.test_id, f.path, f.line, f.column, f.message) for f in findings] == [
        (
            "sum › adds two numbers",
            "jest/sum.test.js",
            5,
            23,
            "Error: expect(received).toBe(expected) // Object.is equality Expected: 4 Received: 0",
        ),
        ("sum › runs risky code", *RISKY),
    ]


def test_jest_json_file_that_failed_to_run_is_one_finding() -> None:
    body = b'{"numFailedTestSuites": 1, "testResults": [{"name": "/w/a.test.js", "status": "failed", "message": '
    body += (
        b'"  \\u25cf Test suite failed to run\\n\\n    SyntaxError: Unexpected token (3:4)", "assertionResults": []}]}'
    )
    (finding,) = reader_for("jest-json", root="/w")(io.BytesIO(body), "jest.json", DEFAULT_LIMITS)
    assert (finding.test_id, finding.path) == ("/w/a.test.js", "a.test.js")
    assert "SyntaxError: Unexpected token" in finding.message


@pytest.mark.parametrize("tool", ["jest", "mocha"])
def test_ctrf(tool: str) -> None:
    findings = _read("ctrf", f"ctrf/{tool}/broken-sum/ctrf.json", NODE)
    assert [f.tool for f in findings] == [tool, tool]
    assert [(f.path, f.line, f.column) for f in findings][1] == RISKY[:3]
    assert findings[0].path == ("jest/sum.test.js" if tool == "jest" else "mocha/sum.spec.js")
    assert findings[0].test_id == "sum adds two numbers"


def test_ctrf_passed_on_retry_is_not_a_failure() -> None:
    body = b'{"results": {"tool": {"name": "playwright"}, "summary": {}, "tests": ['
    body += b'{"name": "logs in", "status": "passed", "flaky": true, "retries": 2},'
    body += (
        b'{"name": "pays", "status": "failed", "suite": "shop.spec.ts > cart", "message": "Timeout 5000ms exceeded"}]}}'
    )
    (finding,) = reader_for("ctrf")(io.BytesIO(body), "ctrf.json", DEFAULT_LIMITS)
    assert (finding.test_id, finding.tool, finding.message) == (
        "shop.spec.ts > cart > pays",
        "playwright",
        "Timeout 5000ms exceeded",
    )


def test_node_test_tap() -> None:
    findings = _read("tap", "tap/node-test/broken-sum/node-test.tap", NODE)
    assert [(f.test_id, f.path, f.line, f.column, f.message) for f in findings] == [
        (
            "sum > adds two numbers",
            "nodetest/sum.test.js",
            7,
            12,
            "AssertionError: Expected values to be strictly equal: 0 !== 4",
        ),
        ("sum > runs risky code", *RISKY),
    ]  # the parent "not ok 1 - sum" only says its subtests failed


def test_tap_todo_skip_bail_out_and_node_tap_locations() -> None:
    body = b"""TAP version 14
1..4
ok 1 - fine
not ok 2 - known bug # TODO fix later
not ok 3 - skipped # SKIP no network
not ok 4 - adds
  ---
  message: should be equal
  at:
    file: test/add.js
    line: 9
  ...
Bail out! database is down
"""
    findings = list(reader_for("tap")(io.BytesIO(body), "t.tap", DEFAULT_LIMITS))
    assert _places(findings) == [
        ("adds", "test/add.js", 9, "should be equal"),
        ("Bail out!", None, None, "Bail out! database is down"),
    ]


def test_go_test_json() -> None:
    findings = _read("go-json", "go-json/go/broken-calc/go-test.jsonl", "/tmp/fx/go")
    assert _places(findings) == [
        # t.Error names calc_test.go; TestAt's panic trace shows the package's folder, calc/.
        ("TestAdd", "calc/calc_test.go", 7, "Add(2, 2) = 0, want 4"),
        ("TestTable/both", "calc/calc_test.go", 16, "Add(1, 2) = -1, want 3"),  # the subtest, not its parent
        ("TestAt", "calc/calc.go", 10, "panic: runtime error: index out of range [5] with length 2 [recovered]"),
    ]
    assert {f.tool for f in findings} == {"go"}


def test_go_package_that_fails_without_a_failed_test() -> None:
    body = b'{"Action":"output","Package":"example.com/x","Output":"FAIL\\texample.com/x [build failed]\\n"}\n'
    body += b'{"Action":"fail","Package":"example.com/x","Elapsed":0}\n'
    (finding,) = reader_for("go-json")(io.BytesIO(body), "go.jsonl", DEFAULT_LIMITS)
    assert (finding.test_id, finding.message) == ("example.com/x", "FAIL example.com/x [build failed]")


def test_dart_json() -> None:
    findings = _read(
        "dart-json",
        "dart-json/dart/dorny-test-reporter/dart.jsonl",
        "C:/Users/Michal/Workspace/dorny/test-check/reports/dart",
    )
    assert _places(findings) == [
        (
            "Timeout test",
            "test/second_test.dart",
            5,
            "TimeoutException after 0:00:00.000001: Test timed out after 0 seconds.",
        ),
        ("Test 1 Test 1.1 Failing test", "test/main_test.dart", 13, "Expected: <2> Actual: <1>"),
        ("Test 1 Test 1.1 Exception in target unit", "test/main_test.dart", 17, "Exception: Some error"),
        ("Test 2 Exception in test", "test/main_test.dart", 24, "Exception: Some error"),
    ]


def test_nunit3() -> None:
    findings = _read(
        "nunit",
        "nunit/nunit3/dorny-test-reporter/dotnet-nunit.xml",
        "C:\\Users\\Michal\\Workspace\\dorny\\test-reporter",
    )
    prefix = "DotnetTests.XUnitTests.CalculatorTests."
    tests = "reports/dotnet/DotnetTests.NUnitV3Tests/CalculatorTests.cs"
    assert _places(findings) == [
        (
            f"{prefix}Exception_In_TargetTest",
            "reports/dotnet/DotnetTests.Unit/Calculator.cs",
            9,
            "System.DivideByZeroException : Attempted to divide by zero.",
        ),
        (f"{prefix}Exception_In_Test", tests, 39, "System.Exception : Test"),
        (f"{prefix}Failing_Test", tests, 27, "Expected: 3 But was: 2"),
        (f"{prefix}Is_Even_Number(3)", tests, 61, "Expected: True But was: False"),
        (f"{prefix}Timeout_Test", None, None, "Test exceeded Timeout value 1ms."),
    ]
    assert {(f.source, f.tool) for f in findings} == {("nunit", "nunit")}


def test_nunit2() -> None:
    (finding,) = _read("nunit", "nunit/nunit2/enricomi-jenkinsci/NUnit-failure.xml")
    assert (finding.test_id, finding.message) == (
        "UnitTests.MainClassTest.TestFailure",
        "Expected failure Expected: 30 But was: 20",
    )


def test_xunit_v2() -> None:
    (finding,) = _read(
        "xunit", "xunit/xunit/enricomi-jenkinsci/testcase3.xml", "c:\\Jenkins\\jobs\\my-project\\workspace"
    )
    assert _places([finding]) == [
        (
            "MyProject.Tests.SampleFact.FailedTest",
            "MyProject/MyProject.Tests/SampleFact.cs",
            16,
            "Xunit.Sdk.TrueException: Assert.True() Failure",
        )
    ]


def test_trx() -> None:
    findings = _read(
        "trx", "trx/xunit/dorny-test-reporter/dotnet-trx.trx", "C:\\Users\\Michal\\Workspace\\dorny\\test-check"
    )
    assert [(f.test_id.rsplit(".", 1)[-1], f.path, f.line) for f in findings] == [
        ("Failing_Test", "reports/dotnet/DotnetTests.XUnitTests/CalculatorTests.cs", 27),
        ("Exception_In_Test", "reports/dotnet/DotnetTests.XUnitTests/CalculatorTests.cs", 39),
        ("Exception_In_TargetTest", "reports/dotnet/DotnetTests.Unit/Calculator.cs", 9),
    ]
    assert findings[0].message == "Assert.Equal() Failure Expected: 3 Actual: 2"
    assert {(f.source, f.tool) for f in findings} == {("trx", "dotnet")}


@pytest.mark.parametrize(
    "fmt", ["nunit", "xunit", "trx", "ctrf", "tap", "go-json", "mocha-json", "jest-json", "dart-json"]
)
def test_junk_is_an_input_error_or_nothing(fmt: Format) -> None:
    for body in (b"", b"{", b"<x>", b"[1, 2]", b'{"tests": "no"}', b"\x00\xff" * 10):
        try:
            findings = list(reader_for(fmt)(io.BytesIO(body), "junk", DEFAULT_LIMITS))
        except InputError as exc:
            assert str(exc).startswith("junk: ")
        else:
            assert findings == []
