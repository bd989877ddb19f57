"""The data shapes that cross stage boundaries: findings and observations (DESIGN §4).

These are pydantic models because they are built from untrusted input and
serialised into state and reports. Inside a stage, plain functions pass them
around unchanged.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "SEVERITY_ORDER",
    "CommentFact",
    "Finding",
    "Kind",
    "Observation",
    "Permission",
    "Priority",
    "Severity",
    "Source",
]

Source = Literal["log", "sarif", "junit", "review", "rdjson", "checkstyle", "comment"]
Kind = Literal[
    "test_failure",
    "build_error",
    "lint",
    "type_error",
    "dependency",
    "infra",
    "timeout",
    "crash",
    "security",
    "review",
    "unknown",
]
Severity = Literal["critical", "major", "minor", "nitpick"]
Priority = Literal["P0", "P1", "P2"]

#: Higher is worse; used to compare severities against ``fail_on`` and to sort.
SEVERITY_ORDER: dict[Severity, int] = {"nitpick": 0, "minor": 1, "major": 2, "critical": 3}


class Finding(BaseModel):
    """One failure or review finding, as ``gauntlet ingest --json`` prints it (contract)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    fingerprint: str = Field(description="Stable id: same defect, same value across runs.")
    source: Source
    tool: str | None = None
    kind: Kind
    severity: Severity
    priority: Priority = "P2"
    path: str | None = None
    line: int | None = None
    end_line: int | None = None
    column: int | None = None
    test_id: str | None = None
    rule: str | None = None
    message: str
    excerpt: str = ""
    log_lines: tuple[int, int] | None = None
    job: str | None = None
    category: str | None = None
    rule_learned: str | None = None
    #: Every source that reported this defect (the same test failing in a log and in JUnit is one finding).
    sources: tuple[Source, ...] = ()


#: Collaborator permission levels, lowest first ("none": not a collaborator), as ``role_name`` reports them.
Permission = Literal["none", "read", "triage", "write", "maintain", "admin"]


class CommentFact(BaseModel):
    """An ``issue_comment`` as the command step needs it (built at the edge: ``github/commands_edge.py``).

    ``body`` is untrusted text: it is parsed for commands and never rendered as a template.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: int
    body: str
    author: str
    author_type: str = "User"
    #: The author's permission on the repository (collaborator permission API), read by the edge.
    author_permission: Permission = "none"
    action: Literal["created", "edited", "deleted"] = "created"
    issue_number: int
    is_pull_request: bool = False
    #: The login Gauntlet itself writes as (input ``bot_login``): its own comments are never commands.
    gauntlet_login: str = "github-actions[bot]"


class Observation(BaseModel):
    """What one run saw, identified by (head SHA, run id, run attempt, job) (DESIGN §3).

    Built at the edge from the event payload and the ingested findings; the
    engine receives it and never looks at the environment itself.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    repository: str = "local/repository"
    event: str = "pull_request"
    pr: int | None = None
    pr_author: str | None = None
    branch: str | None = None
    default_branch: str = "main"
    head_sha: str
    base_sha: str | None = None
    run_id: str = "0"
    run_attempt: str = "1"
    job: str = ""
    workflow: str = ""
    findings: tuple[Finding, ...] = ()
    changed_files: tuple[str, ...] = ()

    #: Set for an ``issue_comment`` event: the comment that may carry ``/gauntlet`` commands.
    comment: CommentFact | None = None

    @property
    def id(self) -> str:
        """The identity of the observation: delivering it again changes nothing."""
        if self.comment is not None:
            return f"comment:{self.comment.id}:{self.comment.action}"
        return f"{self.head_sha}:{self.run_id}:{self.run_attempt}:{self.job}"

    @property
    def on_default_branch(self) -> bool:
        """True for a push or run on the repository's default branch (not a PR)."""
        return self.pr is None and self.branch == self.default_branch
