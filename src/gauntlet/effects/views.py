"""The data every rendered body is made from. Templates see only these (untrusted text as data)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict

from gauntlet.state.pr import AcceptedRisk, Attempt, FindingRecord
from gauntlet.vocabulary import Decision, HealthVerdict, RecoveryVerdict

__all__ = ["Blamed", "IssueView", "ProposalView", "ReplyView", "RevertView", "RunView"]


class Blamed(BaseModel):
    """A failing finding and whose it is (its provenance, DESIGN §3), for the comment and the check."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    finding: FindingRecord
    provenance: str
    why: str
    #: True when its provenance counts toward ``fail_on`` (``gauntlet.block_on``).
    blocks: bool = True
    #: For a flaky one: flips per outcome and the last flip.
    rate: float | None = None
    last_flip: datetime | None = None
    #: For a known one: the known-failure issue it matched, and its address (the comment links it).
    issue: int | None = None
    issue_url: str | None = None


class RunView(BaseModel):
    """One run's outcome for a PR or branch: the sticky comment, the check and the job summary."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    repository: str
    pr: int | None = None
    branch: str | None = None
    head_sha: str
    decision: Decision | None = None
    fail_on: str = "criticals"
    new: tuple[FindingRecord, ...] = ()
    still_open: tuple[FindingRecord, ...] = ()
    fixed: tuple[FindingRecord, ...] = ()
    accepted: tuple[AcceptedRisk, ...] = ()
    #: The findings those risks accepted (the latest iteration's), so the report says which risk each is.
    accepted_findings: tuple[FindingRecord, ...] = ()
    recovery: RecoveryVerdict = RecoveryVerdict()
    health: HealthVerdict = HealthVerdict()
    attempts: tuple[Attempt, ...] = ()
    notes: tuple[str, ...] = ()
    #: Earlier fixes of the same failures (learning) and learned rules the bandit chose for this comment.
    learnings: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    #: The failing findings by provenance (a PR run), so an author sees at once which are theirs.
    blamed: tuple[Blamed, ...] = ()
    #: The check run's conclusion, so every body's headline says what the check says.
    conclusion: Literal["success", "failure", "neutral"] | None = None
    #: An input pattern found no file (or left the workspace): why a check is neutral.
    misconfigured: bool = False

    def with_issues(self, numbers: Mapping[str, int]) -> RunView:
        """The view with each accepted risk's issue number, where ``numbers`` (effect key -> number) has it.

        A ``/gauntlet accept-risk`` files the issue in the run that reports it: its number is known only
        once the issue is filed, just before the report is written (:func:`gauntlet.effects.base.apply`).
        """
        if not any(r.issue is None and f"risk:{r.fingerprint}" in numbers for r in self.accepted):
            return self
        accepted = tuple(
            r if r.issue is not None else r.model_copy(update={"issue": numbers.get(f"risk:{r.fingerprint}")})
            for r in self.accepted
        )
        return self.model_copy(update={"accepted": accepted})


class IssueView(BaseModel):
    """An accepted-risk or needs-human issue: what, where, why, and what resolves it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    repository: str
    summary: str
    severity: str | None = None
    rule: str | None = None
    path: str | None = None
    line: int | None = None
    commit: str | None = None
    excerpt: str = ""
    why: str = ""
    decision: str = ""
    evidence: tuple[str, ...] = ()
    resolve: str = ""
    accepted_by: str | None = None
    pr: int | None = None
    #: A known-failure issue's rule, as the fenced JSON block ``known.block_text`` builds (inert Markdown).
    known_block: str = ""


class RevertView(BaseModel):
    """A revert PR's body: the culprit, the failing runs and the evidence."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    repository: str
    culprit: str
    subject: str
    author: str | None = None
    failing_runs: tuple[str, ...] = ()
    evidence: tuple[str, ...] = ()


class ProposalView(BaseModel):
    """A self-healing proposal PR: which defect, which rules, how it will be verified."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    repository: str
    proposal_id: str
    level: str
    component: str
    defect_type: str
    rules: tuple[str, ...] = ()
    evidence: tuple[str, ...] = ()


class ReplyView(BaseModel):
    """A reply to a ``/gauntlet`` command: the command quoted, and what was done or why not."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    command: str
    outcome: str
    details: tuple[str, ...] = ()
