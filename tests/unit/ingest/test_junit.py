"""JUnit XML: real pytest, jest, vitest, surefire and ruff reports, and hostile XML."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest

from gauntlet.errors import InputError
from gauntlet.ingest.junit import read_junit
from gauntlet.ingest.limits import DEFAULT_LIMITS, Limits
from gauntlet.models import Finding

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "junit"


def _read(path: Path, root: str | None = None) -> list[Finding]:
    with path.open("rb") as stream:
        return list(read_junit(stream, path.name, DEFAULT_LIMITS, root=root))


def _parse(body: bytes, limits: Limits = DEFAULT_LIMITS) -> list[Finding]:
    return list(read_junit(io.BytesIO(body), "report.xml", limits))


# The ZeroDivisionError is raised in src/app/calc.py:16, which the traceback names below the test's line 12.
PYTEST_IDS = [
    ("tests/test_calc.py::test_add", "tests/test_calc.py", 7),
    ("tests/test_calc.py::TestDivide::test_by_zero", "src/app/calc.py", 16),
    ("tests/test_calc.py::TestDivide::test_values[9-3-4]", "tests/test_calc.py", 16),
    ("tests/test_calc.py::test_uses_broken", "tests/test_calc.py", 21),
]


@pytest.mark.parametrize("case", ["broken-calc", "broken-calc-xunit2"])
def test_pytest_reports_give_node_ids_and_the_line_that_failed(case: str) -> None:
    findings = _read(FIXTURES / "pytest" / case / "report.xml")
    assert [(f.test_id, f.path, f.line) for f in findings] == PYTEST_IDS
    assert {(f.source, f.tool, f.kind, f.severity) for f in findings} == {
        ("junit", "pytest", "test_failure", "critical")
    }
    assert findings[0].message == "assert 0 == 4 + where 0 = add(2, 2)"
    assert "E       assert 0 == 4" in findings[0].excerpt
    assert findings[3].message.startswith("failed on setup")  # an <error>, not a <failure>


def test_both_pytest_junit_families_fingerprint_alike() -> None:
    one = [f.fingerprint for f in _read(FIXTURES / "pytest/broken-calc/report.xml")]
    two = [f.fingerprint for f in _read(FIXTURES / "pytest/broken-calc-xunit2/report.xml")]
    assert one == two


def test_jest_junit_default_and_with_file_attribute() -> None:
    default = _read(FIXTURES / "jest/broken-sum/junit.xml", root="/tmp/fx/node")
    assert [(f.tool, f.test_id, f.path, f.line) for f in default] == [
        ("jest", "sum adds two numbers", "src/sum.test.js", 5),  # from the first stack frame outside node_modules
        ("jest", "sum throws nothing", "src/sum.test.js", 13),
    ]
    with_file = _read(FIXTURES / "jest/broken-sum/junit-file.xml", root="/tmp/fx/node")
    assert [(f.test_id, f.path, f.line) for f in with_file] == [
        ("sum::adds two numbers", "src/sum.test.js", 5),
        ("sum::throws nothing", "src/sum.test.js", 13),
    ]
    assert with_file[1].message == "TypeError: cannot read properties of undefined"


def test_vitest_junit() -> None:
    [finding] = _read(FIXTURES / "vitest/broken-sum/junit.xml")
    assert (finding.tool, finding.test_id, finding.path, finding.line) == (
        "vitest",
        "vt/sum.test.mjs::sum > adds two numbers",
        "vt/sum.test.mjs",
        8,
    )
    assert finding.message == "expected +0 to be 4 // Object.is equality"


def test_surefire_report_failures_and_errors() -> None:
    findings = _read(FIXTURES / "surefire/broken-calc/TEST-demo.CalcTest.xml")
    assert [(f.tool, f.test_id, f.message) for f in findings] == [
        ("surefire", "demo.CalcTest::addsTwoNumbers", "expected: <4> but was: <0>"),
        ("surefire", "demo.CalcTest::crashes", 'Cannot invoke "Object.toString()" because "o" is null'),
    ]


def test_cargo_libtest_junit_reads_the_panic_from_captured_output() -> None:
    findings = _read(FIXTURES / "cargo/broken-calc/junit.xml")
    assert [(f.tool, f.test_id, f.path, f.line, f.message) for f in findings] == [
        ("cargo", "tests::adds_two_numbers", "src/lib.rs", 11, "assertion `left == right` failed"),
        ("cargo", "tests::panics", "src/lib.rs", 22, "index out of bounds: the len is 0 but the index is 3"),
    ]
    assert "right: 4" in findings[0].excerpt


def test_ruff_junit_is_lint_with_rules() -> None:
    findings = _read(FIXTURES / "ruff/broken-calc/report.xml", root="/tmp/fx/py")
    assert [(f.kind, f.rule, f.path, f.line, f.column) for f in findings] == [
        ("lint", "F401", "src/app/calc.py", 1, 8),
        ("lint", "F841", "src/app/calc.py", 10, 5),
        ("lint", "F821", "src/app/calc.py", 12, 24),
    ]


def test_passing_skipped_and_flaky_cases_are_not_findings() -> None:
    body = b"""<testsuite name="s"><testcase classname="a.B" name="ok"/>
    <testcase classname="a.B" name="skip"><skipped/></testcase>
    <testcase classname="a.B" name="flaky"><flakyFailure message="once"/></testcase>
    <testcase classname="a.B" name="bad"><failure message="boom"/></testcase></testsuite>"""
    assert [(f.test_id, f.message) for f in _parse(body)] == [("a.B::bad", "boom")]


def test_billion_laughs_is_refused() -> None:
    body = (
        b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        + b"".join(
            f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10 if i > 1 else "&lol;" * 10}">'.encode() for i in range(1, 10)
        )
        + b']><testsuite><testcase name="&lol9;"><failure/></testcase></testsuite>'
    )
    with pytest.raises(InputError, match="refused XML"):
        _parse(body)


def test_external_entities_are_refused() -> None:
    body = (
        b'<?xml version="1.0"?><!DOCTYPE t [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
        b'<testsuite><testcase name="&xxe;"><failure/></testcase></testsuite>'
    )
    with pytest.raises(InputError, match="refused XML"):
        _parse(body)


def test_declared_latin1_is_read_and_undeclared_non_utf8_is_an_input_error() -> None:
    latin1 = (
        '<?xml version="1.0" encoding="ISO-8859-1"?>'
        '<testsuite><testcase classname="t" name="café"><failure message="é"/></testcase></testsuite>'
    )
    [finding] = _parse(latin1.encode("latin-1"))
    assert finding.test_id == "t::café"
    with pytest.raises(InputError, match="not well-formed"):
        _parse(latin1.replace("ISO-8859-1", "UTF-8").encode("latin-1"))
    with pytest.raises(InputError, match=r"cannot decode|not well-formed"):
        _parse(b'<?xml version="1.0" encoding="no-such-codec"?><testsuite/>')


def test_utf16_reports_are_read() -> None:
    body = '<?xml version="1.0" encoding="UTF-16"?><testsuite><testcase name="t"><failure/></testcase></testsuite>'
    assert [f.test_id for f in _parse(body.encode("utf-16"))] == ["t"]


@pytest.mark.parametrize("body", [b"", b"<testsuite>", b"<a><b></a>", b"<" + b"x>" * 10, b"<t>" * 1000])
def test_malformed_xml_is_an_input_error(body: bytes) -> None:
    with pytest.raises(InputError, match=r"^report\.xml: "):
        _parse(body)


def test_many_test_cases_cost_bounded_findings_and_time() -> None:
    body = (
        b"<testsuite>"
        + b'<testcase classname="c" name="t"><failure message="m"/></testcase>' * 200_000
        + b"</testsuite>"
    )
    started = time.monotonic()
    findings = _parse(body, Limits(max_findings=100))
    assert len(findings) == 100
    assert time.monotonic() - started < 10


def test_paths_outside_the_repository_are_dropped() -> None:
    body = (
        b'<testsuite><testcase classname="c" name="t" file="../../etc/passwd" line="3"><failure/></testcase>'
        b'<testcase classname="c" name="u" file="/etc/x.py"><failure/></testcase></testsuite>'
    )
    assert [(f.path, f.line) for f in _parse(body)] == [(None, None), (None, None)]
