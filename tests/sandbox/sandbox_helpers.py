"""Shared names for the sandbox tests (a plain module: the test folders are not packages)."""

from __future__ import annotations

import github

from gauntlet.sandbox import Sandbox

OWNER = "octo"
REPO = "octo/app"
BOT = "github-actions[bot]"


def client(sandbox: Sandbox, token: str = OWNER) -> github.Github:
    """A PyGithub client authenticated as ``token`` (the login), without retries: tests see every answer."""
    return github.Github(
        base_url=sandbox.url,
        auth=github.Auth.Token(token),
        retry=None,
        per_page=100,
        seconds_between_requests=0,
        seconds_between_writes=0,
    )
