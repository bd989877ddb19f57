"""The data shapes that cross stage boundaries: findings and observations (DESIGN §4).

These are pydantic models because they are built from untrusted input and
serialised into state and reports. Inside a stage, plain functions pass them
around unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from gauntlet.kinds import Kind, Source
from gauntlet.known import KnownFailures

Model = TypeVar("Model", bound=BaseModel)


def evolve(model: Model, /, **changes: Any) -> Model:
    """A copy of ``model`` with ``changes``, checked like the original: the one way state changes.

    pydantic's ``model_copy(update=...)`` drops a misspelt field silently and validates nothing;
    this rejects a field the model does not have and re-validates the result (types, validators).

    :raises TypeError: a change names a field the model does not have.
    :raises pydantic.ValidationError: a changed value does not fit its field.
    """
    fields = type(model).model_fields
    unknown = sorted(set(changes) - set(fields))
    if unknown:
        raise TypeError(f"{type(model).__name__} has no field {', '.join(unknown)}")
    values = {name: getattr(model, name) for name in fields}
    return type(model).model_validate({**values, **changes})


__all__ = [
    "MAX_ASSIGNED_PATHS",
    "REVIEW_EVENTS",
    "SEVERITY_ORDER",
    "CommentFact",
    "CommitFact",
    "EventFacts",
    "Finding",
    "FixDiff",
    "GitHubFacts",
    "InputProblem",
    "Kind",
    "Observation",
    "Permission",
    "Priority",
    "ProposalPRFact",
    "ProposalPRState",
    "RevertPRFact",
    "RevertPRState",
    "ReviewLabel",
    "ReviewSeverity",
    "RunIdentity",
    "Severity",
    "Source",
    "evolve",
]

Severity = Literal["critical", "major", "minor", "nitpick"]
Priority = Literal["P0", "P1", "P2"]

#: Higher is worse; used to compare severities against ``fail_on`` and to sort.
SEVERITY_ORDER: dict[Severity, int] = {"nitpick": 0, "minor": 1, "major": 2, "critical": 3}

#: What a review comment says about its own severity: a Conventional Comments label or decoration, a severity
#: word, a bot's badge or marker, or (pull request reviews only) no label and a review's change request. The
#: severity of each is a table (``ingest/comment.py``, ``reviews.severity`` in the configuration).
ReviewLabel = Literal[
    "issue",
    "suggestion",
    "todo",
    "chore",
    "nitpick",
    "typo",
    "polish",
    "quibble",
    "praise",
    "question",
    "thought",
    "note",
    "blocking",
    "non-blocking",
    "critical",
    "blocker",
    "major",
    "high",
    "minor",
    "medium",
    "low",
    "nit",
    "trivial",
    "p0",
    "p1",
    "p2",
    "p3",
    "potential_issue",
    "refactor_suggestion",
    "unlabelled",
    "changes_requested",
]
#: A label's severity; ``none`` makes the comment conversation.
ReviewSeverity = Literal["critical", "major", "minor", "nitpick", "none"]


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
    #: Where the finding was said, when it was said on GitHub: a review comment's or review's ``html_url``.
    #: Kept out of ``ingest --json`` (files never have one); state keeps it (``FindingRecord``).
    url: str | None = Field(None, exclude=True)
    #: Every source that reported this defect (the same test failing in a log and in JUnit is one finding).
    sources: tuple[Source, ...] = ()


class InputProblem(BaseModel):
    """An input file that was not read (``error``) or skipped as no known format (``warning``), and why.

    One bad file never stops the rest (DESIGN §6): the run reports it in the job summary
    and in the run report's ``input_problems`` and reads every other input.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    level: Literal["error", "warning"]
    message: str
    #: The input itself is wrong (a pattern that matches no file, or one that leaves the workspace): the run
    #: says so loudly and its check is neutral, never green (a typo must not look like a passing change).
    misconfigured: bool = False


#: The config of the models below, which only a run builds (`gauntlet ingest` never does): pydantic builds
#: their validators on first use instead of at import, a tenth of `gauntlet ingest`'s start-up
#: (docs/ci-logs.md, start-up). Finding and InputProblem, which every ingest builds, are built at import.
_FACTS = ConfigDict(frozen=True, extra="forbid", defer_build=True)

