"""Pull requests from Gauntlet's fixed branches: found again, pushed, opened once (DESIGN §5).

Every PR Gauntlet opens comes from a branch whose name is fixed by its key (``gauntlet/revert-<sha>``,
``gauntlet/proposal-<id>``), so it is found again by the state index first, then by listing the repository's PRs
with ``head=<owner>:<branch>`` in every state, open, closed and merged. Only PRs Gauntlet's own identity opened
count, and only from the repository itself (a fork's branch of the same name is someone else's).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from gauntlet.effects.base import Existing
from gauntlet.github.client import Rejected
from gauntlet.github.hub import find_earlier, is_ours

if TYPE_CHECKING:
    from gauntlet.github.hub import Hub

__all__ = [
    "MAX_PR_TITLE_CHARS",
    "FoundPull",
    "bounded_title",
    "find_pull",
    "is_pull_ours",
    "open_pull",
    "push_branch",
]

#: GitHub refuses longer pull request titles.
MAX_PR_TITLE_CHARS = 256


class FoundPull(Existing):
    """A PR Gauntlet opened earlier: whether it is still open, and whether it was merged."""

    title: str = ""
    state: str = "open"
    merged: bool = False
    merged_at: datetime | None = None
    merge_commit_sha: str | None = None
    head_ref: str = ""


def bounded_title(title: str) -> str:
    """One line, at most :data:`MAX_PR_TITLE_CHARS` characters."""
    line = " ".join(title.split())
    if len(line) > MAX_PR_TITLE_CHARS:
        line = line[: MAX_PR_TITLE_CHARS - 1].rstrip() + "…"
    return line


def _owner(hub: Hub) -> str:
    return hub.repo.full_name.split("/", 1)[0]


def is_pull_ours(hub: Hub, pull: dict[str, Any], branch: str) -> bool:
    """True when ``pull`` was opened by Gauntlet's identity from ``branch`` of the repository itself."""
    head = pull.get("head") or {}
    head_repo = (head.get("repo") or {}).get("full_name")
    login = (pull.get("user") or {}).get("login")
    return (
        head.get("ref") == branch
        and str(head_repo or "").lower() == hub.repo.full_name.lower()
        and is_ours(login, hub.bot_login)
    )


def _found(pull: dict[str, Any]) -> FoundPull:
    return FoundPull(
        number=int(pull["number"]),
        url=pull.get("html_url"),
        body=pull.get("body"),
        title=str(pull.get("title", "")),
        state=str(pull.get("state", "open")),
        merged=bool(pull.get("merged_at")),
        merged_at=pull.get("merged_at") or None,
        merge_commit_sha=pull.get("merge_commit_sha"),
        head_ref=str((pull.get("head") or {}).get("ref", "")),
    )


def find_pull(hub: Hub, key: str, branch: str) -> FoundPull | None:
    """The PR Gauntlet opened from ``branch`` for ``key``, in any state, or ``None``.

    :param key: the effect key, looked up in the state index first.
    :param branch: the fixed branch the PR's head must be.
    """
    prefix = f"/repos/{hub.repo.full_name}/pulls"
    number = hub.known(key)
    found = find_earlier(
        hub,
        None if number is None else f"{prefix}/{number}",
        (prefix, {"state": "all", "head": f"{_owner(hub)}:{branch}"}),
        lambda pull: is_pull_ours(hub, pull, branch),
    )
    return None if found is None else _found(found[0])


def push_branch(hub: Hub, branch: str, sha: str) -> None:
    """Point Gauntlet's ``branch`` at ``sha``: create it, or move it when a run that died left it behind.

    Moving is forced: the branch is Gauntlet's own by name, and no PR uses it (the caller looked first).
    """
    refs = f"/repos/{hub.repo.full_name}/git/refs"
    try:
        hub.client.request("POST", refs, body={"ref": f"refs/heads/{branch}", "sha": sha})
    except Rejected:
        hub.client.request("PATCH", f"{refs}/heads/{quote(branch, safe='/')}", body={"sha": sha, "force": True})


def open_pull(hub: Hub, key: str, branch: str, base: str, title: str, body: str) -> FoundPull:
    """Open the PR from ``branch`` into ``base`` once: after an ambiguous failure, look before trying again.

    :raises Rejected: GitHub refused it (for example, someone else already opened a PR from the branch).
    """
    payload = {"title": bounded_title(title), "body": body, "head": branch, "base": base}

    def create() -> FoundPull:
        return _found(hub.client.request("POST", f"/repos/{hub.repo.full_name}/pulls", body=payload))

    return hub.client.create_once(f"open PR from {branch}", create, lambda: find_pull(hub, key, branch))
