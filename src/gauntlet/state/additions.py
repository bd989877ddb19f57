"""What one run adds to the repository-wide files, as data: a :class:`Shard` (folded in by the scan, ``shards.py``).

Its own module so the PR record can carry the shards of its runs (``PRRecord.pending``) without importing the
folding code, which imports the whole state.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from gauntlet.state.base import StateFile
from gauntlet.state.events import Event

__all__ = ["Shard"]


class Shard(StateFile):
    """One run's additions to the shared files: a change per file (``shards.delta``) and its events."""

    run: str
    at: datetime
    changes: dict[str, Any] = {}
    events: list[Event] = []
