"""Many inputs at once: one that cannot be read is reported and the others are still read (issue 17).

Through ``gauntlet ingest`` and ``gauntlet run`` in-process, on every real fixture of every format.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import get_args

import pytest

from gauntlet.cli import main
from gauntlet.ingest import ingest_paths
from gauntlet.kinds import Source

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
FORMAT_DIRS = ("sarif", "junit", "rdjson", "checkstyle", "review", "comments", "nunit", "xunit", "trx", "ctrf")
FORMAT_DIRS += ("tap", "go-json", "mocha-json", "jest-json", "dart-json")
EVERY_FIXTURE = sorted(
    path
    for folder in FORMAT_DIRS
    for path in (FIXTURES / folder).glob("*/*/*")
    if path.suffix in (".sarif", ".xml", ".rdjson", ".json", ".trx", ".tap", ".jsonl")
    and not path.name.endswith(".expected.jsonl")
)
NOW = "2026-11-02T10:00:00+00:00"


def _unreadable(tmp_path: Path) -> Path:
    bad = tmp_path / "broken.sarif"
    bad.write_bytes(b'{"version": "2.1.0", "runs": [{"results": [')  # cut off mid-write
    return bad


def test_every_format_is_among_the_fixtures() -> None:
    sources = {finding.source for finding in ingest_paths(EVERY_FIXTURE).findings}
    assert sources == set(get_args(Source)) - {"log"}  # every format but the logs, which have their own tests


def test_ingest_reads_the_good_files_and_reports_the_bad_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = _unreadable(tmp_path)
    assert main(["ingest", "--json", "--raw", *map(str, EVERY_FIXTURE)]) == 0
    alone = capsys.readouterr().out.splitlines()
    assert main(["ingest", "--json", "--raw", str(bad), *map(str, EVERY_FIXTURE)]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == alone  # every other finding is still there
    assert f"gauntlet: error: {bad}: not valid JSON" in err


def test_ingest_exits_2_only_when_nothing_could_be_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ingest", str(_unreadable(tmp_path)), str(tmp_path / "missing.xml")]) == 2
    err = capsys.readouterr().err
    assert "broken.sarif: not valid JSON" in err and "missing.xml: cannot read" in err


def test_a_forced_format_that_does_not_match_exits_2_naming_what_it_is(capsys: pytest.CaptureFixture[str]) -> None:
    sarif = FIXTURES / "sarif/ruff/broken-calc/ruff.sarif"
    assert main(["ingest", "--format", "junit", str(sarif)]) == 2
    assert "--format junit given, but the file is SARIF" in capsys.readouterr().err
    nunit = FIXTURES / "nunit/nunit2/enricomi-jenkinsci/NUnit-failure.xml"
    assert main(["ingest", "--format", "junit", str(nunit)]) == 2
    assert "the file is NUnit 2 XML" in capsys.readouterr().err


def test_an_unknown_document_is_a_warning_never_silence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    package = tmp_path / "package.json"
    package.write_text('{"name": "demo", "version": "1.0.0", "scripts": {}}')
    assert main(["ingest", str(package)]) == 0
    err = capsys.readouterr().err
    assert "gauntlet: warning:" in err and "not a findings format" in err and "keys name, version" in err
    assert "review" not in err  # other JSON no longer gets the review format's error


def test_a_bom_and_integers_beyond_64_bits_are_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sarif = json.loads((FIXTURES / "sarif/ruff/broken-calc/ruff.sarif").read_text())
    sarif["runs"][0]["properties"] = {"id": 2**70}
    body = json.dumps(sarif).encode()
    plain, odd = tmp_path / "plain.sarif", tmp_path / "visual-studio.sarif"
    plain.write_bytes(json.dumps(json.loads((FIXTURES / "sarif/ruff/broken-calc/ruff.sarif").read_text())).encode())
    odd.write_bytes(b"\xef\xbb\xbf" + body)
    assert main(["ingest", "--json", "--raw", str(plain)]) == 0
    expected = capsys.readouterr().out
    assert main(["ingest", "--json", "--raw", str(odd)]) == 0
    assert capsys.readouterr().out == expected != ""


def test_ingest_prints_findings_classified_and_merged_as_run_acts_on_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = FIXTURES / "junit/pytest/broken-calc/pytest.log"
    report = FIXTURES / "junit/pytest/broken-calc/report.xml"
    config = tmp_path / "gauntlet.yml"
    config.write_text("context:\n  - name: money\n    paths: ['src/app/**']\n    priority: P0\n")
    assert main(["ingest", "--json", "--raw", str(log), str(report)]) == 0
    raw = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert main(["ingest", "--json", "--config", str(config), str(log), str(report)]) == 0
    merged = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(raw) == 8 and len(merged) == 4
    assert all(f["sources"] == ["log", "junit"] for f in merged)
    by_zero = next(f for f in merged if f["test_id"].endswith("test_by_zero"))
    assert (by_zero["path"], by_zero["line"], by_zero["priority"]) == ("src/app/calc.py", 16, "P0")
    assert {f["priority"] for f in merged if f is not by_zero} == {"P1"}  # critical on a PR


def _event(tmp_path: Path) -> Path:
    path = tmp_path / "event.json"
    payload = {
        "number": 7,
        "pull_request": {"number": 7, "head": {"sha": "a" * 40, "ref": "topic"}, "base": {"sha": "0" * 40}},
        "repository": {"full_name": "demo/calculator", "default_branch": "main"},
    }
    path.write_text(json.dumps(payload))
    return path


def _run(tmp_path: Path, findings: list[Path]) -> list[str]:
    tmp_path.mkdir(exist_ok=True)
    args = ["run", "--state-dir", str(tmp_path / "state"), "--event-name", "pull_request"]
    args += ["--event-path", str(_event(tmp_path)), "--now", NOW, "--json", "--dry-run"]
    for path in findings:
        args += ["--findings", str(path)]
    return args


def test_run_with_one_unreadable_file_among_every_fixture_reports_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = _unreadable(tmp_path)
    assert main(_run(tmp_path / "good", EVERY_FIXTURE)) == 0
    alone = json.loads(capsys.readouterr().out)
    assert main(_run(tmp_path / "mixed", [bad, *EVERY_FIXTURE])) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["decision"] == alone["decision"] and report["decision"]["criticals"] > 20
    (problem,) = report["input_problems"]
    assert (problem["path"], problem["level"]) == (str(bad), "error")
    assert problem["message"].startswith(f"{bad}: not valid JSON")
    assert alone["input_problems"] == []


def test_run_puts_the_notice_in_the_job_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = _unreadable(tmp_path)
    args = [a for a in _run(tmp_path, [bad, FIXTURES / "junit/pytest/broken-calc/report.xml"]) if a != "--dry-run"]
    assert main(args) == 0
    capsys.readouterr()
    summary = (tmp_path / "state" / "out" / "summary.md").read_text(encoding="utf-8")
    assert f"Not read: {bad}: not valid JSON" in summary
    assert "| fix_criticals | 1 | 4 |" in summary  # the readable report's four failures still count


def test_run_exits_2_when_its_only_input_cannot_be_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_run(tmp_path, [_unreadable(tmp_path)])) == 2
    assert "broken.sarif: not valid JSON" in capsys.readouterr().err


def test_in_actions_an_unreadable_findings_file_is_a_warning_and_a_summary_notice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "report.xml").write_bytes((FIXTURES / "junit/pytest/broken-calc/report.xml").read_bytes())
    _unreadable(workspace)
    (tmp_path / "output").touch()
    variables = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(_event(tmp_path)),
        "GITHUB_REPOSITORY": "demo/calculator",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_OUTPUT": str(tmp_path / "output"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "GITHUB_API_URL": "http://127.0.0.1:9",  # nothing listens: a call would fail the run
        "INPUT_FINDINGS": "*.xml\nbroken.sarif",
        "INPUT_STATE_DIR": ".gauntlet",
        "INPUT_DRY_RUN": "true",
        "INPUT_GITHUB_TOKEN": "",
    }
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    assert main(["run"]) == 0
    printed = capsys.readouterr().out
    assert "::warning title=Gauntlet could not read an input::" in printed and "broken.sarif" in printed
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "Not read:" in summary and "broken.sarif: not valid JSON" in summary
    assert "criticals=4" in (tmp_path / "output").read_text(encoding="utf-8")


@pytest.mark.parametrize("surrogate", [rb"\ud800", b"\xed\xa0\x80"])
def test_gauntlet_ingest_reads_a_review_and_a_sarif_holding_lone_surrogates(
    tmp_path: Path, surrogate: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    review = tmp_path / "review.json"
    review.write_bytes(
        b'[{"reviewer": "r", "severity": "major", "category": "bug", "location": "src/a.py:1", '
        b'"description": "bad ' + surrogate + b' here"}]'
    )
    sarif = tmp_path / "s.sarif"
    sarif.write_bytes(
        b'{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x' + surrogate + b'"}}, "results": '
        b'[{"ruleId": "R1", "level": "error", "message": {"text": "m ' + surrogate + b'"}}]}]}'
    )
    assert main(["ingest", "--json", str(review), str(sarif)]) == 0  # two findings, not a UnicodeDecodeError
    messages = sorted(json.loads(line)["message"] for line in capsys.readouterr().out.splitlines())
    # A replacement for each surrogate: U+FFFD (one per invalid byte when it came as raw UTF-8), or "?" where
    # ijson's C parser already replaced an escaped one itself.
    assert [re.sub("[\ufffd?]+", "\ufffd", m) for m in messages] == ["bad \ufffd here", "m \ufffd"]
