"""The action end to end on the sandbox: a repository with pull requests, and ``run_action`` as the runner calls it.

``ActionWorld.run`` builds the environment GitHub Actions would give the Docker
action (``INPUT_*``, ``GITHUB_*``, an event payload file, a workspace with the
CI's log and findings files), calls :func:`gauntlet.action.entry.run_action`
in-process with real PyGithub over HTTP, and maps errors to exit codes as
``gauntlet.cli.main`` does. Each run has its own environment, so runs can go in
threads at once. (A plain module: the test folders are not packages.)
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import github
import pytest

from gauntlet.action.entry import run_action
from gauntlet.demo.runner import StepFiles, step_env
from gauntlet.errors import GauntletError
from gauntlet.pipeline import Clock
from gauntlet.sandbox import Sandbox
from gauntlet.state.pr import PRRecord

OWNER = "octo"
REPO = "octo/app"
BOT = "github-actions[bot]"
DEMO = Path(__file__).resolve().parents[2] / "src" / "gauntlet" / "demo" / "data"
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


@dataclass
class Outcome:
    """What one run left: exit code, outputs, job summary and stdout (workflow commands)."""

    code: int
    outputs: dict[str, str]
    summary: str
    stdout: str
    error: str = ""

    @property
    def report(self) -> dict[str, Any]:
        """The ``report`` output, decoded."""
        return dict(json.loads(self.outputs["report"]))


@dataclass
class ActionWorld:
    """The sandbox, the repository as its owner sees it, and a folder for the runs' workspaces."""

    sandbox: Sandbox
    root: Path
    runs: int = 0
    prs: dict[int, str] = field(default_factory=dict)

    @property
    def owner(self) -> github.Github:
        """PyGithub as the repository owner (to look and to act as a person), without retries."""
        return self.sandbox.pygithub(OWNER, per_page=github.Consts.DEFAULT_PER_PAGE)

    def open_pr(self, branch: str, files: Mapping[str, str]) -> tuple[int, str]:
        """Open a PR from ``branch`` with one commit of ``files``; return its number and head SHA."""
        main = self.sandbox.head(REPO)
        repo = self.owner.get_repo(REPO)
        repo.create_git_ref(f"refs/heads/{branch}", main)
        sha = self.sandbox.commit(REPO, dict(files), f"Work on {branch}", branch=branch)
        pull = repo.create_pull(title=f"Change {branch}", body="", head=branch, base="main")
        self.prs[pull.number] = branch
        return pull.number, sha

    def push(self, number: int, files: Mapping[str, str]) -> str:
        """A new commit on the PR's branch; returns its SHA."""
        return self.sandbox.commit(REPO, dict(files), "More work", branch=self.prs[number])

    def pull_request_event(self, number: int, sha: str, action: str = "synchronize") -> dict[str, Any]:
        """A ``pull_request`` payload as GitHub sends it (the fields Gauntlet reads)."""
        return {
            "action": action,
            "number": number,
            "pull_request": {
                "number": number,
                "user": {"login": "alice"},
                "head": {"sha": sha, "ref": self.prs[number]},
                "base": {"sha": self.sandbox.head(REPO), "ref": "main"},
            },
            "repository": {"full_name": REPO, "default_branch": "main"},
        }

    def run(
        self,
        event: str,
        payload: Mapping[str, Any],
        *,
        files: Mapping[str, str] | None = None,
        inputs: Mapping[str, str] | None = None,
        run_id: int = 100,
        attempt: int = 1,
        token: str = BOT,
        api_url: str | None = None,
    ) -> Outcome:
        """One action run: ``files`` go into the workspace, ``inputs`` become ``INPUT_*``."""
        self.runs += 1
        step = StepFiles.create(self.root / f"run-{self.runs}-{time.monotonic_ns()}", payload)
        for name, text in (files or {}).items():
            (step.workspace / name).parent.mkdir(parents=True, exist_ok=True)
            (step.workspace / name).write_text(text, encoding="utf-8")
        env = step_env(
            step,
            event=event,
            repository=REPO,
            sha=self.sandbox.head(REPO) or "",
            api_url=api_url or self.sandbox.url,
            server_url=self.sandbox.url,
            run_id=run_id,
            attempt=attempt,
            job="gauntlet",
            token=token,
            inputs={"logs": "*.log", "findings": "review.json", **(inputs or {})},
        )
        stdout = io.StringIO()
        clock = Clock(now=NOW, sleep=time.sleep, monotonic=time.monotonic, throttle=False)
        try:
            code, error = run_action(env, clock, stdout), ""
        except GauntletError as exc:  # what gauntlet.cli.main does
            code, error = exc.exit_code, str(exc)
        return Outcome(
            code=code,
            outputs=step.outputs(),
            summary=step.summary.read_text(encoding="utf-8"),
            stdout=stdout.getvalue(),
            error=error,
        )

    # looking -----------------------------------------------------------------------------------------------

    def comments(self, number: int) -> list[Any]:
        """The PR's conversation comments."""
        return list(self.owner.get_repo(REPO).get_issue(number).get_comments())

    def check_runs(self, sha: str) -> list[Any]:
        """Every check run on ``sha`` (``filter=all``: the default shows only the latest per name)."""
        return list(self.owner.get_repo(REPO).get_commit(sha).get_check_runs(filter="all"))

    def state_file(self, path: str) -> bytes | None:
        """A file on the state branch, or ``None``."""
        repo = self.owner.get_repo(REPO)
        try:
            return bytes(repo.get_contents(path, ref="gauntlet-state").decoded_content)
        except github.GithubException as exc:
            if exc.status != 404:
                raise
            return None

    def pr_record(self, number: int) -> PRRecord | None:
        """The PR's record on the state branch."""
        data = self.state_file(f"v1/prs/{number}.json")
        return None if data is None else PRRecord.model_validate_json(data)

    def state_commits(self) -> list[Any]:
        """The state branch's commits, newest first."""
        return list(self.owner.get_repo(REPO).get_commits(sha="gauntlet-state"))

    def events(self) -> list[dict[str, Any]]:
        """Every audit-log line on the state branch."""
        repo = self.owner.get_repo(REPO)
        lines: list[dict[str, Any]] = []
        for item in repo.get_contents("v1/events", ref="gauntlet-state"):  # type: ignore[union-attr]
            text = repo.get_contents(item.path, ref="gauntlet-state").decoded_content  # type: ignore[union-attr]
            lines += [json.loads(line) for line in text.splitlines() if line.strip()]
        return lines


def failing_ci(iteration: int) -> dict[str, str]:
    """The demo project's pytest log and review findings for an iteration (1: three failures, 2: one)."""
    return {
        "pytest.log": (DEMO / f"pytest-iteration-{iteration}.log").read_text(encoding="utf-8"),
        "review.json": (DEMO / f"review-iteration-{iteration}.json").read_text(encoding="utf-8"),
    }


@pytest.fixture(name="world")
def world_fixture(tmp_path: Path) -> Iterator[ActionWorld]:
    """A sandbox with ``octo/app``, which ``github-actions[bot]`` may write to; the sandbox must not crash."""
    with Sandbox.start() as sandbox:
        sandbox.create_repo(REPO, {"README.md": "# app\n", "calc.py": "def add(a, b):\n    return a - b\n"})
        sandbox.set_permission(REPO, BOT, "write")
        yield ActionWorld(sandbox=sandbox, root=tmp_path)
        assert not sandbox.app.crashes, "sandbox handler crashed:\n" + "\n".join(sandbox.app.crashes)
