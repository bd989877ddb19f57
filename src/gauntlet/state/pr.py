"""``v1/prs/<number>.json``: one pull request's gauntlet history."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from gauntlet.models import Finding, Kind, Severity, Source
from gauntlet.state.additions import Shard
from gauntlet.state.base import Record, StateFile
from gauntlet.state.known import KnownHit, KnownMatch
from gauntlet.state.outcomes import OutcomeHistory
from gauntlet.vocabulary import GauntletAction

__all__ = [
    "MAX_ITERATIONS_KEPT",
    "AcceptedRisk",
    "Attempt",
    "CachedRead",
    "FindingRecord",
    "IterationRecord",
    "PRRecord",
    "Written",
]


#: Older iterations are dropped from the file (the iteration counter keeps counting).
MAX_ITERATIONS_KEPT = 20
#: Repository-relative source paths a failure's excerpt names (its stack frames), at most.
MAX_FRAMES = 10
#: A relative source path in a stack frame (``File "src/app/core.py", line 77``, ``at src/app.ts:3:1``); a path
#: preceded by ``/`` or a path character is part of an absolute one (the interpreter's own files) and not taken.
_FRAME = re.compile(
    r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.(?:py|pyi|js|jsx|ts|tsx|mjs|go|rs|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|scala|ex|exs))\b"
)


class FindingRecord(Record):
    """What state keeps of a finding: enough to report it, without the bulky excerpt."""

    fingerprint: str
    source: Source
    tool: str | None = None
    kind: Kind
    severity: Severity
    path: str | None = None
    line: int | None = None
    test_id: str | None = None
    rule: str | None = None
    message: str
    #: The source files its excerpt names (stack frames), for learning what a fix touched.
    frames: list[str] = []
    #: A review finding read from the PR itself: its thread on GitHub (the sticky comment links it).
    url: str | None = None

    @property
    def from_pr_review(self) -> bool:
        """Whether this is one of the PR's own review threads (re-read whole by every run that reads them)."""
        return self.source == "review" and self.url is not None

    @classmethod
    def of(cls, finding: Finding) -> FindingRecord:
        """Keep the reportable fields of ``finding``, the source files its excerpt names, and its thread."""
        frames = list(dict.fromkeys(_FRAME.findall(finding.excerpt)))[:MAX_FRAMES]
        kept = finding.model_dump(include=set(cls.model_fields) - {"frames", "url"})
        return cls.model_validate({**kept, "frames": frames, "url": finding.url})


class IterationRecord(Record):
    """One distinct head SHA of the PR; observations of the same SHA merge into it."""

    number: int
    head_sha: str
    observations: list[str] = []
    findings: list[FindingRecord] = []
    new: list[str] = []
    still_open: list[str] = []
    fixed: list[str] = []
    action: GauntletAction = "clean"
    at: datetime
    #: The latest CI observation was made by a step inside its own run, which Gauntlet cannot rerun: a failure
    #: flaky only by the default branch's history is then judged on this commit alone (a person's rerun tells).
    inside_run: bool = False


class Attempt(Record):
    """One recovery attempt: what failed, what Gauntlet decided, and why."""

    at: datetime
    observation: str
    head_sha: str
    failure_type: str
    action: str
    reason: str
    fingerprints: list[str] = []
    #: The attempt's number for its failure type; kept so the count never drops when old attempts are.
    number: int = 0


class AcceptedRisk(Record):
    """A finding a maintainer accepted with ``/gauntlet accept-risk``."""

    fingerprint: str
    by: str
    reason: str = ""
    at: datetime
    issue: int | None = None


class CachedRead(Record):
    """One answer a PR's (or branch's) runs remember: for a conditional request next time, under its ``ETag``,
    or, for a state file, under the blob it was read at (``github/client.py``, ``github/gitstore.py``).

    A 304 costs nothing against the rate limit; the answer it confirms is this ``body``.
    """

    etag: str
    body: Any = None


class Written(Record):
    """What an effect left on GitHub: its id and its handler's ``version`` of it (``EffectResult.version``)."""

    number: int
    version: str


class PRRecord(StateFile):
    """Iterations, attempts, accepted risks and the sticky comment of one PR."""

    number: int
    iteration_count: int = 0
    iterations: list[IterationRecord] = []
    attempts: list[Attempt] = []
    accepted_risks: list[AcceptedRisk] = []
    comment_id: int | None = None
    #: Effect key -> number for what belongs to this PR alone (its comment, command replies), kept here rather
    #: than in the shared index so the index does not grow with every PR ever seen.
    effects: dict[str, int] = {}
    closed: bool = False
    #: Pass/fail per (fingerprint, commit, run attempt) on this PR: flaky when both on one commit.
    outcomes: OutcomeHistory = OutcomeHistory()
    #: GET answers that rarely change between the PR's runs (the default branch's record, the PR's reviews),
    #: by request, with their ``ETag``: the next run asks conditionally and a 304 is free (docs/scale.md).
    reads: dict[str, CachedRead] = {}
    #: What this PR's runs added to the shared files since the last scan, oldest first: the scan folds them
    #: and empties the list (the runs write only this file, ``github/gitstore.py``).
    pending: list[Shard] = []
    #: What Gauntlet last wrote on GitHub for this PR, by effect key (the sticky comment, the head's check run):
    #: the next run edits it in place without reading it first.
    written: dict[str, Written] = {}
    #: The latest iteration's failing fingerprints that matched an open known-failure issue, as the PR's last
    #: run that read the issues found them (a ``/gauntlet`` command re-plans with these).
    known: dict[str, KnownMatch] = {}
    #: Issue number -> the hits this PR's runs recorded on that known-failure issue (one comment each).
    known_hits: dict[str, KnownHit] = {}
    #: The latest iteration's finding paths -> the users ``CODEOWNERS`` names for them, as the PR's runs read
    #: it from their checkout: whom a ``/gauntlet accept-risk`` assigns the issue it files to, without a lookup.
    owners: dict[str, list[str]] = {}

    @property
    def current(self) -> IterationRecord | None:
        """The latest iteration, if any."""
        return self.iterations[-1] if self.iterations else None