#: ``git revert`` writes this line; GitHub's "Revert" button too.
_REVERTS = re.compile(r"This reverts commit ([0-9a-fA-F]{7,40})")
#: Commits whose message carries this word are never reverted automatically (DESIGN §3).
NOAUTOREVERT = "NOAUTOREVERT"
#: A merge of many files is no less revertable, but state keeps only this many paths per commit.
MAX_COMMIT_FILES = 300
#: Finding paths whose code owners an observation and a PR's record keep, at most.
MAX_ASSIGNED_PATHS = 100

#: Events that only say a review changed: Gauntlet reports again and counts no attempt. Their run is
#: Gauntlet's own, not a CI run: it has no test outcomes, and its workflow and job are never recorded.
REVIEW_EVENTS = frozenset({"pull_request_review", "pull_request_review_comment"})

RevertPRState = Literal["open", "merged", "closed_unmerged"]


class CommitFact(BaseModel):
    """One commit of the default branch's first-parent history, as the engine needs it for culprits.

    Built at the edge (GitHub compare/commits API) with :meth:`of`; ``files`` are
    the paths changed against the first parent, so a merge commit counts as one change.
    """

    model_config = _FACTS

    sha: str
    subject: str
    author: str | None = None
    files: tuple[str, ...] = ()
    parents: tuple[str, ...] = ()
    at: datetime
    #: The commit this one reverts (from ``This reverts commit <sha>``), if it is a revert.
    reverts: str | None = None
    noautorevert: bool = False
    #: The commit's tree SHA, when the API said (a revert of the commit's child to it needs no tree read).
    tree: str | None = None

    @classmethod
    def of(
        cls,
        *,
        sha: str,
        message: str,
        author: str | None,
        files: tuple[str, ...],
        parents: tuple[str, ...],
        at: datetime,
    ) -> CommitFact:
        """Build the fact from a commit as the API returns it; the message is read, never kept whole.

        :param sha: the full commit SHA.
        :param message: the full commit message (untrusted; only its subject is stored).
        :param author: the GitHub login of the author, if known.
        :param files: paths changed against the first parent.
        :param parents: parent SHAs, first parent first.
        :param at: the committer date.
        """
        reverted = _REVERTS.search(message)
        return cls(
            sha=sha,
            subject=(message.splitlines() or [""])[0][:200],
            author=author,
            files=files[:MAX_COMMIT_FILES],
            parents=parents,
            at=at,
            reverts=reverted.group(1).lower() if reverted else None,
            noautorevert=NOAUTOREVERT in message,
        )

    @classmethod
    def from_api(cls, commit: Mapping[str, Any]) -> CommitFact:
        """Build the fact from ``GET /repos/{owner}/{repo}/commits/{sha}`` (which lists the changed files).

        See https://docs.github.com/rest/commits/commits#get-a-commit. ``files`` should
        be the paths changed against the first parent; for a merge commit, compare it
        with its first parent (``compare/{parent}...{sha}``) if the listing differs.

        :param commit: the decoded JSON response (untrusted: missing fields become empty).
        """
        detail = commit.get("commit") or {}
        committer = detail.get("committer") or {}
        fact = cls.of(
            sha=str(commit["sha"]),
            message=str(detail.get("message") or ""),
            author=(commit.get("author") or {}).get("login"),
            files=tuple(str(f["filename"]) for f in commit.get("files") or () if f.get("filename")),
            parents=tuple(str(p["sha"]) for p in commit.get("parents") or () if p.get("sha")),
            # No date makes the commit look ancient: too old to revert, the safe side.
            at=datetime.fromisoformat(str(committer.get("date") or "1970-01-01T00:00:00+00:00")),
        )
        tree = (detail.get("tree") or {}).get("sha")
        return evolve(fact, tree=str(tree)) if tree else fact


class RevertPRFact(BaseModel):
    """What GitHub says about a revert PR Gauntlet opened earlier (found by its fixed branch name)."""

    model_config = _FACTS

    culprit: str = Field(description="The reverted commit's SHA, or its first 12 characters.")
    number: int
    state: RevertPRState


ProposalPRState = Literal["open", "merged", "closed"]


class ProposalPRFact(BaseModel):
    """What GitHub says about a self-healing proposal's PR (read at the edge for the scan)."""

    model_config = _FACTS

    proposal_id: str
    number: int
    state: ProposalPRState
    #: When it was merged: the watch starts there.
    merged_at: datetime | None = None


