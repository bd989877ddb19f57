"""``v1/triage.json``: the accepted-risk and escalated issues Gauntlet watches on the default branch.

Read and written by ``engine/triage.py``: a watched issue is closed when its finding
has not been seen on the default branch for ``commands.triage_days``, and reopened
when the finding comes back.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from gauntlet.state.base import Record, StateFile

__all__ = ["MAX_WATCHED", "TriageBook", "WatchedIssue"]

#: Watched issues kept at most; the oldest closed ones go first.
MAX_WATCHED = 500


class WatchedIssue(Record):
    """One issue filed for a finding (``risk:<fingerprint>`` or ``needs-human:<ident>``)."""

    kind: Literal["risk", "needs-human"]
    ident: str
    fingerprint: str
    title: str
    summary: str = ""
    severity: str | None = None
    #: When the issue was filed (accepted or escalated): the window starts here.
    since: datetime
    #: When the finding was last seen on the default branch, if ever.
    last_seen: datetime | None = None
    closed: bool = False

    @property
    def key(self) -> str:
        """The issue's effect key (DESIGN §5 marker)."""
        return f"{self.kind}:{self.ident}"


class TriageBook(StateFile):
    """Every watched issue, by key."""

    issues: dict[str, WatchedIssue] = {}
