"""Pull requests from Gauntlet's fixed branches: found again, pushed, opened once (DESIGN §5).

Every PR Gauntlet opens comes from a branch whose name is fixed by its key (``gauntlet/revert-<sha>``,
``gauntlet/proposal-<id>``), so it is found again by the state index first, then by listing the repository's PRs
with ``head=<owner>:<branch>`` in every state, open, closed and merged. Only PRs Gauntlet's own identity opened
count, and only from the repository itself (a fork's branch of the same name is someone else's).

A PR the index does not name is looked for only when its branch turns out to exist (:func:`claim_branch`): the
branch is created before the PR, so a run that died after opening the PR left the branch behind, and a key
with no branch has no PR. (GitHub deletes a head branch by itself only after a merge, and a merged revert or
proposal shows on the base branch: the revert finds nothing left to revert, the proposal its rules already
there, and both then look the PR up.) That spares a new revert or proposal its listing call.
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
    "claim_branch",
    "find_pull",
    "is_pull_ours",
    "known_pull",
    "open_pull",
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


def known_pull(hub: Hub, key: str, branch: str) -> FoundPull | None:
    """The PR the state index names for ``key`` (one call), or ``None`` when it names none that is Gauntlet's.

    The rest of :func:`find_pull` (the listing) is left to :func:`claim_branch`, which needs it only when the
    branch already exists.
    """
    number = hub.known(key)
    if number is None:
        return None
    return find_pull(hub, key, branch)


def claim_branch(hub: Hub, key: str, branch: str, sha: str) -> FoundPull | None:
    """Create Gauntlet's ``branch`` at ``sha`` for a new PR; return the PR an earlier run opened from it, if any.

    The branch is Gauntlet's own by name. When it exists already, a run that died after making it left it: the
    PR it may have opened is looked up (and returned: the caller reuses it and writes nothing); without one,
    the branch is moved to ``sha`` (forced: no PR uses it).
    """
    refs = f"/repos/{hub.repo.full_name}/git/refs"
    try:
        hub.client.request("POST", refs, body={"ref": f"refs/heads/{branch}", "sha": sha})
    except Rejected:
        found = find_pull(hub, key, branch)
        if found is not None:
            return found
        hub.client.request("PATCH", f"{refs}/heads/{quote(branch, safe='/')}", body={"sha": sha, "force": True})
    return None


def open_pull(hub: Hub, key: str, branch: str, base: str, title: str, body: str) -> FoundPull:
    """Open the PR from ``branch`` into ``base`` once: after an ambiguous failure, look before trying again.

    :raises Rejected: GitHub refused it (for example, someone else already opened a PR from the branch).
    """
    payload = {"title": bounded_title(title), "body": body, "head": branch, "base": base}

    def create() -> FoundPull:
        return _found(hub.client.request("POST", f"/repos/{hub.repo.full_name}/pulls", body=payload))

    return hub.client.create_once(f"open PR from {branch}", create, lambda: find_pull(hub, key, branch))