class FixDiff(BaseModel):
    """The files changed between the last commit where failures were seen and the first where they were gone.

    One compare call at the edge (``GET /repos/{owner}/{repo}/compare/{base}...{head}``), made only when the
    observation may fix something; learning ranks these files by what the failure named.
    """

    model_config = _FACTS

    base_sha: str
    head_sha: str
    files: tuple[str, ...] = ()


#: Collaborator permission levels, lowest first ("none": not a collaborator), as ``role_name`` reports them.
Permission = Literal["none", "read", "triage", "write", "maintain", "admin"]


class CommentFact(BaseModel):
    """An ``issue_comment`` as the command step needs it (built at the edge: ``observe/issue_comment.py``).

    ``body`` is untrusted text: it is parsed for commands and never rendered as a template.
    """

    model_config = _FACTS

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


class EventFacts(BaseModel):
    """What an event payload says about the run (``observe/payload.py`` reads it; every field optional).

    The payload is untrusted (DESIGN §6): a field is ``None`` when the payload left it out.
    """

    model_config = _FACTS

    event: str
    action: str | None = None
    repository: str | None = None
    default_branch: str | None = None
    pr: int | None = None
    pr_author: str | None = None
    head_sha: str | None = None
    base_sha: str | None = None
    branch: str | None = None
    run_id: str | None = None
    run_attempt: str | None = None
    workflow: str | None = None
    #: ``workflow_run`` only: the event that started the run it reports on (``push``, ``pull_request``, ...).
    trigger: str | None = None
    #: ``workflow_run`` only: the run's conclusion (``success``: no job failed, no log to download).
    conclusion: str | None = None
    #: A merge queue run (``merge_group``, or a ``workflow_run`` of one): the branch the group merges into.
    queue_base: str | None = None
    #: ``pull_request`` ``closed``: whether the PR was merged (else closed without merging).
    merged: bool = False


class GitHubFacts(BaseModel):
    """What the run read from GitHub's API before deciding (``observe/github_facts.py``)."""

    model_config = _FACTS

    #: The open PR whose head is the run's commit, when the payload named none (a fork's ``workflow_run``).
    pr: int | None = None
    #: The files the PR's head commit changed.
    changed_files: tuple[str, ...] = ()
    #: Default branch only: first-parent history, newest first.
    commits: tuple[CommitFact, ...] = ()
    #: Default branch only: the revert PRs Gauntlet opened earlier.
    revert_prs: tuple[RevertPRFact, ...] = ()


class RunIdentity(BaseModel):
    """Who is running: the repository and run the runner names (``GITHUB_*``), used where the payload is silent."""

    model_config = _FACTS

    repository: str | None = None
    sha: str | None = None
    run_id: str = "0"
    run_attempt: str = "1"
    workflow: str = ""
    job: str = ""


