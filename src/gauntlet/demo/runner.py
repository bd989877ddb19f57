"""The runner's side of an action step: the files it hands the step, the environment it sets, and reading
``$GITHUB_OUTPUT`` back.

The demo and the end-to-end tests both start :func:`gauntlet.action.entry.run_action` the way a GitHub
Actions runner starts the Docker action; what the runner provides is spelled out here once, so the two
cannot drift apart.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["StepFiles", "parse_outputs", "step_env"]


@dataclass(frozen=True)
class StepFiles:
    """The files a runner gives a step: the workspace, the event payload, the output file and the job summary."""

    workspace: Path
    event: Path
    output: Path
    summary: Path

    @classmethod
    def create(cls, folder: Path, payload: Mapping[str, Any]) -> StepFiles:
        """Make ``folder`` with an empty ``workspace``, ``event.json`` holding ``payload``, and empty ``output``
        and ``summary.md`` (the runner creates both before the step starts)."""
        files = cls(
            workspace=folder / "workspace",
            event=folder / "event.json",
            output=folder / "output",
            summary=folder / "summary.md",
        )
        files.workspace.mkdir(parents=True)
        files.event.write_text(json.dumps(payload), encoding="utf-8")
        files.output.touch()
        files.summary.touch()
        return files

    def outputs(self) -> dict[str, str]:
        """The step's outputs as the runner reads them from ``$GITHUB_OUTPUT``."""
        return parse_outputs(self.output.read_text(encoding="utf-8"))


def step_env(
    files: StepFiles,
    *,
    event: str,
    repository: str,
    sha: str,
    api_url: str,
    server_url: str,
    run_id: int,
    attempt: int,
    workflow: str,
    job: str,
    token: str,
    inputs: Mapping[str, str],
) -> dict[str, str]:
    """The ``GITHUB_*`` variables a runner sets for the step, and ``inputs`` as ``INPUT_<NAME>``.

    :param api_url: ``GITHUB_API_URL``; pointing it elsewhere than ``server_url`` tests an unreachable API.
    :param token: the ``github-token`` input (the workflow passes ``GITHUB_TOKEN``); ``inputs`` may override it.
    """
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": event,
        "GITHUB_EVENT_PATH": str(files.event),
        "GITHUB_REPOSITORY": repository,
        "GITHUB_SHA": sha,
        "GITHUB_API_URL": api_url,
        "GITHUB_SERVER_URL": server_url,
        "GITHUB_RUN_ID": str(run_id),
        "GITHUB_RUN_ATTEMPT": str(attempt),
        "GITHUB_WORKFLOW": workflow,
        "GITHUB_JOB": job,
        "GITHUB_WORKSPACE": str(files.workspace),
        "GITHUB_OUTPUT": str(files.output),
        "GITHUB_STEP_SUMMARY": str(files.summary),
        "INPUT_GITHUB_TOKEN": token,
    }
    return env | {f"INPUT_{name.upper()}": value for name, value in inputs.items()}


def parse_outputs(text: str) -> dict[str, str]:
    """``$GITHUB_OUTPUT`` as the runner reads it: ``name=value`` lines and ``name<<DELIMITER`` heredocs.

    Lines split on ``\\n`` only: a value may hold any other line-breaking character (``\\v``, ``\\u2028``),
    and :func:`str.splitlines` would cut it there.
    """
    values: dict[str, str] = {}
    lines = iter(text.split("\n"))
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body = []
            for inner in lines:
                if inner == delimiter:
                    break
                body.append(inner)
            values[name] = "\n".join(body)
        elif "=" in line:
            name, value = line.split("=", 1)
            values[name] = value
    return values
