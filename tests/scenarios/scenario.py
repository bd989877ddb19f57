"""The sandbox scenarios' one helper (STYLE's ``Scenario``, our ``ConnectionPair``): a repository on the sandbox,
Gauntlet run against it at two levels, and ways to look at what it left.

- ``Scenario.run`` is the Action end to end: the environment GitHub Actions gives the Docker action (``INPUT_*``,
  ``GITHUB_*``, an event payload file, a workspace with the CI's files, built by :mod:`gauntlet.demo.runner` as the
  demo builds it), :func:`gauntlet.action.entry.run_action` in-process with real PyGithub over HTTP, errors mapped
  to exit codes as ``gauntlet.cli.main`` maps them. Each run has its own folder, so runs can go in threads at once.
- ``Scenario.apply`` is the effect backend alone: effects applied as the pipeline applies them (find, then perform)
  through the real handler table, then folded into ``Scenario.state``'s index with the engine's own
  ``record_results``. ``record=False`` is the run that died after acting and before its state commit.

:func:`start` seeds the repository, checks every response against GitHub's OpenAPI description and fails the test
when a sandbox handler crashed. The fixture ``world`` (in this folder's ``conftest.py``) is one started scenario.
(A plain module, not the conftest: the test folders are not packages, so tests import it by name.)
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import github

import gauntlet
from gauntlet.action.branch_reads import known_reverts
from gauntlet.action.entry import run_action
from gauntlet.demo.runner import StepFiles, step_env
from gauntlet.effects.base import EffectResult, apply
from gauntlet.effects.models import Effect
from gauntlet.engine.results import record_results
from gauntlet.errors import GauntletError
from gauntlet.github.backend import GitHubBackend
from gauntlet.github.client import GitHubClient
from gauntlet.github.hub import Hub
from gauntlet.github.reverts import revert_pr_facts
from gauntlet.models import RevertPRFact
from gauntlet.pipeline import Clock
from gauntlet.sandbox import Sandbox
from gauntlet.sandbox.contract import ContractRecorder
from gauntlet.state.branch import BranchRecord
from gauntlet.state.models import State
from gauntlet.state.pr import PRRecord
from gauntlet.state.shards import folded_view

OWNER = "octo"
REPO = "octo/app"
BOT = "github-actions[bot]"
DEMO = Path(__file__).resolve().parents[2] / "src" / "gauntlet" / "demo" / "data"
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
#: The repository every scenario starts from: the demo project's buggy ``calc.py`` for the Action's runs, a small
#: tree with CODEOWNERS for the effects that assign owners.
FILES = {
    "README.md": "# app\n",
    "calc.py": "def add(a, b):\n    return a - b\n",
    "src/app.py": "def main():\n    return 1\n",
    "src/util.py": "X = 1\n",
    "docs/guide.md": "Guide\n",
    ".github/CODEOWNERS": "*  @octo\n/src/ @alice @octo/core\n",
}


@dataclass
class Outcome:
    """What one action run left: exit code, outputs, job summary and stdout (workflow commands)."""

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
class Scenario:
    """The sandbox, the repository's owner (to look and to act as a person), Gauntlet's state for effect runs,
    and a folder for the action runs' workspaces."""

    sandbox: Sandbox
    owner: github.Github
    root: Path
    assign_owners: bool = True
    retries: int = 5
    state: State = field(default_factory=State)
    runs: int = 0
    prs: dict[int, str] = field(default_factory=dict)

    @property
    def repo(self) -> Any:
        """The repository as its owner sees it (PyGithub)."""
        return self.owner.get_repo(REPO)

    # people --------------------------------------------------------------------------------------------------

    def open_pr(self, branch: str, files: Mapping[str, str]) -> tuple[int, str]:
        """Open a PR from ``branch`` with one commit of ``files``; return its number and head SHA."""
        self.repo.create_git_ref(f"refs/heads/{branch}", self.sandbox.head(REPO))
        sha = self.sandbox.commit(REPO, dict(files), f"Work on {branch}", branch=branch)
        pull = self.repo.create_pull(title=f"Change {branch}", body="", head=branch, base="main")
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

    # Gauntlet: the Action end to end --------------------------------------------------------------------------

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
        workflow: str = "CI",
        job: str = "test",
        now: datetime = NOW,
        hash_seed: int | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Outcome:
        """One action run: ``files`` go into the workspace, ``inputs`` become ``INPUT_*``, ``env`` adds to (or
        replaces) the runner's variables (``GITHUB_WORKFLOW_REF``).

        ``workflow`` and ``job`` are the runner's ``GITHUB_WORKFLOW`` and ``GITHUB_JOB``: by default Gauntlet is a
        step of CI's ``test`` job; a run from a workflow of its own names that workflow and job instead. ``now`` is
        the run's clock: the sandbox dates commits and merges by the wall clock, so a story that reads those dates
        (a proposal's watch from its merge) runs at wall-clock times. With ``hash_seed`` the run is a process of
        its own with that ``PYTHONHASHSEED`` (what the seed changes shows only across processes).
        """
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
            workflow=workflow,
            job=job,
            token=token,
            inputs={"logs": "*.log", "findings": "review.json", **(inputs or {})},
        ) | dict(env or {})
        if hash_seed is not None:
            code, printed, error = _in_a_process(env, now, hash_seed)
        else:
            stdout = io.StringIO()
            clock = Clock(now=now, sleep=time.sleep, monotonic=time.monotonic, throttle=False)
            try:
                code, error = run_action(env, clock, stdout), ""
            except GauntletError as exc:  # what gauntlet.cli.main does
                code, error = exc.exit_code, str(exc)
            printed = stdout.getvalue()
        return Outcome(
            code=code,
            outputs=step.outputs(),
            summary=step.summary.read_text(encoding="utf-8"),
            stdout=printed,
            error=error,
        )

    # Gauntlet: the effect backend alone -----------------------------------------------------------------------

    def backend(self) -> GitHubBackend:
        """Gauntlet's backend as a fresh run builds it, reading the state index as it is now."""
        client = GitHubClient(BOT, self.sandbox.url, throttle=False, retries=self.retries)
        hub = Hub(
            client=client,
            repo=client.repo(REPO),
            bot_login=BOT,
            known=self.state.index.entries.get,
            assign_owners=self.assign_owners,
        )
        return GitHubBackend(hub)

    def revert_facts(self) -> tuple[RevertPRFact, ...]:
        """What a default-branch run reads about the revert PRs the state knows (``action/branch_reads.py``)."""
        branch = self.state.branch or BranchRecord(name="main")
        return revert_pr_facts(self.backend().hub, known_reverts(branch, self.state.index.entries))

    def apply(self, *effects: Effect, record: bool = True) -> list[EffectResult]:
        """Apply ``effects`` in one run; ``record=False`` drops the results as a run killed before saving would."""
        results = apply(effects, self.backend())
        if record:
            self.state = record_results(self.state, results)
        return results

    def index(self, key: str) -> int | None:
        """The number the state index of the effect runs holds for ``key``."""
        return self.state.index.entries.get(key)

    # looking -----------------------------------------------------------------------------------------------

    def requests(self, method: str, fragment: str) -> list[dict[str, Any]]:
        """Requests served (``/_sandbox/requests``) with ``method`` whose path contains ``fragment``."""
        return [r for r in self.sandbox.requests() if r["method"] == method and fragment in r["path"]]

    def comments(self, number: int) -> list[Any]:
        """The PR's conversation comments."""
        return list(self.repo.get_issue(number).get_comments())

    def check_runs(self, sha: str) -> list[Any]:
        """Every check run on ``sha`` (``filter=all``: the default shows only the latest per name)."""
        return list(self.repo.get_commit(sha).get_check_runs(filter="all"))

    def file_at(self, path: str, ref: str) -> str | None:
        """A file's text at ``ref`` as the owner reads it, or ``None`` when it does not exist there."""
        try:
            content = self.repo.get_contents(path, ref=ref)
        except github.GithubException as exc:  # a missing ref is a 404 too, but not an UnknownObjectException
            if exc.status != 404:
                raise
            return None
        assert not isinstance(content, list)
        return str(content.decoded_content.decode())

    def state_files(self) -> dict[str, bytes]:
        """The state branch as a reader sees it: every file, with the shards runs left folded in."""
        repo = self.sandbox.store.repo(*REPO.split("/"))
        sha = repo.git.ref("refs/heads/gauntlet-state") if repo is not None else None
        if repo is None or sha is None:
            return {}
        return folded_view({e.path: repo.git.read_blob(e.sha) for e in repo.git.ls_tree(sha, recursive=True)})

    def state_file(self, path: str) -> bytes | None:
        """A file on the state branch (shards folded in), or ``None``."""
        return self.state_files().get(path)

    def pr_record(self, number: int) -> PRRecord | None:
        """The PR's record on the state branch."""
        data = self.state_file(f"v1/prs/{number}.json")
        return None if data is None else PRRecord.model_validate_json(data)

    def state_commits(self) -> list[Any]:
        """The state branch's commits, newest first."""
        return list(self.repo.get_commits(sha="gauntlet-state"))

    def events(self) -> list[dict[str, Any]]:
        """Every audit-log line on the state branch."""
        lines: list[dict[str, Any]] = []
        for path, text in sorted(self.state_files().items()):
            if path.startswith("v1/events/"):
                lines += [json.loads(line) for line in text.splitlines() if line.strip()]
        return lines


