"""``v1/branches/<slug>.json``: runs of one branch, its last-good commits, breakages and reverts.

Everything here is bounded (DESIGN §4): the newest runs, breakages and reverts
are kept and older ones dropped. Dropping an old revert is safe because a
culprit older than ``max_age_hours`` is never reverted anyway.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from gauntlet.models import CommitFact, RevertPRState
from gauntlet.state.additions import Shard
from gauntlet.state.base import Record, StateFile
from gauntlet.state.known import KnownHit
from gauntlet.state.outcomes import OutcomeHistory
from gauntlet.state.pr import Attempt, CachedRead, FindingRecord, Written

__all__ = [
    "MAX_BREAKAGES_KEPT",
    "MAX_BREAKAGE_ATTEMPTS",
    "MAX_BREAKAGE_FINDINGS",
    "MAX_DAYS_KEPT",
    "MAX_FLAKY_KEPT",
    "MAX_REVERTS_KEPT",
    "MAX_RUNS_KEPT",
    "BranchRecord",
    "Breakage",
    "FlakyIssue",
    "RevertRecord",
    "RunRecord",
    "same_commit",
]

MAX_RUNS_KEPT = 100
MAX_BREAKAGES_KEPT = 50
MAX_REVERTS_KEPT = 200
MAX_FLAKY_KEPT = 200
#: Per breakage: the attempts and the failing findings worth keeping to explain a decision.
MAX_BREAKAGE_ATTEMPTS = 20
MAX_BREAKAGE_FINDINGS = 50
#: Daily revert counts kept (days); the cap only ever reads today's.
MAX_DAYS_KEPT = 7

_SHORT = 7


def same_commit(a: str, b: str) -> bool:
    """True when two SHAs (either possibly abbreviated, at least 7 characters) name the same commit."""
    a, b = a.lower(), b.lower()
    if min(len(a), len(b)) < _SHORT:
        return False
    return a.startswith(b) or b.startswith(a)


class RunRecord(Record):
    """One observed CI run on the branch."""

    observation: str
    head_sha: str
    at: datetime
    green: bool
    #: Fingerprints of the blocking (critical or major) findings.
    failing: list[str] = []
    #: ``workflow/job``: runs are compared only with runs of the same job.
    job: str = ""
    #: False when infrastructure cut the run short: it proves nothing passed.
    complete: bool = True


class Breakage(Record):
    """One red spell of one job on the default branch, from its first red run until it is green again."""

    id: str
    job: str
    #: The CI jobs seen failing in it, by name (``job`` is the key runs are compared under: CI's workflow and
    #: job, or the jobs of a whole CI run seen from ``workflow_run``; ``gauntlet.jobkey``).
    failed_jobs: list[str] = []
    first_red: str
    opened_at: datetime
    #: The job's last green commit when the breakage began (``None``: never seen green).
    last_good: str | None = None
    #: First-parent commits after last-good up to the first red run, oldest first; ``None``: not yet known.
    suspects: list[CommitFact] | None = None
    observations: list[str] = []
    #: Breaking fingerprint -> in how many distinct observations it failed (confirmation, DESIGN §3).
    sightings: dict[str, int] = {}
    findings: list[FindingRecord] = []
    attempts: list[Attempt] = []
    #: Attempts so far; counts on past the attempts kept.
    attempt_count: int = 0
    reruns: int = 0
    culprit: str | None = None
    #: The latest revert decision: ``revert``/``shadow``/``off`` or a refusal reason code.
    decision: str | None = None
    detail: str = ""
    escalated: bool = False
    resolved_at: datetime | None = None
    resolution: Literal["recovered", "reverted", "flaky"] | None = None

    @property
    def open(self) -> bool:
        """True until a green run of the job ends the breakage."""
        return self.resolved_at is None


class RevertRecord(Record):
    """A revert PR Gauntlet opened; one per culprit, ever."""

    culprit: str
    subject: str = ""
    breakage: str
    opened_at: datetime
    status: RevertPRState = "open"
    number: int | None = None
    #: Gauntlet closed it because the breakage went away (not a person's refusal).
    withdrawn: bool = False


class FlakyIssue(Record):
    """The flaky-test issue of one fingerprint (or of a component's many): when it last flaked, and if closed."""

    ident: str
    fingerprints: list[str] = []
    last_flake: datetime
    closed_at: datetime | None = None
    #: Bumped when a flake after the reopen window files a fresh issue.
    generation: int = 1


class BranchRecord(StateFile):
    """History of one branch."""

    name: str
    runs: list[RunRecord] = []
    #: The newest commit with a green run (DESIGN §3).
    last_good: str | None = None
    #: ``workflow/job`` -> that job's newest green commit; culprits are looked for after it.
    good: dict[str, str] = {}
    breakages: list[Breakage] = []
    reverts: list[RevertRecord] = []
    #: UTC day (``YYYY-MM-DD``) -> revert PRs opened that day.
    daily: dict[str, int] = {}
    #: Fingerprints seen failing and passing on the same commit: never a reason to revert.
    flaky: list[str] = []
    #: Pass/fail per (fingerprint, commit, run attempt): provenance and flakiness (``state/outcomes.py``).
    outcomes: OutcomeHistory = OutcomeHistory()
    flaky_issues: list[FlakyIssue] = []
    #: What Gauntlet last wrote for an effect key: the check run on the newest head only (``PRRecord.written``).
    written: dict[str, Written] = {}
    #: Issue number -> the hits this branch's runs recorded on that known-failure issue (``PRRecord.known_hits``).
    known_hits: dict[str, KnownHit] = {}
    #: The shared files' answers the branch's runs remember, for conditional reads (``PRRecord.reads``).
    reads: dict[str, CachedRead] = {}
    #: What the branch's runs added to the shared files since the scan last folded them, as one shard: each run
    #: reads it folded in and writes it back with its own additions (``github/gitstore.py``).
    pending: list[Shard] = []

    def open_breakage(self, job: str) -> Breakage | None:
        """The job's unresolved breakage, if any."""
        return next((b for b in reversed(self.breakages) if b.job == job and b.open), None)

    def revert_of(self, culprit: str) -> RevertRecord | None:
        """The revert PR opened for ``culprit``, if any."""
        return next((r for r in self.reverts if same_commit(r.culprit, culprit)), None)
