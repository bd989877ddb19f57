"""The state store protocol and the logic every backend shares.

A store loads a :class:`Snapshot` (the state plus whatever the backend needs to
detect a concurrent change) and saves a new state against it with
compare-and-swap semantics: :class:`~gauntlet.errors.StateConflict` if anything
it read has changed since. The retry loop lives in :mod:`gauntlet.pipeline`.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Protocol

from gauntlet.state.codec import encode_events, encode_file
from gauntlet.state.events import EVENT_PART_BYTES, Event
from gauntlet.state.models import Scope, State
from gauntlet.vocabulary import SHARED_FILES, event_part_path

__all__ = ["Snapshot", "StateStore", "changed_files", "event_part_name", "events_by_month"]


@dataclass(frozen=True)
class Snapshot:
    """State as loaded, with the stored bytes of every file read (``None``: file absent)."""

    scope: Scope
    state: State
    stored: dict[str, bytes | None]
    #: Backend-specific version (the state branch's commit SHA); ``None`` for a local folder.
    version: str | None = None
    #: Shards folded into ``state`` (``Scope.shards``): the save that writes the folded files deletes them.
    folded: tuple[str, ...] = ()
    #: PR records whose pending shards were folded into ``state``, as they read without them: the save that
    #: writes the folded files writes these too (``PRRecord.pending``).
    rewritten: dict[str, bytes] = field(default_factory=dict)


class StateStore(Protocol):
    """Where state lives: a local folder or a git branch."""

    def load(self, scope: Scope) -> Snapshot:
        """Read the files ``scope`` needs."""
        ...

    def save(self, snapshot: Snapshot, new: State, message: str) -> None:
        """Write what changed since ``snapshot``.

        :raises StateConflict: the stored state moved since ``snapshot`` was loaded.
        """
        ...


def changed_files(snapshot: Snapshot, new: State) -> dict[str, bytes]:
    """The files whose bytes differ from what was loaded (new files included); a file the scope left unread
    is not among them (``Scope.shared``)."""
    read = snapshot.scope.shared
    unread = {path for name, path in SHARED_FILES.items() if read is not None and name not in read}
    changes: dict[str, bytes] = {}
    for path, model in new.files().items():
        if path in unread:
            continue
        data = encode_file(model)
        if snapshot.stored.get(path) != data:
            changes[path] = data
    return changes


def events_by_month(events: list[Event]) -> dict[str, bytes]:
    """Audit lines grouped by ``yyyy-mm``, in order."""
    grouped: dict[str, list[Event]] = defaultdict(list)
    for event in events:
        grouped[event.at.strftime("%Y-%m")].append(event)
    return {month: encode_events(items) for month, items in grouped.items()}


def event_part_name(month: str, newest_part: int, newest_size: int, adding: int) -> str:
    """Path of the part to append ``adding`` bytes to: the newest one, or a new one when it would pass 256 KiB."""
    part = max(newest_part, 1)
    if newest_part and newest_size + adding > EVENT_PART_BYTES and newest_size > 0:
        part += 1
    return event_part_path(month, part)