#: :func:`Scenario.run`'s in-process call, as a process of its own (the clock fixed, no write spacing).
_RUN_ACTION = """
import os, sys, time
from datetime import datetime
from gauntlet.action.entry import run_action
from gauntlet.errors import GauntletError
from gauntlet.pipeline import Clock
clock = Clock(now=datetime.fromisoformat(sys.argv[1]), sleep=time.sleep, monotonic=time.monotonic, throttle=False)
try:
    sys.exit(run_action(os.environ, clock, sys.stdout))
except GauntletError as exc:
    print(exc, file=sys.stderr)
    sys.exit(exc.exit_code)
"""


def _in_a_process(env: Mapping[str, str], now: datetime, hash_seed: int) -> tuple[int, str, str]:
    """Run the Action on ``env`` in a new Python process with ``PYTHONHASHSEED=hash_seed``, importing the same
    ``gauntlet`` as this one; its exit code, stdout and stderr."""
    source = str(Path(gauntlet.__file__).resolve().parents[1])
    inherited = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    process = {**inherited, **env, "PYTHONHASHSEED": str(hash_seed), "PYTHONPATH": source}
    done = subprocess.run(
        [sys.executable, "-c", _RUN_ACTION, now.isoformat()], env=process, capture_output=True, text=True, check=False
    )
    return done.returncode, done.stdout, done.stderr


