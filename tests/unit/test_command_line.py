"""The command line, called in-process: exit codes, JSON output, determinism and safety of the state folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gauntlet.cli import main

NOW = "2026-11-02T10:00:00+00:00"


def _event(tmp_path: Path, sha: str, number: int = 7) -> Path:
    path = tmp_path / f"event-{sha[:4]}.json"
    payload = {
        "number": number,
        "pull_request": {"number": number, "head": {"sha": sha, "ref": "topic"}, "base": {"sha": "0" * 40}},
        "repository": {"full_name": "demo/calculator", "default_branch": "main"},
    }
    path.write_text(json.dumps(payload))
    return path


def _run(tmp_path: Path, demo_data: Path, *extra: str, sha: str = "a" * 40, iteration: int = 1) -> list[str]:
    return [
        "run",
        "--state-dir",
        str(tmp_path / "state"),
        "--event-name",
        "pull_request",
        "--event-path",
        str(_event(tmp_path, sha)),
        "--logs",
        str(demo_data / f"pytest-iteration-{iteration}.log"),
        "--findings",
        str(demo_data / f"review-iteration-{iteration}.json"),
        "--now",
        NOW,
        *extra,
    ]


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_ingest_json_prints_one_finding_per_line(demo_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ingest", "--json", str(demo_data / "pytest-iteration-1.log")]) == 0
    lines = capsys.readouterr().out.splitlines()
    findings = [json.loads(line) for line in lines]
    assert {f["test_id"] for f in findings} == {
        "tests/test_calc.py::test_add",
        "tests/test_calc.py::test_divide_by_zero",
        "tests/test_calc.py::test_mean_empty",
    }
    assert all(f["kind"] == "test_failure" and f["severity"] == "critical" for f in findings)


def test_ingest_unreadable_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ingest", str(tmp_path / "missing.log")]) == 2
    assert "missing.log" in capsys.readouterr().err


def test_run_json_reports_the_decision(tmp_path: Path, demo_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*_run(tmp_path, demo_data), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["decision"] == {"action": "fix_criticals", "iteration": 1, "criticals": 3, "majors": 1, "minors": 1}
    assert set(report) >= {"decision", "recovery", "health", "proposals", "effects", "api_calls"}
    assert set(report["recovery"]) == {"failure_type", "action", "reason", "attempt", "budget"}
    assert {e["type"] for e in report["effects"]} >= {"upsert_comment", "set_check", "write_summary"}


def test_two_runs_with_the_same_now_write_identical_state(tmp_path: Path, demo_data: Path) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir()
    second.mkdir()
    assert main(_run(first, demo_data)) == 0
    assert main(_run(second, demo_data)) == 0
    one, two = _snapshot(first / "state"), _snapshot(second / "state")
    assert one.keys() == two.keys()
    state_files = [name for name in one if name.startswith("v1/")]
    assert "v1/prs/7.json" in state_files
    assert all(one[name] == two[name] for name in state_files)


def test_second_iteration_shows_what_the_first_left(
    tmp_path: Path, demo_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_run(tmp_path, demo_data)) == 0
    assert main([*_run(tmp_path, demo_data, sha="b" * 40, iteration=2), "--json"]) == 0
    report = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert report["decision"]["iteration"] == 2
    record = json.loads((tmp_path / "state" / "v1" / "prs" / "7.json").read_text())
    current = record["iterations"][-1]
    assert len(current["fixed"]) == 3 and len(current["still_open"]) == 3 and current["new"] == []
    comment = (tmp_path / "state" / "out" / "pr-comment-7.md").read_text()
    assert "Fixed since the last iteration (3)" in comment and "assert -1 == 5" in comment


def test_malformed_only_input_exits_2_and_leaves_state_untouched(
    tmp_path: Path, demo_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_run(tmp_path, demo_data)) == 0
    before = _snapshot(tmp_path / "state")
    broken = tmp_path / "broken.json"
    broken.write_text('{"issues": [{"severity": "major", "description": ')
    args = _run(tmp_path, demo_data, sha="c" * 40)
    for option in ("--logs", "--findings"):  # the broken file is the run's only input
        at = args.index(option)
        del args[at : at + 2]
    assert main([*args, "--findings", str(broken)]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "broken.json" in error
    assert _snapshot(tmp_path / "state") == before


def test_malformed_input_among_good_ones_is_reported_and_the_rest_is_read(
    tmp_path: Path, demo_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"issues": [{"severity": "major", "description": ')
    assert main([*_run(tmp_path, demo_data), "--findings", str(broken), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["decision"]["criticals"] == 3
    assert [p["path"] for p in report["input_problems"]] == [str(broken)]


def test_dry_run_changes_nothing(tmp_path: Path, demo_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*_run(tmp_path, demo_data), "--dry-run", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {e["status"] for e in report["effects"]} == {"planned"}
    assert not (tmp_path / "state").exists()


def test_redelivered_event_changes_nothing(tmp_path: Path, demo_data: Path) -> None:
    assert main(_run(tmp_path, demo_data)) == 0
    before = _snapshot(tmp_path / "state")
    assert main(_run(tmp_path, demo_data)) == 0
    assert _snapshot(tmp_path / "state") == before


def test_status_summarises_the_state(tmp_path: Path, demo_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_run(tmp_path, demo_data)) == 0
    capsys.readouterr()
    assert main(["status", "--state-dir", str(tmp_path / "state"), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["prs"] == [
        {"number": 7, "iteration": 1, "action": "fix_criticals", "open_findings": 6, "accepted_risks": 0}
    ]


def test_importing_the_cli_stays_light() -> None:
    code = "import sys, gauntlet.cli; print(sorted(m for m in ('numpy', 'github', 'jinja2') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


FIXTURES = Path(__file__).parents[1] / "fixtures"
#: What a log-only `gauntlet ingest` never uses, so never imports (docs/ci-logs.md, start-up): the readers of
#: the other formats, the run's stages, the search libraries it does not need and pydantic's plugin lookup.
NOT_FOR_A_LOG = (
    "gauntlet.ingest.junit",
    "gauntlet.ingest.sarif",
    "gauntlet.ingest.structured",
    "gauntlet.ingest.tap",
    "gauntlet.engine",
    "gauntlet.effects",
    "gauntlet.github",
    "gauntlet.observe.observation",
    "gauntlet.pipeline",
    "gauntlet.state",
    "xml.etree.ElementTree",
    "jinja2",
    "yaml",
    "numpy",
    "hyperscan",
)


def _ingest_modules(tmp_path: Path, path: Path) -> tuple[list[str], dict[str, object]]:
    """Run `gauntlet ingest --json PATH` in a fresh interpreter, no config file: its findings and what it left out."""
    code = (
        "import json, sys\n"
        "from gauntlet.cli import main\n"
        "status = main(['ingest', '--json', sys.argv[1]])\n"
        "from pydantic.plugin import _loader\n"
        f"print(json.dumps({{'missing': [m for m in {NOT_FOR_A_LOG!r} if m not in sys.modules],"
        " 'plugins_scanned': _loader._plugins is not None}))\n"
        "raise SystemExit(status)\n"
    )
    # Without the variable, even where an in-process main() of another test has set it in this process.
    env = {name: value for name, value in os.environ.items() if name != "PYDANTIC_DISABLE_PLUGINS"}
    run = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert run.returncode == 0, run.stderr
    *findings, last = run.stdout.splitlines()
    return findings, json.loads(last)


def test_ingesting_a_log_imports_only_what_a_log_needs(tmp_path: Path) -> None:
    findings, seen = _ingest_modules(tmp_path, FIXTURES / "logs/pytest/failures_github/input.log")
    assert findings  # the log was read, parsed and printed
    assert seen == {"missing": list(NOT_FOR_A_LOG), "plugins_scanned": False}


def test_ingesting_a_junit_file_imports_its_reader(tmp_path: Path) -> None:
    findings, seen = _ingest_modules(tmp_path, FIXTURES / "junit/jest/broken-sum/junit.xml")
    assert findings
    missing = seen["missing"]
    assert isinstance(missing, list)
    assert "gauntlet.ingest.junit" not in missing
    assert "xml.etree.ElementTree" not in missing


# `run` names its event, so it stays a command-line run even where GITHUB_ACTIONS is set (CI on GitHub).
@pytest.mark.parametrize("command", [["run", "--event-name", "pull_request"], ["scan"], ["status"]])
def test_the_state_branch_outside_actions_is_a_clear_error(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*command, "--state-branch", "gauntlet-state", "--state-dir", str(tmp_path / "s")]) == 2
    assert "--state-branch needs GitHub" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()


def test_run_takes_the_known_failure_issues_from_a_file(
    tmp_path: Path, demo_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    issues = tmp_path / "known.json"
    body = 'Reworked upstream.\n```json\n{"message": "test_divide_by_zero: ZeroDivisionError"}\n```'
    issues.write_text(json.dumps([{"number": 5, "body": body, "html_url": "https://github.test/d/c/issues/5"}]))
    assert main([*_run(tmp_path, demo_data), "--known-failures", str(issues), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["provenance"]["counts"]["known"] == 1
    assert "known-hit:5:pr-7" in {e["key"] for e in report["effects"]}
    issues.write_text("{not json")
    assert main([*_run(tmp_path, demo_data, sha="b" * 40), "--known-failures", str(issues)]) == 2


def _widget_log(tmp_path: Path, text: str) -> Path:
    log = tmp_path / "job.log"
    lines = ["##[group]Run widgetc build", "widgetc build", "##[endgroup]", text]
    log.write_text("\n".join([*lines, "##[error]Process completed with exit code 1.", ""]))
    return log


def test_ingest_repo_root_prefers_a_place_that_is_a_file_of_the_checkout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checkout = tmp_path / "checkout"
    (checkout / "conf").mkdir(parents=True)
    (checkout / "conf" / "app.cfg").write_text("x = 1\n")
    log = _widget_log(tmp_path, "ERROR: widget check failed in gen/out.cfg:3 (included from conf/app.cfg:12)")
    assert main(["ingest", "--json", "--raw", str(log)]) == 0
    [alone] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert (alone["path"], alone["line"]) == ("gen/out.cfg", 3), "without a checkout: the first place"
    assert main(["ingest", "--json", "--raw", "--repo-root", str(checkout), str(log)]) == 0
    [placed] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert (placed["path"], placed["line"]) == ("conf/app.cfg", 12)


def test_ingest_repo_root_strips_its_own_absolute_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    checkout = tmp_path / "checkout"
    (checkout / "conf").mkdir(parents=True)
    (checkout / "conf" / "app.cfg").write_text("x = 1\n")
    log = _widget_log(tmp_path, f"ERROR: widget check failed in {checkout.resolve()}/conf/app.cfg:12")
    assert main(["ingest", "--json", "--raw", "--repo-root", str(checkout), str(log)]) == 0
    [finding] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert (finding["path"], finding["line"]) == ("conf/app.cfg", 12)


def test_ingest_repo_root_must_be_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = _widget_log(tmp_path, "ERROR: widget check failed")
    assert main(["ingest", "--repo-root", str(tmp_path / "nowhere"), str(log)]) == 2
    assert "--repo-root" in capsys.readouterr().err
