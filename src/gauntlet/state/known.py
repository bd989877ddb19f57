"""What a PR's (or branch's) record keeps of known failures (``docs/known-failures.md``): which of its failures
matched which issue, and the hits it recorded on each issue."""

from __future__ import annotations

from gauntlet.state.base import Record

__all__ = ["MAX_KNOWN_HITS", "KnownHit", "KnownMatch"]

#: Known-failure issues one PR or branch records hits on, at most (the newest hits are kept).
MAX_KNOWN_HITS = 20


class KnownMatch(Record):
    """The known-failure issue a failing finding matched."""

    issue: int
    url: str | None = None


class KnownHit(Record):
    """The hits recorded on one known-failure issue: how many runs matched it, and the newest one's commit."""

    issue: int
    count: int = 0
    last_sha: str
