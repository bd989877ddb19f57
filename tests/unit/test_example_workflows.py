"""The example workflows are the documented setups (README, issue 29): each event reaches Gauntlet once.

``actionlint`` (``make lint``) checks they are valid workflows; this checks what they promise.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "workflows"


def _load(name: str) -> dict[str, Any]:
    data = yaml.safe_load((EXAMPLES / name).read_text(encoding="utf-8"))
    # YAML 1.1 reads the key `on` as True.
    return {("on" if key is True else key): value for key, value in data.items()}


def _gauntlet_steps(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    steps = [step for job in workflow["jobs"].values() for step in job.get("steps", [])]
    return [step for step in steps if str(step.get("uses", "")).startswith("your-org/gauntlet@")]


def test_the_recommended_ci_runs_in_the_merge_queue_and_uploads_findings_without_gauntlet() -> None:
    ci = _load("ci.yml")
    assert {"pull_request", "push", "merge_group"} <= set(ci["on"])
    assert _gauntlet_steps(ci) == [], "CI is judged from outside, once it has completed"
    uploads = [s for j in ci["jobs"].values() for s in j["steps"] if "upload-artifact" in str(s.get("uses"))]
    assert [u["with"]["name"] for u in uploads] == ["findings"]


def test_the_recommended_gauntlet_workflow_serves_every_event_from_outside_ci() -> None:
    ci, gauntlet = _load("ci.yml"), _load("gauntlet.yml")
    assert gauntlet["on"]["workflow_run"]["workflows"] == [ci["name"]]
    assert "branches" not in gauntlet["on"]["workflow_run"], "PRs, main and the merge queue alike"
    assert {"issue_comment", "schedule"} <= set(gauntlet["on"])
    [step] = _gauntlet_steps(gauntlet)
    assert step["with"] == {"download_logs": True, "download_artifacts": "findings"}
    assert gauntlet["permissions"]["actions"] == "write", "a red run is rerun to confirm it, a new PR failure too"


def test_the_simple_setup_leaves_pushes_to_main_to_its_workflow_run_companion() -> None:
    step_setup, main = _load("pull-request.yml"), _load("default-branch.yml")
    assert "merge_group" in step_setup["on"]
    [step] = _gauntlet_steps(step_setup)
    assert "github.event_name != 'push'" in step["if"], "a push to main would be judged twice"
    assert main["on"]["workflow_run"]["workflows"] == [step_setup["name"]]
    assert main["on"]["workflow_run"]["branches"] == ["main"]
    assert main["permissions"]["actions"] == "write"
