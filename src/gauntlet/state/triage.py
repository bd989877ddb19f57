"""``v1/triage.json``: the accepted-risk and escalated issues Gauntlet watches on the default branch.

Read and written by ``engine/triage.py``: a watched issue is closed on evidence (a run of
its job on the default branch no longer reports the finding, or, for a review finding,
the code at its location changed there), never by time, and reopened when the finding
comes back.
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
    #: The CI job whose runs report the finding (a run of it on the default branch without the finding ends
    #: the issue); ``None`` for a review finding, which no CI run reports.
    job: str | None = None
    #: Where the finding is: for a review finding, a change to this file on the default branch ends the issue.
    path: str | None = None
    #: The PR the risk was accepted on: its own merge brings the accepted code, which changes nothing.
    pr: int | None = None

    @property
    def key(self) -> str:
        """The issue's effect key (DESIGN §5 marker)."""
        return f"{self.kind}:{self.ident}"


class TriageBook(StateFile):
    """Every watched issue, by key."""

    issues: dict[str, WatchedIssue] = {}
