"""Effects: what a run wants done on GitHub, as frozen data with a stable key (DESIGN §2).

Applying the same effect twice changes nothing the second time: every backend
finds the earlier result by the effect's key (hidden marker, fixed branch name
or state index) before acting.
"""

from __future__ import annotations

import hashlib
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from gauntlet.effects.views import IssueView, ProposalView, ReplyView, RevertView, RunView
from gauntlet.vocabulary import Decision, HealthVerdict, ProvenanceReport, RecoveryVerdict

__all__ = [
    "AnswerKnownRule",
    "CheckAnnotation",
    "CloseIssue",
    "CommentOnPR",
    "Effect",
    "FileIssue",
    "IssueKind",
    "OpenProposalPR",
    "OpenRevertPR",
    "Plan",
    "React",
    "RecordKnownHit",
    "ReplyToComment",
    "RerunFailedJobs",
    "SetCheck",
    "UpsertComment",
    "WithdrawRevertPR",
    "WriteSummary",
]

#: Marker kinds of issues Gauntlet files (DESIGN §5).
IssueKind = Literal["risk", "needs-human", "flaky", "known-failure"]


class _Effect(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    @property
    def key(self) -> str:
        """The stable identity of this effect: the same key is never acted on twice."""
        raise NotImplementedError


class UpsertComment(_Effect):
    """The one sticky comment on a PR, found by marker and edited in place."""

    type: Literal["upsert_comment"] = "upsert_comment"
    pr: int
    view: RunView

    @property
    def key(self) -> str:
        return f"pr-comment:{self.pr}"


class CheckAnnotation(BaseModel):
    """One line-level annotation on a check run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    start_line: int
    end_line: int
    annotation_level: Literal["notice", "warning", "failure"]
    title: str
    message: str


class SetCheck(_Effect):
    """The check run on the head SHA: conclusion by ``fail_on``, summary and annotations."""

    type: Literal["set_check"] = "set_check"
    name: str = "Gauntlet"
    head_sha: str
    conclusion: Literal["success", "failure", "neutral"]
    title: str
    view: RunView
    annotations: tuple[CheckAnnotation, ...] = ()

    @property
    def key(self) -> str:
        return f"check:{self.name}:{self.head_sha}"


class WriteSummary(_Effect):
    """The job summary (``$GITHUB_STEP_SUMMARY``)."""

    type: Literal["write_summary"] = "write_summary"
    view: RunView

    @property
    def key(self) -> str:
        return "summary"


class FileIssue(_Effect):
    """An accepted-risk or needs-human issue; a recurrence comments on (and reopens) the existing one."""

    type: Literal["file_issue"] = "file_issue"
    kind: IssueKind
    ident: str
    title: str
    view: IssueView
    labels: tuple[str, ...] = ()
    #: A comment to add when the issue already exists (the recurrence), if any.
    recurrence_note: str | None = None
    #: Whom to assign it to, as the PR's runs read ``CODEOWNERS`` from their checkout (``PRRecord.owners``);
    #: ``None``: the handler reads ``CODEOWNERS`` on the default branch itself.
    assignees: tuple[str, ...] | None = None

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.ident}"


class CloseIssue(_Effect):
    """Close an issue Gauntlet filed (found by its key), with a comment saying why."""

    type: Literal["close_issue"] = "close_issue"
    kind: IssueKind
    ident: str
    reason: str

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.ident}"


class OpenRevertPR(_Effect):
    """A revert PR for a culprit on the default branch (DESIGN §5): one per culprit, ever."""

    type: Literal["open_revert_pr"] = "open_revert_pr"
    culprit: str
    base: str
    view: RevertView
    #: The tree of the culprit's first parent, from the run's history: the revert while the culprit is the head.
    parent_tree: str | None = None

    @property
    def key(self) -> str:
        return self.key_of(self.culprit)

    @staticmethod
    def key_of(culprit: str) -> str:
        """The key of the revert PR of ``culprit`` (its SHA, or the first 12 characters of it)."""
        return f"revert:{culprit[:12]}"


class OpenProposalPR(_Effect):
    """A self-healing proposal: learned rules promoted into the agent-rules file."""

    type: Literal["open_proposal_pr"] = "open_proposal_pr"
    proposal_id: str
    base: str
    rules: tuple[str, ...]
    view: ProposalView
    #: Set for a rollback: revert the merged proposal instead of proposing.
    rollback_of: str | None = None

    @property
    def key(self) -> str:
        return f"proposal:{self.proposal_id}" + (":rollback" if self.rollback_of else "")


class React(_Effect):
    """A reaction on a comment (🚀 or 😕 on a command comment)."""

    type: Literal["react"] = "react"
    comment_id: int
    content: Literal["eyes", "rocket", "confused", "+1", "-1"]

    @property
    def key(self) -> str:
        return f"reaction:{self.comment_id}:{self.content}"


class ReplyToComment(_Effect):
    """A reply to a ``/gauntlet`` command comment on an issue or PR."""

    type: Literal["reply_to_comment"] = "reply_to_comment"
    issue_number: int
    comment_id: int
    index: int = 0
    view: ReplyView

    @property
    def key(self) -> str:
        return f"reply:{self.comment_id}:{self.index}"


class CommentOnPR(_Effect):
    """A comment on a PR or issue Gauntlet opened (a proposal's escalation), written once per ``ident``."""

    type: Literal["comment_on_pr"] = "comment_on_pr"
    issue_number: int
    ident: str
    view: ReplyView

    @property
    def key(self) -> str:
        return f"note:{self.ident}"


class RerunFailedJobs(_Effect):
    """Rerun the failed jobs of a workflow run (infra retries, ``/gauntlet retry``)."""

    type: Literal["rerun_failed_jobs"] = "rerun_failed_jobs"
    run_id: int
    attempt: int

    @property
    def key(self) -> str:
        return f"rerun:{self.run_id}:{self.attempt}"


class WithdrawRevertPR(_Effect):
    """Close Gauntlet's open revert PR for ``culprit`` because the breakage it answered went away (never reopened)."""

    type: Literal["withdraw_revert_pr"] = "withdraw_revert_pr"
    culprit: str
    reason: str

    @property
    def key(self) -> str:
        return f"withdraw:{self.culprit[:12]}"


class RecordKnownHit(_Effect):
    """The hits of one PR (or branch) on a known-failure issue: one comment per PR, edited in place."""

    type: Literal["record_known_hit"] = "record_known_hit"
    issue: int
    pr: int | None = None
    branch: str | None = None
    #: Runs of the PR (or branch) whose failures matched the issue, and the newest one's commit.
    count: int
    last_sha: str

    @property
    def key(self) -> str:
        # A branch by a digest of its name: a marker carries no text from outside (a name could hold anything).
        branch = hashlib.sha256((self.branch or "").encode()).hexdigest()[:12]
        where = f"pr-{self.pr}" if self.pr is not None else f"branch-{branch}"
        return f"known-hit:{self.issue}:{where}"


class AnswerKnownRule(_Effect):
    """The answer to a known-failure issue whose rule cannot be used: once per version of its body."""

    type: Literal["answer_known_rule"] = "answer_known_rule"
    issue: int
    version: str
    reason: str

    @property
    def key(self) -> str:
        return f"known-rule:{self.issue}:{self.version}"


Effect = Annotated[
    UpsertComment
    | SetCheck
    | WriteSummary
    | FileIssue
    | CloseIssue
    | OpenRevertPR
    | WithdrawRevertPR
    | OpenProposalPR
    | React
    | ReplyToComment
    | CommentOnPR
    | RerunFailedJobs
    | RecordKnownHit
    | AnswerKnownRule,
    Field(discriminator="type"),
]


class Plan(BaseModel):
    """What the engine decided and the effects that carry it out, in the order they are applied."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    decision: Decision | None = None
    recovery: RecoveryVerdict = RecoveryVerdict()
    health: HealthVerdict = HealthVerdict()
    provenance: ProvenanceReport = ProvenanceReport()
    proposals: tuple[str, ...] = ()
    effects: tuple[Effect, ...] = ()