@contextmanager
def start(root: Path) -> Iterator[Scenario]:
    """``octo/app`` (:data:`FILES`) on a fresh sandbox, which Gauntlet and ``alice`` may write to; every response is
    checked against the OpenAPI description, and no handler may crash.

    :param root: a folder for the action runs' workspaces.
    """
    recorder = ContractRecorder()
    with Sandbox.start() as sandbox:
        sandbox.observe(recorder)
        sandbox.create_repo(REPO, FILES)
        sandbox.set_permission(REPO, BOT, "write")
        sandbox.set_permission(REPO, "alice", "write")
        owner = sandbox.pygithub(OWNER)
        yield Scenario(sandbox=sandbox, owner=owner, root=root)
        owner.close()
        crashes = list(sandbox.app.crashes)
    assert not crashes, "sandbox handler crashed:\n" + "\n".join(crashes)
    problems = [f"{m.method} {m.template} -> {m.status}: {'; '.join(m.errors[:3])}" for m in recorder.mismatches]
    assert not problems, "responses that break GitHub's OpenAPI description:\n" + "\n".join(problems)


#: Real pytest output (``main_branch/logs``, see its ``generate.sh``).
REAL_LOGS = Path(__file__).resolve().parent / "main_branch" / "logs"
#: The inputs of a step that reads only the logs written into its workspace.
ONLY_LOGS = {"logs": "*.log", "findings": ""}


def log_files(*names: str) -> dict[str, str]:
    """Real logs of ``REAL_LOGS``, as workspace files a step reads (numbered, so one may repeat)."""
    return {f"{n}-{name}": (REAL_LOGS / name).read_text(encoding="utf-8") for n, name in enumerate(names)}


def push_event(sha: str) -> dict[str, Any]:
    """A ``push`` payload to the default branch."""
    return {"ref": "refs/heads/main", "after": sha, "repository": {"full_name": REPO, "default_branch": "main"}}


def main_with_a_flake_and_a_break(world: Scenario) -> None:
    """main fails test_divide for real, and test_lucky fails then passes on a rerun of the same commit."""
    main = world.sandbox.head(REPO) or ""
    first = log_files("pytest-divide-broken.log", "pytest-lucky-flaky.log")
    assert world.run("push", push_event(main), files=first, inputs=ONLY_LOGS, run_id=10).code == 0
    again = log_files("pytest-divide-broken.log")
    assert world.run("push", push_event(main), files=again, inputs=ONLY_LOGS, run_id=10, attempt=2).code == 0


def pr_with_lucky_rerun_by_a_person(world: Scenario, number: int, sha: str, log: str) -> Outcome:
    """Gauntlet, a step of CI's job, sees ``log`` and test_lucky fail; it cannot rerun its own run, so test_lucky
    (flaky on main) counts until a person reruns the failed jobs and it passes. Returns the rerun's outcome."""
    event = world.pull_request_event(number, sha, "opened")
    first = world.run("pull_request", event, files=log_files(log, "pytest-lucky-flaky.log"), inputs=ONLY_LOGS)
    assert first.code == 0, first.error
    assert world.check_runs(sha)[0].conclusion == "failure", "no rerun has told test_lucky's failure a flake yet"
    assert "GitHub reruns only completed runs" in first.summary
    again = world.run("pull_request", event, files=log_files(log), inputs=ONLY_LOGS, attempt=2)
    assert again.code == 0, again.error
    return again


def failing_ci(iteration: int) -> dict[str, str]:
    """The demo project's pytest log and review findings for an iteration (1: three failures, 2: one)."""
    return {
        "pytest.log": (DEMO / f"pytest-iteration-{iteration}.log").read_text(encoding="utf-8"),
        "review.json": (DEMO / f"review-iteration-{iteration}.json").read_text(encoding="utf-8"),
    }


def git(cwd: Path, *args: str) -> str:
    """Run real git; return its stdout."""
    done = subprocess.run(
        ["git", "-c", "user.name=Octo", "-c", "user.email=octo@example.com", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()
