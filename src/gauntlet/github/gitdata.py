"""The calls that write a state commit on GitHub, and the compare that says whether a moved branch matters.

Three ways a commit lands on the state branch (``github/gitstore.py`` decides which, and what goes in it):

- :func:`commit_files`: the Git Data API, for several files at once: one ``POST git/trees`` with the files inline
  on top of the head's tree, one ``POST git/commits`` with the head as parent, and the ref created (the first
  commit of all) or moved with ``PATCH git/refs`` without ``force``. Nothing is ever force-pushed.
- :func:`put_file`: one contents ``PUT`` of one file, carrying the blob sha it was read at; GitHub builds the
  commit on the branch as it is.
- :func:`moved_head`: after a refused ref update, one ``GET compare`` says whether the commits in between touched
  what the run writes whole; when not, the same files are committed again on the new head.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from gauntlet.errors import StateConflict
from gauntlet.github.client import Conflict, GitHubClient, NotFound, Rejected
from gauntlet.github.trailers import Head, folded, parse_head

__all__ = ["REBASES", "commit_files", "moved_head", "put_file"]

#: Rebuilds on a moved head (and contents writes sent again) before the pipeline's slower retry (re-read,
#: re-decide) takes over.
REBASES = 8
#: A compare listing this many files may be cut short: treat it as touching everything.
_COMPARE_FILES_SHOWN = 300


def commit_files(
    client: GitHubClient, api: str, branch: str, head: Head | None, files: dict[str, bytes | None], message: str
) -> None:
    """Commit ``files`` (``None``: delete the path) on ``head`` (``None``: create ``branch``) as one commit.

    :raises StateConflict: the branch moved (or appeared) since ``head`` was read.
    """
    # ``sha: null`` deletes a path (a folded shard); everything else goes inline.
    entries = [
        {"path": path, "mode": "100644", "type": "blob", "content": data.decode("utf-8")}
        if data is not None
        else {"path": path, "mode": "100644", "type": "blob", "sha": None}
        for path, data in sorted(files.items())
    ]
    tree_body: dict[str, Any] = {"tree": entries}
    if head is not None:
        tree_body["base_tree"] = head.tree
    tree = client.request("POST", f"{api}/git/trees", body=tree_body)
    parents = [head.commit] if head else []
    commit = client.request(
        "POST", f"{api}/git/commits", body={"message": message, "tree": tree["sha"], "parents": parents}
    )
    try:
        if head is None:
            client.request("POST", f"{api}/git/refs", body={"ref": f"refs/heads/{branch}", "sha": commit["sha"]})
        else:
            client.request("PATCH", f"{api}/git/refs/heads/{branch}", body={"sha": commit["sha"], "force": False})
    except Rejected as exc:
        raise StateConflict(f"{branch} moved since it was read: {exc}") from exc


def put_file(
    client: GitHubClient,
    api: str,
    path: str,
    body: dict[str, Any],
    *,
    jitter: random.Random,
    sleep: Callable[[float], None],
) -> None:
    """Send one contents ``PUT``; again after a pause when GitHub refused it for a branch that moved under it.

    :param jitter: the pauses' randomness (seeded by the caller, so a run's pauses can be replayed).
    :raises StateConflict: the file was written since it was read (or the branch kept moving).
    """
    attempt = 0
    while True:
        started = time.monotonic()
        try:
            client.request("PUT", f"{api}/contents/{path}", body=body)
            return
        except Rejected as exc:  # 422: created by another run since this one read it absent
            raise StateConflict(f"{path} was written since it was read: {exc}") from exc
        except Conflict as exc:
            if f"{path} does not match" in str(exc) or attempt == REBASES:
                raise StateConflict(f"{path} was written since it was read: {exc}") from exc
        # The branch moved while GitHub built this commit: the same write again. Full jitter, doubling each
        # time and scaled by how long a write takes here, so writes that collided spread out.
        took = time.monotonic() - started
        sleep(jitter.uniform(0.0, max(took, 0.05) * 2 ** (attempt + 2)))
        attempt += 1


def moved_head(client: GitHubClient, api: str, branch: str, head: Head, whole: set[str]) -> Head | None:
    """The new head of ``branch``, when the commits since ``head`` touched none of ``whole`` (one ``GET
    compare``); ``None`` when they did, or when the compare cannot say."""
    try:
        found = client.request("GET", f"{api}/compare/{head.commit}...{branch}")
    except NotFound:
        return None
    commits = found.get("commits") or []
    touched = {str(f.get("filename")) for f in found.get("files") or []}
    if not commits or len(commits) != found.get("total_commits") or len(touched) >= _COMPARE_FILES_SHOWN:
        return None
    if touched & whole or found.get("status") != "ahead":
        return None
    # The trailers at the new head: the newest exact commit's since ``head``, else ``head``'s own, with the
    # records the commits in between left pending.
    return folded([parse_head({"commit": c}) for c in reversed(commits) if isinstance(c, dict)], head)
