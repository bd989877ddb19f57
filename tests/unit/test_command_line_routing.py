"""``gauntlet run --event-name N --event-path P`` routes every event exactly as the Action does (one table)."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from gauntlet.action.entry import run_action
from gauntlet.cli import main
from gauntlet.pipeline import Clock

NOW = "2026-11-02T10:00:00+00:00"
SHA = "a" * 40
REPOSITORY = {"full_name": "demo/calculator", "default_branch": "main"}
PR = {"number": 7, "head": {"sha": SHA, "ref": "topic"}, "base": {"sha": "0" * 40}, "user": {"login": "pat"}}
COMMENT = {
    "action": "created",
    "comment": {"id": 11, "body": "/gauntlet status", "user": {"login": "rita", "type": "User"}},
    "issue": {"number": 7, "user": {"login": "pat"}, "pull_request": {"url": "x"}},
    "repository": REPOSITORY,
}

#: Event name, payload, and what the run must do with it.
EVENTS: dict[str, tuple[str, dict[str, Any]]] = {
    "check_run": ("check_run", {"action": "completed", "check_run": {"head_sha": SHA}, "repository": REPOSITORY}),
    "labeled": ("pull_request", {"action": "labeled", "number": 7, "pull_request": PR, "repository": REPOSITORY}),
    "closed": ("pull_request", {"action": "closed", "number": 7, "pull_request": PR, "repository": REPOSITORY}),
    "issue_comment": ("issue_comment", COMMENT),
    "workflow_dispatch": ("workflow_dispatch", {"repository": REPOSITORY}),
    "schedule": ("schedule", {"schedule": "0 3 * * *", "repository": REPOSITORY}),
}


def _write(folder: Path, name: str, payload: dict[str, Any]) -> Path:
    path = folder / f"{name}.json"
    path.write_text(json.dumps(payload))
    return path


def _cli(state: Path, event: str, payload: Path, *extra: str) -> list[str]:
    return ["run", "--state-dir", str(state), "--event-name", event, "--event-path", str(payload), "--now", NOW, *extra]


@pytest.fixture
def state_with_pr(tmp_path: Path, demo_data: Path) -> Path:
    """A state folder holding PR 7 after one iteration (criticals found)."""
    state = tmp_path / "state"
    opened = _write(tmp_path, "opened", {"action": "opened", "number": 7, "pull_request": PR, "repository": REPOSITORY})
    logs = str(demo_data / "pytest-iteration-1.log")
    assert main([*_cli(state, "pull_request", opened), "--logs", logs, "--json"]) == 0
    return state


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("case", ["check_run", "labeled"])
def test_events_the_action_ignores_are_ignored(
    case: str, state_with_pr: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    before = _files(state_with_pr)
    event, payload = EVENTS[case]
    assert main([*_cli(state_with_pr, event, _write(tmp_path, case, payload)), "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["decision"] is None
    assert f"ignored event {event}" in captured.err
    assert _files(state_with_pr) == before


def test_a_closed_pull_request_compacts_its_record(state_with_pr: Path, tmp_path: Path) -> None:
    event, payload = EVENTS["closed"]
    assert main(_cli(state_with_pr, event, _write(tmp_path, "closed", payload))) == 0
    record = json.loads((state_with_pr / "v1/prs/7.json").read_text())
    assert record["closed"] is True
    assert len(record["iterations"]) == 1


def test_a_comment_runs_the_command(state_with_pr: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    event, payload = EVENTS["issue_comment"]
    assert main([*_cli(state_with_pr, event, _write(tmp_path, "comment", payload)), "--json"]) == 0
    effects = {e["type"] for e in json.loads(capsys.readouterr().out)["effects"]}
    assert "reply_to_comment" in effects  # /gauntlet status answers, instead of "no head SHA"
    # Running it again is a redelivery of the same comment: nothing new is written.
    before = _files(state_with_pr)
    assert main(_cli(state_with_pr, event, _write(tmp_path, "comment", payload))) == 0
    assert _files(state_with_pr) == before


@pytest.mark.parametrize("case", ["workflow_dispatch", "schedule"])
def test_scheduled_and_manual_runs_scan(
    case: str, state_with_pr: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    event, payload = EVENTS[case]
    assert main([*_cli(state_with_pr, event, _write(tmp_path, case, payload)), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["decision"] is None
    assert "proposals" in report
    assert (state_with_pr / "v1/proposals.json").exists()  # the scan wrote its book


@pytest.mark.parametrize("case", sorted(EVENTS))
def test_the_command_line_reports_what_the_action_reports(
    case: str, state_with_pr: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same event, state and clock give the same report on the command line and in a dry-run Action."""
    event, payload = EVENTS[case]
    path = _write(tmp_path, case, payload)
    capsys.readouterr()
    assert main([*_cli(state_with_pr, event, path), "--dry-run", "--json"]) == 0
    local = json.loads(capsys.readouterr().out)

    outputs = tmp_path / "outputs"
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(tmp_path),
        "GITHUB_EVENT_NAME": event,
        "GITHUB_EVENT_PATH": str(path),
        "GITHUB_REPOSITORY": "demo/calculator",
        "GITHUB_OUTPUT": str(outputs),
        "INPUT_STATE_DIR": state_with_pr.name,
        "INPUT_DRY_RUN": "true",
    }
    clock = Clock(now=datetime.fromisoformat(NOW).astimezone(UTC), sleep=lambda _: None, monotonic=lambda: 0.0)
    assert run_action(env, clock, io.StringIO()) == 0
    reported = next(line for line in outputs.read_text().splitlines() if line.startswith("report="))
    assert json.loads(reported.removeprefix("report=")) == local