class Observation(BaseModel):
    """What one run saw, identified by (head SHA, run id, run attempt, job) (DESIGN §3).

    Built at the edge from the event payload and the ingested findings; the
    engine receives it and never looks at the environment itself.
    """

    model_config = _FACTS

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
    #: The CI jobs that failed in the observed run, by name (read with their logs on ``workflow_run``): what
    #: reports name as the failing jobs.
    failed_jobs: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()
    changed_files: tuple[str, ...] = ()
    #: Path -> its first code owner (``CODEOWNERS`` in the checkout), for the paths the findings and the change name.
    owners: dict[str, str] = Field(default_factory=dict)
    #: Finding path -> the users ``CODEOWNERS`` names for it: whom an accepted-risk issue is assigned to (at most
    #: :data:`MAX_ASSIGNED_PATHS` paths; the PR's record keeps them, ``PRRecord.owners``).
    assignees: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    #: What changed since the last commit where a failure of this PR or job was seen (learning's "what fixed it").
    fix_diff: FixDiff | None = None
    #: Default branch only: its first-parent history, newest first, from the tip back past last-good.
    commits: tuple[CommitFact, ...] = ()
    #: Default branch only: the state of the revert PRs Gauntlet opened earlier.
    revert_prs: tuple[RevertPRFact, ...] = ()
    #: Test ids the run's test reports list as passed, and as failed then passed on a retry (outcome history).
    passed_tests: tuple[str, ...] = ()
    flaky_tests: tuple[str, ...] = ()

    #: Input files that could not be read; the others' findings are in ``findings``.
    input_problems: tuple[InputProblem, ...] = ()
    #: Set for an ``issue_comment`` event: the comment that may carry ``/gauntlet`` commands.
    comment: CommentFact | None = None
    #: Set for a ``pull_request`` ``closed`` event: the PR's record is compacted and the needs-human issues filed
    #: about it are closed; ``merged`` says how it ended.
    closed: bool = False
    merged: bool = False
    #: The run read the PR's review threads: its review findings (those with a ``url``) are the whole set.
    reviews_read: bool = False
    #: The open known-failure issues, as the edge read them (``None``: not read; a PR run then keeps the matches
    #: its record holds). Matching failures are ``known`` (DESIGN §3, ``engine/known.py``).
    known_failures: KnownFailures | None = None
    #: A merge queue run: the branch the group merges into. Its failures are judged against that branch's
    #: history (``base_sha`` is the group's base), and are never that branch's break (DESIGN §3).
    queue_base: str | None = None

    @classmethod
    def from_event(
        cls,
        event: EventFacts,
        run: RunIdentity,
        *,
        findings: tuple[Finding, ...] = (),
        github: GitHubFacts | None = None,
        comment: CommentFact | None = None,
        closed: bool = False,
        input_problems: tuple[InputProblem, ...] = (),
        reviews_read: bool = False,
    ) -> Observation:
        """The observation of one delivered event: the one constructor the command line and the Action share.

        The payload's facts win over the runner's (a ``workflow_run`` names the run it reports on); a comment
        is identified by its id, so it carries no run identity and no head commit.

        :param event: what the payload says.
        :param run: what the runner says (``GITHUB_REPOSITORY``, ``GITHUB_SHA``, run id and attempt, job).
        :param findings: the classified findings of the run's files.
        :param github: what was read from GitHub's API.
        :param comment: the ``issue_comment`` that may carry ``/gauntlet`` commands.
        :param closed: the event closed the PR.
        :param input_problems: the run's input files that could not be read.
        :param reviews_read: ``findings`` hold every open review thread of the PR (``observe/reviews.py``).
        """
        facts = github or GitHubFacts()
        default_branch = event.default_branch or "main"
        repository = event.repository or run.repository or "local/repository"
        if comment is not None:
            return cls(
                repository=run.repository or repository,
                event=event.event,
                pr=comment.issue_number if comment.is_pull_request else None,
                pr_author=event.pr_author,
                default_branch=default_branch,
                head_sha="",
                comment=comment,
            )
        return cls(
            repository=repository,
            event=event.event,
            pr=event.pr if event.pr is not None else facts.pr,
            pr_author=event.pr_author,
            branch=event.branch,
            default_branch=default_branch,
            head_sha=event.head_sha or run.sha or "",
            base_sha=event.base_sha,
            run_id=event.run_id or run.run_id,
            run_attempt=event.run_attempt or run.run_attempt,
            job=run.job,
            workflow=event.workflow or run.workflow,
            findings=findings,
            input_problems=input_problems,
            changed_files=facts.changed_files,
            commits=facts.commits,
            revert_prs=facts.revert_prs,
            closed=closed,
            reviews_read=reviews_read,
            queue_base=event.queue_base,
            merged=closed and event.merged,
        )

    @property
    def job_key(self) -> str:
        """``workflow/job``, CI's (:mod:`gauntlet.jobkey`): the key its history is kept and compared under."""
        return f"{self.workflow}/{self.job}"

    @property
    def id(self) -> str:
        """The identity of the observation: delivering it again changes nothing."""
        if self.comment is not None:
            return f"comment:{self.comment.id}:{self.comment.action}"
        return f"{self.head_sha}:{self.run_id}:{self.run_attempt}:{self.job_key}"

    @property
    def review_only(self) -> bool:
        """A review event's run: it refreshes the report, is no CI run and spends no attempt (issue 30)."""
        return self.event in REVIEW_EVENTS

    @property
    def inside_run(self) -> bool:
        """Gauntlet is a step of the CI run it observes (a CI event, not ``workflow_run``, with a run id): the
        run is in progress, and GitHub reruns only completed runs, so Gauntlet cannot ask for its rerun."""
        ci_event = self.event != "workflow_run" and not self.review_only
        return ci_event and self.run_id.isdigit() and self.run_id != "0"

    @property
    def on_default_branch(self) -> bool:
        """True for a push or run on the repository's default branch (not a PR)."""
        return self.pr is None and self.branch == self.default_branch
