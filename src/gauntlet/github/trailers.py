"""The trailers that end every state commit Gauntlet writes, and what they say about the branch head.

A commit's trailers spare the next run calls (``github/gitstore.py`` says what each is for)::

    Gauntlet-Base: <sha>          a PR run's commit: the head whose trailers it copied
    Gauntlet-Events: v1/events/<yyyy-mm>.<n>.jsonl <size>   the newest audit-log part
    Gauntlet-Shared: <paths>      the repository-wide files that exist
    Gauntlet-Shards: <n>          shard files waiting for the scan
    Gauntlet-Pending: <paths>     PR records holding pending shards

A PR run's commit is made by GitHub on the branch as it is when the contents ``PUT`` arrives, so its copied
trailers hold only when nothing came in between (its parent is its base): :func:`folded` takes the newest exact
commit's trailers instead, with the pending records of every commit above it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

__all__ = ["WALK", "Head", "commit_message", "folded", "parse_head"]

_EVENTS_TRAILER = re.compile(r"^Gauntlet-Events: (v1/events/(\d{4}-\d{2})\.(\d+)\.jsonl) (\d+)$", re.MULTILINE)
_SHARED_TRAILER = re.compile(r"^Gauntlet-Shared:(.*)$", re.MULTILINE)
_SHARDS_TRAILER = re.compile(r"^Gauntlet-Shards: (\d+)$", re.MULTILINE)
_PENDING_TRAILER = re.compile(r"^Gauntlet-Pending:(.*)$", re.MULTILINE)
_BASE_TRAILER = re.compile(r"^Gauntlet-Base: ([0-9a-f]{40})$", re.MULTILINE)
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

    @property
    def exact(self) -> bool:
        """Whether the trailers hold at this commit: nothing came between it and the head they describe."""
        return self.base is None or self.base == self.parent


def parse_head(branch: dict[str, Any]) -> Head:
    commit = branch["commit"]
    message = str(commit["commit"].get("message") or "")
    events = _EVENTS_TRAILER.search(message)
    shared = _SHARED_TRAILER.search(message)
    shards = _SHARDS_TRAILER.search(message)
    pending = _PENDING_TRAILER.search(message)
    based = _BASE_TRAILER.search(message)
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
    )


def folded(newest_first: list[Head], below: Head | None = None) -> Head | None:
    """The trailers that hold at the first of ``newest_first``: the newest exact commit's, with the pending
    records of every commit above it (a PR run's commit adds its record and changes nothing else).

    :param below: the exact head the list sits on (a compare's base), when the list is the commits after it.
    :returns: ``None`` when no commit of the list (nor ``below``) is exact.
    """
    if not newest_first:
        return below
    pending: set[str] = set()
    for found in [*newest_first, *([below] if below is not None else [])]:
        pending |= found.pending
        if found.exact:
            top = newest_first[0]
            return replace(found, commit=top.commit, tree=top.tree, pending=frozenset(pending), base=None, parent=None)
    return None


def commit_message(
    subject: str,
    events: tuple[str, int, int] | None,
    shared: set[str],
    shards: int,
    pending: set[str] | frozenset[str] = frozenset(),
    *,
    base: Head | None = None,
) -> str:
    """The commit message: the subject and the trailers (module docstring); ``base``: a PR run's copied ones."""
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
    return "\n".join(lines) + "\n"
