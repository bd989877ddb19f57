"""The trailers that end every state commit Gauntlet writes, and what they say about the branch head.

A commit's trailers spare the next run calls (``github/gitstore.py`` says what each is for)::

    Gauntlet-Base: <sha>          a PR run's commit: the head whose trailers it copied
    Gauntlet-Events: v1/events/<yyyy-mm>.<n>.jsonl <size>   the newest audit-log part
    Gauntlet-Shared: <paths>      the repository-wide files that exist
    Gauntlet-Shards: <n>          shard files waiting for the scan
    Gauntlet-Pending: <paths>     PR and branch records holding pending shards
    Gauntlet-Blobs: <path>=<sha>  the blob of each shared file and branch record known at this commit
    Gauntlet-Wrote: <path>=<sha>  a contents PUT's commit: the branch record it wrote

A PR run's commit is made by GitHub on the branch as it is when the contents ``PUT`` arrives, so its copied
trailers hold only when nothing came in between (its parent is its base): :func:`folded` takes the newest exact
commit's trailers instead, with the pending records and the written blobs of every commit above it.

The blobs are what lets a run skip a read: a file whose blob is the one its record remembers is unchanged, and
costs no request at all. (A conditional request would cost nothing only with the token that read it first:
GitHub binds an ``ETag`` to its token, and each Actions job has a new one.)
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = ["WALK", "Head", "blob_sha", "commit_message", "folded", "parse_head"]

_EVENTS_TRAILER = re.compile(r"^Gauntlet-Events: (v1/events/(\d{4}-\d{2})\.(\d+)\.jsonl) (\d+)$", re.MULTILINE)
_SHARED_TRAILER = re.compile(r"^Gauntlet-Shared:(.*)$", re.MULTILINE)
_SHARDS_TRAILER = re.compile(r"^Gauntlet-Shards: (\d+)$", re.MULTILINE)
_PENDING_TRAILER = re.compile(r"^Gauntlet-Pending:(.*)$", re.MULTILINE)
_BASE_TRAILER = re.compile(r"^Gauntlet-Base: ([0-9a-f]{40})$", re.MULTILINE)
_BLOBS_TRAILER = re.compile(r"^Gauntlet-Blobs:(.*)$", re.MULTILINE)
_WROTE_TRAILER = re.compile(r"^Gauntlet-Wrote:(.*)$", re.MULTILINE)
_BLOB = re.compile(r"^(v1/[A-Za-z0-9._%/-]+\.json)=([0-9a-f]{40})$")
#: Commits listed to find the newest exact trailers under a head GitHub built on another (one call).
WALK = 100


@dataclass(frozen=True)
class Head:
    """The state branch's head commit as one run saw it."""

    commit: str
    tree: str
    #: The newest audit-log part: ``(month, number, size)``, when the head's trailer names it.
    events: tuple[str, int, int] | None
    #: The repository-wide files that exist, when the head's trailer lists them.
    shared: frozenset[str] | None
    #: Shards waiting to be folded, when the head's trailer counts them.
    shards: int | None = None
    #: PR records holding pending shards (``PRRecord.pending``), as the trailers list them.
    pending: frozenset[str] = frozenset()
    #: A PR run's commit: the head whose trailers it copied (``None``: a commit built on the head it read).
    base: str | None = None
    #: The commit's first parent.
    parent: str | None = None
    #: The blob of each shared file and branch record the trailers know at this commit (``None``: none known).
    blobs: dict[str, str] | None = None
    #: A contents ``PUT``'s commit: the branch record it wrote, and its blob.
    wrote: dict[str, str] = field(default_factory=dict)

    @property
    def exact(self) -> bool:
        """Whether the trailers hold at this commit: nothing came between it and the head they describe."""
        return self.base is None or self.base == self.parent


