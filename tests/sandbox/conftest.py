"""Fixtures for the sandbox tests: a running sandbox whose every JSON response is checked against GitHub's
OpenAPI description, and PyGithub / githubkit clients pointed at it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import github
import pytest
from githubkit import GitHub

from gauntlet.sandbox import Sandbox
from gauntlet.sandbox.contract import ContractRecorder

OWNER = "octo"
REPO = "octo/app"
BOT = "github-actions[bot]"

# Every (method, template, status) validated during the session, for the coverage check.
SEEN: set[tuple[str, str, int]] = set()


@pytest.fixture(scope="session")
def contract_seen() -> set[tuple[str, str, int]]:
    """Every ``(method, template, status)`` validated so far in this session."""
    return SEEN


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    """A sandbox on a free port; the test fails if any response broke the contract."""
    recorder = ContractRecorder()
    with Sandbox.start() as running:
        running.observe(recorder)
        yield running
    SEEN.update(recorder.seen)
    assert not running.app.crashes, "sandbox handler crashed:\n" + "\n".join(running.app.crashes)
    problems = [f"{m.method} {m.template} -> {m.status}: {'; '.join(m.errors[:5])}" for m in recorder.mismatches]
    assert not problems, "responses that break GitHub's OpenAPI description:\n" + "\n".join(problems)


@pytest.fixture
def repo_name(sandbox: Sandbox) -> str:
    """``octo/app`` with a few files; ``github-actions[bot]`` may write to it."""
    sandbox.create_repo(
        REPO,
        {"README.md": "# app\n", "src/app.py": "def main():\n    return 1\n", "src/util.py": "X = 1\n"},
    )
    sandbox.set_permission(REPO, BOT, "write")
    return REPO


@pytest.fixture
def client(sandbox: Sandbox) -> Callable[..., github.Github]:
    """``client(token="octo")``: a PyGithub client for that login."""

    def make(token: str = OWNER) -> github.Github:
        return sandbox.pygithub(token)

    return make


@pytest.fixture
def gh(sandbox: Sandbox) -> Iterator[github.Github]:
    """PyGithub as the repository owner."""
    g = sandbox.pygithub(OWNER)
    yield g
    g.close()


@pytest.fixture
def kit(sandbox: Sandbox) -> Iterator[GitHub[Any]]:
    """githubkit (API version 2022-11-28 models) as the repository owner, on one persistent HTTP client."""
    with GitHub(OWNER, base_url=sandbox.url, http_cache=False, auto_retry=False) as g:
        yield g
