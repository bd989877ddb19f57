"""The demo's world: a sandbox, people acting on it, real ``git``, and Gauntlet run the way GitHub Actions runs it.

People (the maintainer, a developer) act through PyGithub with their own tokens
(on the sandbox the token's text is the login) and push with ``git`` over HTTP.
Gauntlet runs through :func:`gauntlet.action.entry.run_action`, the action's own
entry, with an environment of ``INPUT_*`` and ``GITHUB_*`` variables pointing
``GITHUB_API_URL`` at the sandbox, so every step takes the production code path.
Each action run gets a token of its own for the bot, as each job gets a new
``GITHUB_TOKEN``: an ``ETag`` one run remembered is no 304 for the next.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import github
from github.Repository import Repository

from gauntlet.action.entry import run_action
from gauntlet.demo.runner import StepFiles, step_env
from gauntlet.errors import InputError
from gauntlet.pipeline import Clock
from gauntlet.sandbox import JobSeed, Sandbox

__all__ = ["BOT", "DATA", "DEVELOPER", "MAINTAINER", "REPOSITORY", "ActionRun", "Conclusion", "World"]

DATA = Path(__file__).parent / "data"
MAINTAINER = "maya"
DEVELOPER = "dana"
BOT = "github-actions[bot]"
REPOSITORY = f"{MAINTAINER}/calculator"
#: The CI workflow's name; Gauntlet's own workflow and job, where it runs on its own (``workflow_run``,
#: commands, the scan): names that must never show up in what Gauntlet records or writes.
WORKFLOW = "CI"
OWN_WORKFLOW, OWN_JOB = "Gauntlet", "gauntlet"
Conclusion = Literal["success", "failure"]


@dataclass(frozen=True)
class ActionRun:
    """One run of the action: the event it served, its exit code, outputs and stdout (workflow commands)."""

    event: str
    code: int
    outputs: dict[str, str]
    stdout: str

    @property
    def report(self) -> dict[str, Any]:
        """The ``report`` output (``gauntlet run --json``), decoded."""
        text = self.outputs.get("report")
        return dict(json.loads(text)) if text else {}

    @property
    def effects(self) -> list[dict[str, Any]]:
        """The effects the run planned, each with ``type``, ``key`` and ``status``."""
        return list(self.report.get("effects", []))


@dataclass
class World:
    """A running sandbox with the demo repository's people, a scratch folder and every action run so far."""

    sandbox: Sandbox
    folder: Path
    runs: list[ActionRun] = field(default_factory=list)
    _clients: dict[str, github.Github] = field(default_factory=dict)
    _jobs: int = 0  # action runs started: each one's token is the bot's job token number _jobs

    # people ------------------------------------------------------------------------------------------------

    def client(self, login: str) -> github.Github:
        """PyGithub as ``login``, without retries or write spacing (the sandbox is local)."""
        if login not in self._clients:
            self._clients[login] = self.sandbox.pygithub(login)
        return self._clients[login]

    def repo(self, login: str = MAINTAINER) -> Repository:
        """The demo repository as ``login`` sees it."""
        return self.client(login).get_repo(REPOSITORY)

    def close(self) -> None:
        """Close the people's HTTP sessions."""
        for client in self._clients.values():
            client.close()

    # git -----------------------------------------------------------------------------------------------------

    def git(self, cwd: Path, *args: str) -> str:
        """Run ``git`` without the user's configuration or prompts; return its stdout."""
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.folder),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_TERMINAL_PROMPT": "0",
        }
        try:
            done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)
        except FileNotFoundError as exc:
            raise InputError("gauntlet demo pushes with git: install git and put it on PATH") from exc
        if done.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)} failed: {done.stderr.strip()}")
        return done.stdout.strip()

    def clone(self, login: str) -> Path:
        """A working copy of the repository for ``login``, who commits under their own name."""
        work = self.folder / f"clone-{login}"
        if not work.exists():
            self.git(self.folder, "clone", "--quiet", self.sandbox.git_url(REPOSITORY, token=login), str(work))
            self.git(work, "config", "user.name", login)
            self.git(work, "config", "user.email", f"{login}@example.com")
        return work

    def push(self, login: str, branch: str, files: Mapping[str, Path], message: str) -> str:
        """``login`` writes ``files`` (repository path -> data file) on ``branch`` (a new one starts at main),
        commits and pushes with ``git``.

        :returns: the new commit's SHA.
        """
        work = self.clone(login)
        self.git(work, "fetch", "--quiet", "origin")
        remote = set(self.git(work, "branch", "--remotes", "--format=%(refname:short)").split())
        start = next((f"origin/{name}" for name in (branch, "main") if f"origin/{name}" in remote), None)
        self.git(work, "checkout", "--quiet", "-B", branch, *([start] if start else []))
        for path, source in files.items():
            target = work / path
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
        self.git(work, "add", "--all")
        self.git(work, "commit", "--quiet", "-m", message)
        self.git(work, "push", "--quiet", "origin", f"HEAD:refs/heads/{branch}")
        return self.git(work, "rev-parse", "HEAD")

    def export_branch(self, branch: str, target: Path) -> None:
        """Check ``branch`` (the state branch) out into ``target``, without git's own files, to read at leisure.

        ``target`` is the demo's own folder: what an earlier demo left there is replaced.
        """
        work = self.clone(MAINTAINER)
        self.git(work, "fetch", "--quiet", "origin", branch)
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        self.git(work, f"--work-tree={target}", "checkout", "FETCH_HEAD", "--", ".")

    # CI ------------------------------------------------------------------------------------------------------

    def ci_run(
        self,
        sha: str,
        branch: str,
        jobs: Mapping[str, tuple[str, Conclusion]],
        *,
        event: str,
        pulls: Sequence[int] = (),
    ) -> int:
        """Record the CI workflow run GitHub would have run on ``sha``: ``jobs`` maps each job to its log (real
        tools' output) and conclusion. Returns the run's id."""
        run = self.sandbox.seed_run(
            REPOSITORY,
            name=WORKFLOW,
            head_branch=branch,
            head_sha=sha,
            event=event,
            pull_numbers=pulls,
            jobs=[JobSeed(name=job, conclusion=conclusion, log=log) for job, (log, conclusion) in jobs.items()],
        )
        return run.id

    # Gauntlet ----------------------------------------------------------------------------------------------

    def act(
        self,
        event: str,
        payload: Mapping[str, Any],
        *,
        files: Mapping[str, Path] | None = None,
        inputs: Mapping[str, str] | None = None,
        run_id: int = 1,
        job: str | None = None,
    ) -> ActionRun:
        """Run Gauntlet for one event, as the runner starts the action: ``files`` are copied into the workspace
        (the CI's log and findings), ``inputs`` become ``INPUT_*``. With ``job``, Gauntlet is a step of that CI
        job; without, it runs in a workflow of its own.

        The token is the bot's, but new for each run (``github-actions[bot]:job-N``: the sandbox's
        ``login:session`` tokens), as each job gets a new ``GITHUB_TOKEN`` and GitHub binds an ``ETag`` to the
        token that read it. Gauntlet does not recognise it as an installation token (no ``ghs_`` prefix) and keeps
        its default ``bot_login``, which is this bot.
        """
        self._jobs += 1
        step = StepFiles.create(self.folder / f"action-{len(self.runs) + 1}", payload)
        for name, source in (files or {}).items():
            shutil.copyfile(source, step.workspace / name)
        env = step_env(
            step,
            event=event,
            repository=REPOSITORY,
            sha=self.sandbox.head(REPOSITORY) or "",
            api_url=self.sandbox.url,
            server_url=self.sandbox.url,
            run_id=run_id,
            attempt=1,
            workflow=WORKFLOW if job else OWN_WORKFLOW,
            job=job or OWN_JOB,
            token=f"{BOT}:job-{self._jobs}",
            inputs=inputs or {},
        )
        stdout = io.StringIO()
        clock = Clock(now=datetime.now(UTC), sleep=time.sleep, monotonic=time.monotonic, throttle=False)
        code = run_action(env, clock, stdout)
        run = ActionRun(event=event, code=code, outputs=step.outputs(), stdout=stdout.getvalue())
        self.runs.append(run)
        return run
