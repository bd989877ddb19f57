"""State on the orphan branch ``gauntlet-state`` through the Git Data API (DESIGN §2, §4).

Theory of operation:

- **Load** reads the branch head (one call: commit SHA, tree SHA and message),
  then each file the run needs through the contents API pinned to that commit
  (one call per file), so the snapshot is consistent and its cost does not depend
  on how many PRs the branch holds.
- **Save** writes the changed files inline in one ``POST git/trees`` on top of the
  head's tree, one ``POST git/commits`` with the head as parent and one
  ``PATCH git/refs`` without ``force``. GitHub answers 422 when the ref moved:
  that is :class:`~gauntlet.errors.StateConflict`, and the pipeline re-reads,
  re-decides and retries. Nothing is ever force-pushed.
- **Trailers.** Every commit Gauntlet writes ends with two lines that spare the
  next run calls: ``Gauntlet-Events:`` names the newest audit-log part and its
  size (appending reads only that part, never a listing), and ``Gauntlet-Shared:``
  lists which repository-wide files exist (an absent file is its default, so
  it is not fetched). A commit without trailers (written by hand) makes the next
  run fall back to listing and reading everything it needs.
- A repository-wide file that still holds its default is not written: absent
  means default, which keeps the first runs cheap.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from typing import Any

from gauntlet.engine.results import known_numbers
from gauntlet.errors import StateConflict
from gauntlet.github.client import GitHubClient, NotFound, Rejected
from gauntlet.state.codec import README, decode_state, encode_file, needed_paths
from gauntlet.state.models import Scope, State
from gauntlet.state.store import Snapshot, changed_files, event_part_name, events_by_month
from gauntlet.vocabulary import SHARED_FILES, event_part_path

__all__ = ["DEFAULT_STATE_BRANCH", "BranchStore", "Head"]

DEFAULT_STATE_BRANCH = "gauntlet-state"

_EVENTS_TRAILER = re.compile(r"^Gauntlet-Events: (v1/events/(\d{4}-\d{2})\.(\d+)\.jsonl) (\d+)$", re.MULTILINE)
_SHARED_TRAILER = re.compile(r"^Gauntlet-Shared:(.*)$", re.MULTILINE)
_PART = re.compile(r"^(\d{4}-\d{2})\.(\d+)\.jsonl$")


@dataclass(frozen=True)
class Head:
    """The state branch's head commit as one run saw it."""

    commit: str
    tree: str
    #: The newest audit-log part: ``(month, number, size)``, when the head's trailer names it.
    events: tuple[str, int, int] | None
    #: The repository-wide files that exist, when the head's trailer lists them.
    shared: frozenset[str] | None


def _parse_head(branch: dict[str, Any]) -> Head:
    commit = branch["commit"]
    message = str(commit["commit"].get("message") or "")
    events = _EVENTS_TRAILER.search(message)
    shared = _SHARED_TRAILER.search(message)
    return Head(
        commit=str(commit["sha"]),
        tree=str(commit["commit"]["tree"]["sha"]),
        events=(events.group(2), int(events.group(3)), int(events.group(4))) if events else None,
        shared=frozenset(shared.group(1).split()) if shared else None,
    )


