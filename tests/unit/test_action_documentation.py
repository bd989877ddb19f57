"""The README documents exactly the action's inputs and outputs, and every input is actually read."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from gauntlet.action.inputs import from_env

REPO = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
README = (REPO / "README.md").read_text(encoding="utf-8")

#: For each input, a valid value other than its default: setting it must change the parsed settings.
DIFFERENT_VALUE = {
    "github_token": "another-token",
    "config": "ci/gauntlet.yml",
    "logs": "ci/*.log",
    "findings": "reports/*.sarif",
    "download_logs": "true",
    "download_artifacts": "findings",
    "review_comments": "false",
    "graphql": "false",
    "state_branch": "ci-state",
    "state_dir": ".gauntlet-state",
    "bot_login": "gauntlet-app[bot]",
    "fail_on": "majors",
    "fail_step": "true",
    "comment_mode": "always",
    "check_name": "Gauntlet (lint)",
    "dry_run": "true",
}


def readme_table(heading: str) -> dict[str, str]:
    """First column (a `name`) -> second column of the table under ``heading``."""
    section = README.split(f"### {heading}\n", 1)[1].split("\n#", 1)[0]
    rows = re.findall(r"^\| `([a-z_]+)` \| ([^|]*) \|", section, flags=re.M)
    return {name: cell.strip() for name, cell in rows}


def readme_default(action_default: str) -> str:
    return f"`{action_default}`" if action_default else "(none)"


def test_readme_lists_every_input_with_its_default() -> None:
    documented = readme_table("Inputs")
    assert list(documented) == list(ACTION["inputs"])
    for name, spec in ACTION["inputs"].items():
        assert documented[name] == readme_default(spec.get("default", "")), name


def test_readme_lists_every_output() -> None:
    assert list(readme_table("Outputs")) == list(ACTION["outputs"])


def defaults_env(tmp_path: Path) -> dict[str, str]:
    env = {"GITHUB_WORKSPACE": str(tmp_path), "GITHUB_REPOSITORY": "o/r"}
    for name, spec in ACTION["inputs"].items():
        default = str(spec.get("default", ""))
        env[f"INPUT_{name.upper()}"] = "a-token" if default.startswith("${{") else default
    return env


def test_every_input_has_a_value_to_try() -> None:
    assert set(DIFFERENT_VALUE) == set(ACTION["inputs"])


@pytest.mark.parametrize("name", list(ACTION["inputs"]))
def test_every_input_is_read_by_the_settings(name: str, tmp_path: Path) -> None:
    env = defaults_env(tmp_path)
    baseline = from_env(env)
    assert from_env(dict(env)) == baseline  # parsing is deterministic, so a difference means the input was read
    changed = from_env({**env, f"INPUT_{name.upper()}": DIFFERENT_VALUE[name]})
    assert changed != baseline, f"input {name} does not change the settings"
