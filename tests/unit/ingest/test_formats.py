"""Format detection picks every format from content, and ``gauntlet ingest`` reads each one."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gauntlet.cli import main
from gauntlet.errors import InputError
from gauntlet.ingest.formats import FORMATS, Format, detect_format, reader_for
from gauntlet.ingest.limits import DEFAULT_LIMITS

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

CASES = [
    ("sarif/ruff/broken-calc/ruff.sarif", "sarif"),
    ("sarif/bandit/broken-calc/bandit.sarif", "sarif"),
    ("sarif/eslint/broken-sum/eslint.sarif", "sarif"),
    ("sarif/semgrep/broken-calc/semgrep.sarif", "sarif"),
    ("junit/pytest/broken-calc/report.xml", "junit"),
    ("junit/pytest/broken-calc-xunit2/report.xml", "junit"),
    ("junit/ruff/broken-calc/report.xml", "junit"),
    ("junit/jest/broken-sum/junit.xml", "junit"),
    ("junit/vitest/broken-sum/junit.xml", "junit"),
    ("junit/surefire/broken-calc/TEST-demo.CalcTest.xml", "junit"),
    ("junit/cargo/broken-calc/junit.xml", "junit"),
    ("rdjson/ruff/broken-calc/ruff.rdjson", "rdjson"),
    ("rdjson/eslint/broken-sum/eslint.rdjson", "rdjson"),
    ("checkstyle/eslint/broken-sum/eslint-checkstyle.xml", "checkstyle"),
    ("review/gauntlet/broken-calc/review.json", "review"),
    ("comments/github/pr-review/comments.json", "comment"),
    ("junit/pytest/broken-calc/pytest.log", "log"),
    ("nunit/nunit3/dorny-test-reporter/dotnet-nunit.xml", "nunit"),
    ("nunit/nunit2/enricomi-jenkinsci/NUnit-failure.xml", "nunit"),
    ("xunit/xunit/enricomi-jenkinsci/testcase3.xml", "xunit"),
    ("trx/xunit/dorny-test-reporter/dotnet-trx.trx", "trx"),
    ("ctrf/jest/broken-sum/ctrf.json", "ctrf"),
    ("ctrf/mocha/broken-sum/ctrf.json", "ctrf"),
    ("tap/node-test/broken-sum/node-test.tap", "tap"),
    ("go-json/go/broken-calc/go-test.jsonl", "go-json"),
    ("mocha-json/mocha/broken-sum/mocha.json", "mocha-json"),
    ("jest-json/jest/broken-sum/jest.json", "jest-json"),
    ("dart-json/dart/dorny-test-reporter/dart.jsonl", "dart-json"),
]


@pytest.mark.parametrize(("fixture", "fmt"), CASES)
def test_detects_every_format_from_content(fixture: str, fmt: str) -> None:
    assert detect_format((FIXTURES / fixture).read_bytes()[: 64 * 1024]).format == fmt


@pytest.mark.parametrize(
    ("head", "fmt"),
    [
        (b'{"location": {"path": "a"}, "message": "m"}\n', "rdjson"),
        ('<?xml version="1.0" encoding="UTF-16"?><testsuites/>'.encode("utf-16"), "junit"),
        (b"\xef\xbb\xbf<?xml version='1.0'?>\n<!-- made by x -->\n<checkstyle version='8'>", "checkstyle"),
        (b"<html><body>testsuite</body></html>", None),
        (b"[]", "review"),
        (b'{"issues": []}', "review"),
        (b'{"name": "x", "version": "1.0.0"}', None),
        (b"TAP version 14\n1..1\nok 1\n", "tap"),
        (b"1..2\nnot ok 1 - x\n", "tap"),
        (b"ok so this is a log line\n", "log"),
        (b"ok 1 - adds\n", "tap"),
        (b"# Subtest: sum\n    ok 1 - adds\n", "tap"),
        (b"# Building the project\nok, done\n", "log"),
        (b"", "log"),
    ],
)
def test_detection_edge_cases(head: bytes, fmt: str | None) -> None:
    assert detect_format(head).format == fmt


def test_every_concrete_format_has_a_reader() -> None:
    for fmt in FORMATS:
        if fmt != "auto":
            assert callable(reader_for(fmt))


def test_ingest_command_reads_each_format(capsys: pytest.CaptureFixture[str]) -> None:
    paths = [str(FIXTURES / fixture) for fixture, _ in CASES]
    assert main(["ingest", "--json", "--raw", *paths]) == 0
    findings = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {f["source"] for f in findings} == {fmt for _, fmt in CASES}


def test_ingest_command_exits_2_on_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bomb = tmp_path / "bomb.xml"
    bomb.write_bytes(
        b'<!DOCTYPE t [<!ENTITY a "aaaa">]><testsuite><testcase name="&a;"><failure/></testcase></testsuite>'
    )
    assert main(["ingest", str(bomb)]) == 2
    assert "bomb.xml: refused XML" in capsys.readouterr().err


_STRUCTURED = [fmt for fmt in FORMATS if fmt not in ("auto", "log")]
_SAMPLES = [(FIXTURES / fixture).read_bytes() for fixture, fmt in CASES if fmt != "log"]


def _read_or_input_error(fmt: Format, body: bytes) -> None:
    try:
        findings = list(reader_for(fmt)(io.BytesIO(body), "fuzz", DEFAULT_LIMITS))
    except InputError as exc:
        assert str(exc).startswith("fuzz: ")
        assert "\n" not in str(exc)
    else:
        assert all(f.source == fmt for f in findings)


@settings(max_examples=150, deadline=None)
@given(fmt=st.sampled_from(_STRUCTURED), body=st.binary(max_size=300))
def test_any_bytes_give_findings_or_an_input_error(fmt: Format, body: bytes) -> None:
    _read_or_input_error(fmt, body)


@settings(max_examples=150, deadline=None)
@given(
    fmt=st.sampled_from(_STRUCTURED),
    sample=st.sampled_from(_SAMPLES),
    cut=st.floats(min_value=0, max_value=1),
    flips=st.lists(st.tuples(st.floats(min_value=0, max_value=1), st.integers(0, 255)), max_size=4),
)
def test_damaged_real_files_give_findings_or_an_input_error(
    fmt: Format, sample: bytes, cut: float, flips: list[tuple[float, int]]
) -> None:
    body = bytearray(sample[: int(len(sample) * cut) + 1])
    for where, value in flips:
        body[min(int(len(body) * where), len(body) - 1)] = value
    _read_or_input_error(fmt, bytes(body))
