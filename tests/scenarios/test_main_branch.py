"""Main-branch histories (``main_branch/*.yaml``) replayed through the real engine, decision by decision."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from mainline import LOGS, History, StepOutcome, all_scenarios, load

from gauntlet.cli import main
from gauntlet.engine.decide import decide
from gauntlet.state.branch import BranchRecord
from gauntlet.state.models import State
from gauntlet.vocabulary import RevertReason

PATHS = all_scenarios()


def check(scenario: History, outcome: StepOutcome) -> None:
    expect = outcome.step.expect
    where = f"{scenario.name}, run {expect['_i'] + 1}"
    recovery = outcome.plan.recovery
    if "action" in expect:
        assert recovery.action == expect["action"], f"{where}: {recovery}"
    if "failure_type" in expect:
        assert recovery.failure_type == expect["failure_type"], f"{where}: {recovery}"
    if "decision" in expect:
        assert outcome.breakage is not None, where
        assert outcome.breakage.decision == expect["decision"], f"{where}: {outcome.breakage.detail}"
    if "culprit" in expect:
        assert outcome.breakage is not None, where
        assert scenario.commit_id(outcome.breakage.culprit) == expect["culprit"], f"{where}: {outcome.breakage.detail}"
    if "effects" in expect:
        assert outcome.actions == expect["effects"], f"{where}: {recovery.reason}"
    if "flaky_issues" in expect:
        assert outcome.flaky_issues == expect["flaky_issues"], f"{where}: {outcome.flaky_issues}"
    if "resolution" in expect:
        assert outcome.breakage is not None, where
        assert outcome.breakage.resolution == expect["resolution"], where


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_scenario_decides_as_expected(path: Path) -> None:
    scenario = load(path)
    checked = 0
    for outcome in scenario.replay():
        check(scenario, outcome)
        checked += len(outcome.step.expect) - 1
        for culprit in outcome.reverted:
            assert scenario.commit_id(culprit) in scenario.culprits, f"{scenario.name}: bad revert of {culprit[:7]}"
    assert checked, f"{scenario.name} expects nothing"


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_redelivering_every_run_changes_nothing(path: Path) -> None:
    scenario = load(path)
    state = State(branch=BranchRecord(name="main"))
    rng = np.random.default_rng(0)
    for step in scenario.steps:
        state, first = decide(state, step.observation, scenario.config, step.now, rng)
        again, plan = decide(state, step.observation, scenario.config, step.now, rng)
        assert again == state
        # Only the report, and the same rerun the first delivery asked for (a step of the CI job could not
        # make it; GitHub's later attempt turns it into a no-op once made).
        reruns = [e.key for e in first.effects if e.type == "rerun_failed_jobs"]
        assert [e.type for e in plan.effects] == ["set_check", "write_summary", *(["rerun_failed_jobs"] * len(reruns))]
        assert [e.key for e in plan.effects if e.type == "rerun_failed_jobs"] == reruns


def test_the_suite_covers_every_reason_code_and_outcome() -> None:
    decisions = set()
    for path in PATHS:
        for step in load(path).steps:
            if "decision" in step.expect:
                decisions.add(step.expect["decision"])
    assert len(PATHS) >= 30
    assert {str(r) for r in RevertReason} <= decisions
    assert {"revert", "shadow", "off"} <= decisions


def test_run_json_reports_recovery_for_the_default_branch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``gauntlet run --json`` (local mode, no commit history): a red push is broken_build, and without
    suspects the revert is refused as ambiguous, so a needs-human issue is written (DESIGN §8)."""

    def push(sha: str, log: str) -> dict[str, object]:
        event = tmp_path / f"{sha[:4]}.json"
        payload = {
            "ref": "refs/heads/main",
            "after": sha,
            "repository": {"full_name": "octo/calc", "default_branch": "main"},
        }
        event.write_text(json.dumps(payload), encoding="utf-8")
        argv = ["run", "--state-dir", str(tmp_path / "state"), "--event-name", "push", "--event-path", str(event)]
        assert main([*argv, "--logs", str(LOGS / log), "--now", "2026-11-29T10:00:00Z", "--json"]) == 0
        report: dict[str, object] = json.loads(capsys.readouterr().out)
        return report

    green = push("a" * 40, "pytest-pass.log")
    assert green["recovery"] == {
        "failure_type": None,
        "action": "continue",
        "reason": "nothing to recover from",
        "attempt": 0,
        "budget": None,
    }
    red = push("b" * 40, "pytest-add-broken.log")
    recovery = red["recovery"]
    assert isinstance(recovery, dict)
    assert (recovery["failure_type"], recovery["action"], recovery["attempt"]) == ("broken_build", "escalate", 1)
    assert "no revert (ambiguous)" in recovery["reason"]
    effects = red["effects"]
    assert isinstance(effects, list)
    assert [e["type"] for e in effects] == ["set_check", "write_summary", "file_issue"]
