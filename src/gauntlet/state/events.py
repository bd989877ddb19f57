"""``v1/events/<yyyy-mm>.<n>.jsonl``: the append-only audit log."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from gauntlet.state.base import Record

__all__ = ["EVENT_PART_BYTES", "Event"]

#: A new part starts when the newest one would grow past this size (DESIGN §4).
EVENT_PART_BYTES = 256 * 1024


class Event(Record):
    """One decision or effect, as a line of the audit log."""

    at: datetime
    kind: str
    key: str
    data: dict[str, Any] = {}