def blob_sha(data: bytes) -> str:
    """The git blob id of ``data``: what ``Gauntlet-Blobs:`` names, and what the contents API calls ``sha``."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def parse_head(branch: dict[str, Any]) -> Head:
    commit = branch["commit"]
    message = str(commit["commit"].get("message") or "")
    events = _EVENTS_TRAILER.search(message)
    shared = _SHARED_TRAILER.search(message)
    shards = _SHARDS_TRAILER.search(message)
    pending = _PENDING_TRAILER.search(message)
    based = _BASE_TRAILER.search(message)
    blobs = _BLOBS_TRAILER.search(message)
    wrote = _WROTE_TRAILER.search(message)
    parents = commit.get("parents") or []
    return Head(
        commit=str(commit["sha"]),
        tree=str(commit["commit"]["tree"]["sha"]),
        events=(events.group(2), int(events.group(3)), int(events.group(4))) if events else None,
        shared=frozenset(shared.group(1).split()) if shared else None,
        shards=int(shards.group(1)) if shards else None,
        pending=frozenset(pending.group(1).split()) if pending else frozenset(),
        base=based.group(1) if based else None,
        parent=str(parents[0].get("sha")) if parents and isinstance(parents[0], dict) else None,
        blobs=_blobs(blobs.group(1)) if blobs else None,
        wrote=_blobs(wrote.group(1)) if wrote else {},
    )


def _blobs(listed: str) -> dict[str, str]:
    """``<path>=<sha>`` pairs; anything else (a hand edit) is left out, and a left-out file is read."""
    return {found.group(1): found.group(2) for word in listed.split() if (found := _BLOB.match(word))}


def folded(newest_first: list[Head], below: Head | None = None) -> Head | None:
    """The trailers that hold at the first of ``newest_first``: the newest exact commit's, with the pending
    records of every commit above it (a PR run's commit adds its record and changes nothing else).

    :param below: the exact head the list sits on (a compare's base), when the list is the commits after it.
    :returns: ``None`` when no commit of the list (nor ``below``) is exact.
    """
    if not newest_first:
        return below
    pending: set[str] = set()
    above: list[Head] = []
    for found in [*newest_first, *([below] if below is not None else [])]:
        pending |= found.pending
        if found.exact:
            top = newest_first[0]
            blobs = None if found.blobs is None else dict(found.blobs)
            for later in reversed(above):  # oldest first: a file's newest write wins
                blobs = None if blobs is None else {**blobs, **later.wrote}
            return replace(
                found,
                commit=top.commit,
                tree=top.tree,
                pending=frozenset(pending),
                base=None,
                parent=None,
                blobs=blobs,
                wrote={},
            )
        above.append(found)
    return None


def commit_message(
    subject: str,
    events: tuple[str, int, int] | None,
    shared: set[str],
    shards: int,
    pending: set[str] | frozenset[str] = frozenset(),
    *,
    base: Head | None = None,
    blobs: dict[str, str] | None = None,
    wrote: dict[str, str] | None = None,
) -> str:
    """The commit message: the subject and the trailers (module docstring); ``base``: a PR run's copied ones.

    :param blobs: the blobs known at the commit (``None``: not known, so none are listed).
    :param wrote: a contents ``PUT``'s: the branch record it writes, and its blob.
    """
    lines = [subject, ""]
    if base is not None:
        lines.append(f"Gauntlet-Base: {base.commit}")
    if events is not None:
        month, number, size = events
        lines.append(f"Gauntlet-Events: v1/events/{month}.{number}.jsonl {size}")
    lines.append("Gauntlet-Shared: " + " ".join(sorted(shared)))
    lines.append(f"Gauntlet-Shards: {shards}")
    if pending:
        lines.append("Gauntlet-Pending: " + " ".join(sorted(pending)))
    if blobs is not None:
        lines.append("Gauntlet-Blobs: " + " ".join(f"{path}={sha}" for path, sha in sorted(blobs.items())))
    if wrote:
        lines.append("Gauntlet-Wrote: " + " ".join(f"{path}={sha}" for path, sha in sorted(wrote.items())))
    return "\n".join(lines) + "\n"
