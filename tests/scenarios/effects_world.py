"""A repository on the sandbox and Gauntlet's GitHub backend pointed at it, for the write-effect scenarios.

``World.apply`` runs effects the way the pipeline does (find, then perform) through the real handler table, the
real PyGithub client and HTTP, then folds the results into the state index with the engine's own
``record_results``. ``record=False`` is the run that died after acting and before its state commit.
(A plain module: the test folders are not packages.)
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import github
import pytest

from gauntlet.effects.base import EffectResult, apply
from gauntlet.effects.models import Effect
from gauntlet.engine.results import record_results
from gauntlet.github.backend import GitHubBackend
from gauntlet.github.client import GitHubClient
from gauntlet.github.hub import Hub
from gauntlet.sandbox import Sandbox
from gauntlet.sandbox.contract import ContractRecorder
from gauntlet.state.models import State

OWNER = "octo"
REPO = "octo/app"
BOT = "github-actions[bot]"


@dataclass
class World:
    """The sandbox, the repository's owner (to look and to act as a person), and Gauntlet's state."""

    sandbox: Sandbox
    owner: github.Github
    assign_owners: bool = True
    retries: int = 5
    state: State = field(default_factory=State)

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

    def apply(self, *effects: Effect, record: bool = True) -> list[EffectResult]:
        """Apply ``effects`` in one run; ``record=False`` drops the results as a run killed before saving would."""
        results = apply(effects, self.backend())
        if record:
            self.state = record_results(self.state, results)
        return results

    def index(self, key: str) -> int | None:
        """The number the state index holds for ``key``."""
        return self.state.index.entries.get(key)

    @property
    def repo(self) -> Any:
        """The repository as its owner sees it (PyGithub)."""
        return self.owner.get_repo(REPO)

    def requests(self, method: str, fragment: str) -> list[dict[str, Any]]:
        """Requests served with ``method`` whose path contains ``fragment``."""
        return [r for r in self.sandbox.requests() if r["method"] == method and fragment in r["path"]]


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


def file_at(world: World, path: str, ref: str) -> str | None:
    """A file's text at ``ref`` as the owner reads it, or ``None`` when it does not exist there."""
    try:
        content = world.repo.get_contents(path, ref=ref)
    except github.UnknownObjectException:
        return None
    assert not isinstance(content, list)
    return str(content.decoded_content.decode())


@pytest.fixture(name="world")
def world_fixture() -> Iterator[World]:
    """``octo/app`` on a fresh sandbox; Gauntlet may write; every response is checked against the OpenAPI
    description, and no handler may crash."""
    recorder = ContractRecorder()
    with Sandbox.start() as sandbox:
        sandbox.observe(recorder)
        sandbox.create_repo(
            REPO,
            {
                "README.md": "# app\n",
                "src/app.py": "def main():\n    return 1\n",
                "src/util.py": "X = 1\n",
                "docs/guide.md": "Guide\n",
                ".github/CODEOWNERS": "*  @octo\n/src/ @alice @octo/core\n",
            },
        )
        sandbox.set_permission(REPO, BOT, "write")
        sandbox.set_permission(REPO, "alice", "write")
        owner = sandbox.pygithub(OWNER)
        yield World(sandbox=sandbox, owner=owner)
        owner.close()
        crashes = list(sandbox.app.crashes)
    assert not crashes, "sandbox handler crashed:\n" + "\n".join(crashes)
    problems = [f"{m.method} {m.template} -> {m.status}: {'; '.join(m.errors[:3])}" for m in recorder.mismatches]
    assert not problems, "responses that break GitHub's OpenAPI description:\n" + "\n".join(problems)
