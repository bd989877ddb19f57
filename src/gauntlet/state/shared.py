"""The repository-wide state files: defects, proposals, learnings, bandit and the effect index.

Each is small and bounded: the engine parts that own them (``engine/selfheal.py``,
``engine/learning.py``, ``engine/bandit.py``) trim them on every write, and the
scheduled scan compacts what has aged out of every window.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import field_validator

from gauntlet.models import Priority
from gauntlet.state.base import Record, StateFile

__all__ = [
    "MAX_ACTIVITY_DAYS",
    "MAX_COMPONENTS_SEEN",
    "MAX_DEFECTS",
    "MAX_FIXES",
    "MAX_PENDING",
    "MAX_PROPOSALS",
    "MAX_RULES_PER_KIND",
    "MAX_TAUGHT",
    "Arm",
    "BanditTable",
    "BlockedReason",
    "DefectEntry",
    "DefectLog",
    "EffectIndex",
    "FixPair",
    "LearnedRule",
    "LearningBook",
    "Proposal",
    "ProposalBook",
    "ProposalLevel",
    "ProposalStatus",
    "RuleKind",
    "Shown",
]

#: Bounds (DESIGN §4: every file is bounded, one run never grows with history).
MAX_DEFECTS = 5000
MAX_ACTIVITY_DAYS = 60
#: Components whose observations are counted per day (the busiest are kept).
MAX_COMPONENTS_SEEN = 200
MAX_PROPOSALS = 200
MAX_RULES_PER_KIND = 100
MAX_FIXES = 100
MAX_PENDING = 200
MAX_TAUGHT = 1000

ProposalLevel = Literal["PATCH", "MINOR", "MAJOR"]
#: ``pending``: the proposal PR is open, not merged (nothing has landed, nothing is watched); ``watching``: the PR
#: was merged and the watch runs from the merge; ``needs_human``: a MAJOR, an issue was filed; ``blocked``: a limit
#: stopped it (see ``blocked_reason``); the rest are final (``rejected``: closed unmerged or ``/gauntlet reject``;
#: ``lapsed``: blocked until its defects left the window; ``escalated``: superseded, in state written before 0.2).
ProposalStatus = Literal[
    "pending",
    "watching",
    "needs_human",
    "blocked",
    "escalated",
    "verified",
    "rolled_back",
    "unverified",
    "rejected",
    "lapsed",
]
BlockedReason = Literal["daily_limit", "cooldown", "no_rules"]
RuleKind = Literal["review", "fix", "curated"]


class DefectEntry(Record):
    """One defect seen at one place (``pr:12`` or ``branch:main``): counted once per place and fingerprint."""

    at: datetime
    component: str
    defect_type: str
    priority: Priority
    fingerprint: str
    place: str
    #: What failed, in a few words (test id or path and message), for the hints of a later fix.
    summary: str = ""
    #: Where: its path, else its test's file (what a later fix's diff is compared with).
    path: str | None = None


class DefectLog(StateFile):
    """``v1/defects.json``: recurring defects per (component, defect type) over a bounded window.

    ``activity`` counts observations per UTC day, so a scan can tell "no defects" from "no data".
    """

    entries: list[DefectEntry] = []
    activity: dict[str, int] = {}
    #: Observations per component and UTC day (a run that changed or failed in the component): what a watch
    #: needs to call a proposal verified rather than unverified.
    seen: dict[str, dict[str, int]] = {}


class Proposal(Record):
    """One self-healing proposal and where it is in its life."""

    id: str
    component: str
    defect_type: str
    level: ProposalLevel
    status: ProposalStatus
    created_at: datetime
    rules: list[str] = []
    evidence: list[str] = []
    blocked_reason: BlockedReason | None = None
    #: Defects per day for the key over the window before the proposal (the baseline the watch compares with).
    baseline_rate: float = 0.0
    watch_until: datetime | None = None
    escalated_from: str | None = None
    decided_by: str | None = None
    decided_at: datetime | None = None
    note: str = ""
    #: The proposal PR's number, once a scan has seen it on GitHub, and when it was merged (the watch starts there).
    pr: int | None = None
    merged_at: datetime | None = None
    #: The last escalation during the watch: a later recurrence is counted from here.
    escalated_at: datetime | None = None

    @field_validator("status", mode="before")
    @classmethod
    def _renamed(cls, value: object) -> object:
        # State written before the watch started at the merge said ``open`` for a proposal PR not yet settled.
        return "pending" if value == "open" else value

    @property
    def key(self) -> str:
        """The (component, defect type) this proposal is about."""
        return f"{self.component}/{self.defect_type}"


class ProposalBook(StateFile):
    """``v1/proposals.json``: self-healing proposals and their status."""

    next_number: int = 1
    proposals: list[Proposal] = []


class LearnedRule(Record):
    """A rule learned from reviews or fixes (or curated by a maintainer), with its evidence counts."""

    id: str
    text: str
    kind: RuleKind
    classes: list[str] = []
    reinforcements: int = 1
    contradictions: int = 0
    first_seen: datetime
    last_seen: datetime


class FixPair(Record):
    """A fingerprint that failed at one head SHA and passed at a later one on the same PR or branch."""

    fingerprint: str
    error_class: str
    place: str
    failed_sha: str
    fixed_sha: str
    #: The files changed between ``failed_sha`` and ``fixed_sha``, those the failure named first.
    files: list[str] = []
    summary: str = ""
    #: ``high`` when the diff touched something the failure named (its path, test file or stack frames);
    #: ``low`` otherwise: kept, but never taught as a rule nor shown as what fixed it.
    confidence: Literal["high", "low"] = "low"
    #: How many of ``files`` (the first ones) touch what the failure named: what its rule names.
    named: int = 0
    #: The rule this pair taught, if any (a fix that does not hold contradicts it).
    rule: str | None = None
    at: datetime


class LearningBook(StateFile):
    """``v1/learnings.json``: learned rules and failure→fix pairs (each bounded)."""

    rules: list[LearnedRule] = []
    fixes: list[FixPair] = []
    #: ``place:fingerprint`` of the review findings already learned from: a finding reported again teaches nothing.
    taught: list[str] = []


class Arm(Record):
    """Beta(alpha, beta) of one rule in one context (error class)."""

    context: str
    rule: str
    alpha: float = 1.0
    beta: float = 1.0


class Shown(Record):
    """Rules shown on a PR for an error class, waiting for the next iteration to reward them."""

    place: str
    head_sha: str
    context: str
    rules: list[str]


class BanditTable(StateFile):
    """``v1/bandit.json``: Beta(alpha, beta) per (context, rule), and the rules shown but not yet rewarded."""

    arms: list[Arm] = []
    pending: list[Shown] = []


class EffectIndex(StateFile):
    """``v1/index.json``: effect key → issue, PR or comment number, so effects are found again."""

    entries: dict[str, int] = {}