class BranchStore:
    """A :class:`~gauntlet.state.store.StateStore` on a branch of the repository.

    :param client: the GitHub client.
    :param repository: ``owner/name``.
    :param branch: the state branch (``state_branch`` input).
    """

    def __init__(self, client: GitHubClient, repository: str, branch: str = DEFAULT_STATE_BRANCH) -> None:
        self.client = client
        self.api = f"/repos/{repository}"
        self.branch = branch
        self._heads: dict[str, Head] = {}
        self._index: dict[str, int] = {}

    # reading ------------------------------------------------------------------------------------------------

    def head(self) -> Head | None:
        """The branch head, or ``None`` when the branch does not exist yet (one call)."""
        try:
            branch = self.client.request("GET", f"{self.api}/branches/{self.branch}")
        except NotFound:
            return None
        return _parse_head(branch)

    def read(self, path: str, commit: str) -> bytes | None:
        """One file at ``commit`` (``None`` when absent): the contents API, or the blob for files over 1 MB."""
        try:
            found = self.client.request("GET", f"{self.api}/contents/{path}", params={"ref": commit})
        except NotFound:
            return None
        if not isinstance(found, dict) or found.get("type") != "file":
            return None
        if found.get("encoding") == "base64" and (found.get("content") or not found.get("size")):
            return base64.b64decode(found.get("content") or "")
        blob = self.client.request("GET", f"{self.api}/git/blobs/{found['sha']}")
        return base64.b64decode(blob.get("content") or "")

    def load(self, scope: Scope) -> Snapshot:
        """Read the files ``scope`` needs at the branch head (absent files are their defaults)."""
        head = self.head()
        stored: dict[str, bytes | None] = {}
        for path in needed_paths(scope):
            skip = head is None or (head.shared is not None and path in _SHARED and path not in head.shared)
            stored[path] = None if skip or head is None else self.read(path, head.commit)
        state = decode_state(scope, stored)
        self._index = known_numbers(state)
        if state.pr is not None and state.pr.comment_id is not None:  # records written before PR-scoped keys
            self._index.setdefault(f"pr-comment:{state.pr.number}", state.pr.comment_id)
        if head is not None:
            self._heads[head.commit] = head
        return Snapshot(scope=scope, state=state, stored=stored, version=head.commit if head else None)

    def known(self, key: str) -> int | None:
        """The number the last loaded index holds for an effect key (for :class:`~gauntlet.github.backend.Hub`)."""
        return self._index.get(key)

    # writing ------------------------------------------------------------------------------------------------

    def save(self, snapshot: Snapshot, new: State, message: str) -> None:
        """Commit what changed since ``snapshot`` as one fast-forward commit.

        :raises StateConflict: the branch moved (or appeared) since ``snapshot`` was loaded.
        """
        changes = {p: d for p, d in changed_files(snapshot, new).items() if not _absent_default(snapshot, p, d)}
        events = events_by_month(new.events)
        if not changes and not events:
            return
        head = self._heads.get(snapshot.version) if snapshot.version else None
        files = dict(changes)
        newest = self._newest(head, next(iter(events), None))
        for month, lines in events.items():
            number, size = (newest[1], newest[2]) if newest and newest[0] == month else (0, 0)
            path = event_part_name(month, number, size, len(lines))
            content = lines
            if number and path == event_part_path(month, number) and head is not None:
                content = (self.read(path, head.commit) or b"") + lines
            files[path] = content
            newest = (month, int(path.rsplit(".", 2)[1]), len(content))
        if head is None:
            files["README.md"] = README.encode()
        shared = set(head.shared) if head and head.shared is not None else self._shared_at(snapshot)
        shared |= {p for p in files if p in _SHARED}
        self._commit(head, files, _message(message, newest, shared))

    def _newest(self, head: Head | None, month: str | None) -> tuple[str, int, int] | None:
        """The newest audit-log part at ``head``: from its trailer, else by listing the events folder."""
        if head is None:
            return None
        if head.shared is not None or month is None:  # a commit Gauntlet wrote: its trailer is authoritative
            return head.events
        try:
            listing = self.client.request("GET", f"{self.api}/contents/v1/events", params={"ref": head.commit})
        except NotFound:
            return None
        parts = [
            (int(found.group(2)), int(item.get("size") or 0))
            for item in listing
            if (found := _PART.match(str(item.get("name", "")))) and found.group(1) == month
        ]
        if not parts:
            return None
        number, size = max(parts)
        return month, number, size

    def _shared_at(self, snapshot: Snapshot) -> set[str]:
        return {p for p, data in snapshot.stored.items() if p in _SHARED and data is not None}

    def _commit(self, head: Head | None, files: dict[str, bytes], message: str) -> None:
        entries = [
            {"path": path, "mode": "100644", "type": "blob", "content": data.decode("utf-8")}
            for path, data in sorted(files.items())
        ]
        tree_body: dict[str, Any] = {"tree": entries}
        if head is not None:
            tree_body["base_tree"] = head.tree
        tree = self.client.request("POST", f"{self.api}/git/trees", body=tree_body)
        parents = [head.commit] if head else []
        commit = self.client.request(
            "POST", f"{self.api}/git/commits", body={"message": message, "tree": tree["sha"], "parents": parents}
        )
        try:
            if head is None:
                self.client.request(
                    "POST", f"{self.api}/git/refs", body={"ref": f"refs/heads/{self.branch}", "sha": commit["sha"]}
                )
            else:
                self.client.request(
                    "PATCH", f"{self.api}/git/refs/heads/{self.branch}", body={"sha": commit["sha"], "force": False}
                )
        except Rejected as exc:
            raise StateConflict(f"{self.branch} moved since it was read: {exc}") from exc


_SHARED = frozenset(SHARED_FILES.values())


def _absent_default(snapshot: Snapshot, path: str, data: bytes) -> bool:
    """True for a repository-wide file that is absent and would be written with its default content."""
    if path not in _SHARED or snapshot.stored.get(path) is not None:
        return False
    default = State().files()[path]
    return data == encode_file(type(default)())


def _message(subject: str, events: tuple[str, int, int] | None, shared: set[str]) -> str:
    lines = [subject, ""]
    if events is not None:
        month, number, size = events
        lines.append(f"Gauntlet-Events: v1/events/{month}.{number}.jsonl {size}")
    lines.append("Gauntlet-Shared: " + " ".join(sorted(shared)))
    return "\n".join(lines) + "\n"
