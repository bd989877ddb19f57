"""``action/queue_setup.py``: which workflow must run on ``merge_group``, whether it does, and the warning."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gauntlet.action.queue_setup import MAX_BYTES, QueueCheck, QueueGap, find_gap, plan_check, queue_warning, triggers
from gauntlet.github.branch_rules import BranchRules

REF = "octo/app/.github/workflows/{}@refs/heads/main"
QUEUED = BranchRules(merge_queue=True, required=frozenset({"Gauntlet"}))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("on: push", {"push"}),
        ("on: [push, merge_group]", {"push", "merge_group"}),
        ("on:\n  pull_request:\n  merge_group:\n    types: [checks_requested]", {"pull_request", "merge_group"}),
        ("'on': merge_group", {"merge_group"}),  # quoted: a string key, not YAML 1.1's boolean
        ("on: 5", set()),
        ("on: [1, {a: b}, merge_group]", {"merge_group"}),
        ("on: {1: x}", set()),
        ("name: no trigger", set()),
        ("- not\n- a mapping", set()),
    ],
)
def test_triggers_read_on_as_a_string_a_list_or_a_mapping(text: str, expected: set[str]) -> None:
    assert triggers(yaml.safe_load(text)) == expected


def _workspace(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    for name, text in files.items():
        path = tmp_path / ".github" / "workflows" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode() if isinstance(text, str) else text)
    return tmp_path


STEP = "name: CI\non: [pull_request]\n"
QUEUED_STEP = "name: CI\non: [pull_request, merge_group]\n"
WATCHER = "name: Gauntlet\non:\n  workflow_run:\n    workflows: {}\n    types: [completed]\n"


def test_a_step_setup_needs_the_trigger_in_its_own_workflow(tmp_path: Path) -> None:
    assert find_gap(_workspace(tmp_path, {"ci.yml": STEP}), REF.format("ci.yml")) == QueueGap(
        path=".github/workflows/ci.yml"
    )
    assert find_gap(_workspace(tmp_path, {"ci.yml": QUEUED_STEP}), REF.format("ci.yml")) is None


@pytest.mark.parametrize("names", ["[CI]", "CI", "[Lint, CI]"])
def test_a_workflow_run_setup_needs_it_in_a_workflow_it_watches(tmp_path: Path, names: str) -> None:
    files = {"gauntlet.yml": WATCHER.format(names), "ci.yml": STEP, "lint.yaml": "name: Lint\non: push\n"}
    gap = find_gap(_workspace(tmp_path, files), REF.format("gauntlet.yml"))
    assert gap is not None and gap.path.endswith(("ci.yml", "lint.yaml")) and gap.name in ("CI", "Lint")
    assert gap.fix == f"add `merge_group:` under `on:` in {gap.path}"

    files["ci.yml"] = QUEUED_STEP  # one watched workflow on merge_group is enough: its run starts Gauntlet
    assert find_gap(_workspace(tmp_path, files), REF.format("gauntlet.yml")) is None


def test_a_watched_workflow_without_a_name_is_named_by_its_path(tmp_path: Path) -> None:
    files = {"gauntlet.yml": WATCHER.format("[.github/workflows/ci.yml]"), "ci.yml": "on: [pull_request]\n"}
    gap = find_gap(_workspace(tmp_path, files), REF.format("gauntlet.yml"))
    assert gap == QueueGap(path=".github/workflows/ci.yml", name=None)


@pytest.mark.parametrize(
    ("files", "ref"),
    [
        ({"ci.yml": STEP}, ""),
        ({"ci.yml": STEP}, "octo/app/.github/workflows/other.yml@main"),  # not checked out
        ({"ci.yml": STEP}, "octo/app/.github/workflows/../../../etc/passwd@main"),
        ({"ci.yml": STEP}, "octo/app/README.md@main"),
        ({"ci.yml": b"\xff\xfe on: push"}, REF.format("ci.yml")),
        ({"ci.yml": "on: [push\n"}, REF.format("ci.yml")),
        ({"ci.yml": "[" * 100_000}, REF.format("ci.yml")),
        ({"ci.yml": "#" * (MAX_BYTES + 1)}, REF.format("ci.yml")),
        ({"gauntlet.yml": WATCHER.format("[CI]")}, REF.format("gauntlet.yml")),  # CI not there
        ({"gauntlet.yml": WATCHER.format("[CI, Gone]"), "ci.yml": STEP}, REF.format("gauntlet.yml")),
        ({"gauntlet.yml": WATCHER.format("{a: b}"), "ci.yml": STEP}, REF.format("gauntlet.yml")),
    ],
)
def test_files_that_cannot_tell_give_no_gap(tmp_path: Path, files: dict[str, str | bytes], ref: str) -> None:
    assert find_gap(_workspace(tmp_path, files), ref) is None


def test_a_workflow_outside_the_workspace_is_never_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside.yml"
    outside.write_text(STEP)
    workspace = tmp_path / "ws"
    (workspace / ".github" / "workflows").mkdir(parents=True)
    (workspace / ".github" / "workflows" / "ci.yml").symlink_to(outside)
    assert find_gap(workspace, REF.format("ci.yml")) is None


def _payload(path: Any, name: Any = "CI") -> dict[str, Any]:
    return {"workflow_run": {"path": path, "name": name}}


def test_without_a_checkout_the_watched_workflow_is_read_on_github(tmp_path: Path) -> None:
    check = plan_check(tmp_path, REF.format("gauntlet.yml"), _payload(".github/workflows/ci.yml"))
    assert check == QueueCheck(remote=".github/workflows/ci.yml", name="CI") and check.asks
    assert check.found(STEP.encode()) == QueueGap(path=".github/workflows/ci.yml", name="CI")
    assert check.found(QUEUED_STEP.encode()) is None
    assert check.found(None) is None and check.found(b"[" * 10) is None
    assert check.found(b"#" * (MAX_BYTES + 1)) is None


@pytest.mark.parametrize(
    "payload",
    [None, {}, {"workflow_run": []}, _payload(None), _payload("dynamic/github-code-scanning/codeql"), _payload("../x")],
)
def test_a_payload_without_a_workflow_path_asks_nothing(tmp_path: Path, payload: Any) -> None:
    assert not plan_check(tmp_path, REF.format("gauntlet.yml"), payload).asks


def test_a_checkout_decides_alone(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path, {"ci.yml": QUEUED_STEP})
    assert plan_check(workspace, REF.format("ci.yml"), _payload(".github/workflows/ci.yml")) == QueueCheck()
    workspace = _workspace(tmp_path, {"ci.yml": STEP})
    assert plan_check(workspace, REF.format("ci.yml"), None).gap == QueueGap(path=".github/workflows/ci.yml")


GAP = QueueGap(path=".github/workflows/ci.yml")


@pytest.mark.parametrize(
    ("gap", "rules", "name"),
    [
        (None, QUEUED, "Gauntlet"),
        (GAP, None, "Gauntlet"),
        (GAP, BranchRules(merge_queue=False, required=frozenset({"Gauntlet"})), "Gauntlet"),
        (GAP, BranchRules(merge_queue=True, required=frozenset({"CI"})), "Gauntlet"),
        (GAP, QUEUED, "gauntlet"),  # a context is matched as GitHub matches it: exactly
    ],
)
def test_no_warning_without_a_gap_a_queue_and_the_check_required(
    gap: QueueGap | None, rules: BranchRules | None, name: str
) -> None:
    assert queue_warning(gap, rules, name, "main") is None


def test_the_warning_says_the_problem_and_the_fix() -> None:
    said = queue_warning(QueueGap(path=".github/workflows/ci.yml", name="CI"), QUEUED, "Gauntlet", "trunk")
    assert said is not None
    assert "`Gauntlet` check is required on `trunk`" in said and "merge queue" in said
    assert said.endswith("Fix: add `merge_group:` under `on:` in .github/workflows/ci.yml.")


EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "workflows"


@pytest.mark.parametrize(
    ("own", "others"), [("gauntlet.yml", ("ci.yml",)), ("pull-request.yml", ()), ("default-branch.yml", ("ci.yml",))]
)
def test_the_shipped_examples_have_the_trigger_and_the_fix_puts_it_back(
    tmp_path: Path, own: str, others: tuple[str, ...]
) -> None:
    files = {name: (EXAMPLES / name).read_text(encoding="utf-8") for name in (own, *others)}
    assert find_gap(_workspace(tmp_path, files), REF.format(own)) is None

    needing = others[0] if others else own
    files[needing] = files[needing].replace("  merge_group:\n", "")
    gap = find_gap(_workspace(tmp_path, files), REF.format(own))
    assert gap is not None and gap.path == f".github/workflows/{needing}"

    files[needing] = files[needing].replace("on:\n", "on:\n  merge_group:\n", 1)  # the fix, as the warning says it
    assert find_gap(_workspace(tmp_path, files), REF.format(own)) is None
