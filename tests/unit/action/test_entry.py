"""``gauntlet run`` inside GitHub Actions takes everything from INPUT_* and GITHUB_* (no GitHub needed here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gauntlet.cli import main


@pytest.fixture
def actions_env(tmp_path: Path, demo_data: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "pytest.log").write_bytes((demo_data / "pytest-iteration-1.log").read_bytes())
    event = tmp_path / "event.json"
    pull = {"number": 5, "head": {"sha": "b" * 40, "ref": "topic"}, "base": {"sha": "0" * 40}}
    event.write_text(json.dumps({"action": "opened", "pull_request": pull, "repository": {"full_name": "o/r"}}))
    (tmp_path / "output").touch()
    variables = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": "o/r",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_OUTPUT": str(tmp_path / "output"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "GITHUB_API_URL": "http://127.0.0.1:9",  # nothing listens: a call would fail the run
        "INPUT_LOGS": "*.log",
        "INPUT_STATE_DIR": ".gauntlet",
        "INPUT_DRY_RUN": "true",
        "INPUT_GITHUB_TOKEN": "",
    }
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    return tmp_path


def test_a_bare_run_in_actions_reads_inputs_and_writes_outputs(
    actions_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run"]) == 0

    outputs = (actions_env / "output").read_text(encoding="utf-8")
    assert "action=fix_criticals" in outputs and "iteration=1" in outputs
    assert "## Gauntlet" in (actions_env / "summary.md").read_text(encoding="utf-8")
    printed = capsys.readouterr().out
    assert "::error file=" in printed, "the check was only planned: annotations go to the log"
    assert "no API calls" in printed


def test_a_bad_input_exits_2(actions_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INPUT_FAIL_ON", "sometimes")

    assert main(["run"]) == 2


def test_explicit_files_keep_the_command_line_behaviour(
    actions_env: Path, demo_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    event = actions_env / "event.json"
    state = actions_env / "local-state"

    code = main(
        ["run", "--event-name", "pull_request", "--event-path", str(event), "--state-dir", str(state), "--json"]
    )

    assert code == 0
    assert json.loads(capsys.readouterr().out)["decision"]["iteration"] == 1
    assert (actions_env / "output").read_text(encoding="utf-8") == "", "no action outputs outside the action"


def test_state_dir_with_dry_run_makes_no_request_even_with_a_token(
    actions_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The token the workflow always passes; GITHUB_API_URL points at a closed loopback port, so any request
    # would be retried and fail the run with exit 3.
    monkeypatch.setenv("INPUT_GITHUB_TOKEN", "ghs_" + "x" * 36)
    monkeypatch.setenv("INPUT_BOT_LOGIN", "auto")

    assert main(["run"]) == 0

    printed = capsys.readouterr().out
    assert "no API calls" in printed
    assert "action=fix_criticals" in (actions_env / "output").read_text(encoding="utf-8")
