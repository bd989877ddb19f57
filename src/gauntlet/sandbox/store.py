"""Everything the sandbox keeps in memory besides code: users, repositories, issues, pull requests, checks, runs.

Code lives in the bare repositories (``git.py``); this module holds only what GitHub keeps beside git. One lock
guards the whole store: the sandbox serves tests, where simple and correct beats fast.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gauntlet.sandbox.git import GitRepo

PERMISSIONS = ("none", "read", "triage", "write", "maintain", "admin")


def now_iso() -> str:
    """The current UTC time as GitHub writes it."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def permission_at_least(have: str, need: str) -> bool:
    """True when permission ``have`` includes ``need``."""
    return PERMISSIONS.index(have) >= PERMISSIONS.index(need)


@dataclass(kw_only=True)
class User:
    """A user, bot or organisation; the login is the token text."""

    id: int
    login: str
    type: str  # User | Bot | Organization
    created_at: str


@dataclass(kw_only=True)
class Reaction:
    """An emoji reaction on an issue or comment."""

    id: int
    user: str
    content: str
    created_at: str


@dataclass(kw_only=True)
class Comment:
    """An issue (or pull request conversation) comment."""

    id: int
    issue_number: int
    user: str
    body: str
    created_at: str
    updated_at: str
    reactions: list[Reaction] = field(default_factory=list)


@dataclass(kw_only=True)
class Label:
    """A repository label."""

    id: int
    name: str
    color: str
    description: str | None


@dataclass(kw_only=True)
class PullData:
    """What makes an issue a pull request."""

    head_ref: str
    head_repo: str  # "owner/name"
    head_sha: str
    base_ref: str
    base_sha: str
    draft: bool = False
    merged: bool = False
    merged_at: str | None = None
    merged_by: str | None = None
    merge_commit_sha: str | None = None
    requested_reviewers: list[str] = field(default_factory=list)


@dataclass(kw_only=True)
class Review:
    """A pull request review."""

    id: int
    pull_number: int
    user: str
    body: str
    state: str
    commit_id: str
    submitted_at: str


@dataclass(kw_only=True)
class ReviewComment:
    """A comment on a line of a pull request diff, as written: ``line`` of ``path`` at ``commit_id``.

    Where it sits on today's head (or that it is outdated) is worked out when it is read (``anchors.py``).
    """

    id: int
    pull_number: int
    user: str
    body: str
    path: str
    line: int
    #: The diff position when written (``original_position``).
    position: int
    side: str
    commit_id: str
    created_at: str
    updated_at: str
    review_id: int | None = None
    #: The thread's first comment, for a reply (GitHub has no replies to replies).
    in_reply_to: int | None = None


@dataclass(kw_only=True)
class Issue:
    """An issue; pull requests are issues with ``pull`` set, sharing the number sequence, as on GitHub."""

    id: int
    number: int
    title: str
    body: str | None
    user: str
    state: str = "open"
    state_reason: str | None = None
    labels: list[str] = field(default_factory=list)
    assignees: list[str] = field(default_factory=list)
    created_at: str
    updated_at: str
    closed_at: str | None = None
    #: Who closed it last (GitHub's ``closed_by``); how Gauntlet tells its own closes from a person's.
    closed_by: str | None = None
    pull: PullData | None = None
    reactions: list[Reaction] = field(default_factory=list)


@dataclass(kw_only=True)
class CheckRun:
    """A check run with its annotations (GitHub appends annotations on every update)."""

    id: int
    name: str
    head_sha: str
    status: str
    conclusion: str | None
    started_at: str | None
    completed_at: str | None
    external_id: str | None
    details_url: str | None
    title: str | None = None
    summary: str | None = None
    text: str | None = None
    annotations: list[dict[str, object]] = field(default_factory=list)


@dataclass(kw_only=True)
class Status:
    """A commit status."""

    id: int
    sha: str
    state: str
    context: str
    description: str | None
    target_url: str | None
    creator: str
    created_at: str
    updated_at: str


@dataclass(kw_only=True)
class Job:
    """A workflow job and its log."""

    id: int
    run_id: int
    name: str
    status: str
    conclusion: str | None
    log: str
    steps: list[dict[str, object]] = field(default_factory=list)
    started_at: str
    completed_at: str | None
    run_attempt: int = 1


@dataclass(kw_only=True)
class Artifact:
    """A workflow artifact: a zip archive built from ``files``."""

    id: int
    run_id: int
    name: str
    files: dict[str, bytes]
    created_at: str


@dataclass(kw_only=True)
class WorkflowRun:
    """A workflow run, seeded through ``/_sandbox/`` or the in-process helper."""

    id: int
    name: str
    head_branch: str | None
    head_sha: str
    event: str
    status: str
    conclusion: str | None
    actor: str
    created_at: str
    updated_at: str
    run_attempt: int = 1
    workflow_id: int = 1
    path: str = ".github/workflows/ci.yml"
    pull_numbers: list[int] = field(default_factory=list)
    jobs: list[Job] = field(default_factory=list)
    artifacts: list[Artifact] = field(default_factory=list)


@dataclass(kw_only=True)
class Repo:
    """A repository: a bare git repository plus what GitHub keeps beside it."""

    id: int
    owner: str
    name: str
    private: bool
    description: str | None
    default_branch: str
    git: GitRepo
    created_at: str
    collaborators: dict[str, str] = field(default_factory=dict)
    issues: dict[int, Issue] = field(default_factory=dict)
    comments: dict[int, Comment] = field(default_factory=dict)
    labels: dict[str, Label] = field(default_factory=dict)  # by lower-case name
    reviews: dict[int, Review] = field(default_factory=dict)
    review_comments: dict[int, ReviewComment] = field(default_factory=dict)
    check_runs: dict[int, CheckRun] = field(default_factory=dict)
    statuses: list[Status] = field(default_factory=list)
    runs: dict[int, WorkflowRun] = field(default_factory=dict)
    #: The active ruleset rules by branch name, each as REST gives it (``{"type", "parameters"}``; ``rules.py``).
    rules: dict[str, tuple[dict[str, Any], ...]] = field(default_factory=dict)
    next_number: int = 1
    # Pull request diff stats by (base sha, head sha): git objects never change, so neither do these.
    diff_stats: dict[tuple[str, str], dict[str, int]] = field(default_factory=dict)

    @property
    def full_name(self) -> str:
        """``owner/name``."""
        return f"{self.owner}/{self.name}"

    def permission(self, login: str | None) -> str:
        """The permission ``login`` has here (owner admin, else collaborator, else read if public)."""
        if login is not None and login.lower() == self.owner.lower():
            return "admin"
        if login is not None and login.lower() in self.collaborators:
            return self.collaborators[login.lower()]
        return "none" if self.private else "read"

    def take_number(self) -> int:
        """The next issue/pull request number."""
        number = self.next_number
        self.next_number += 1
        return number


class Store:
    """All sandbox state, with one lock and one id sequence (ids are unique across kinds, like GitHub's)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.lock = threading.RLock()
        self.users: dict[str, User] = {}
        self.repos: dict[str, Repo] = {}  # by lower-case "owner/name"
        self.log_tokens: dict[str, int] = {}
        self.rate_used: dict[str, int] = {}  # requests per login in the current hour, for X-RateLimit-*
        self.graphql_used: dict[str, int] = {}  # GraphQL points per login in the current hour, counted apart
        self.rate_hour = 0
        self._ids = itertools.count(1000)

    def load_existing(self) -> list[Repo]:
        """Adopt bare repositories already under ``root`` (``--data DIR`` kept from an earlier run).

        Only code survives a restart: issues, runs and permissions lived in memory.
        """
        found = []
        for path in sorted(self.root.glob("*/*.git")):
            owner, name = path.parent.name, path.name.removesuffix(".git")
            if self.repo(owner, name) is not None:
                continue
            git = GitRepo(path)
            head = git.run("symbolic-ref", "--short", "HEAD").decode().strip() or "main"
            self.user(owner)
            repo = Repo(
                id=self.next_id(),
                owner=owner,
                name=name,
                private=False,
                description=None,
                default_branch=head,
                git=git,
                created_at=now_iso(),
            )
            with self.lock:
                self.repos[f"{owner}/{name}".lower()] = repo
            found.append(repo)
        return found

    def next_id(self) -> int:
        """A fresh id."""
        with self.lock:
            return next(self._ids)

    def user(self, login: str, kind: str | None = None) -> User:
        """The user called ``login``, created on first sight (``[bot]`` suffix → ``Bot``)."""
        with self.lock:
            key = login.lower()
            found = self.users.get(key)
            if found is None:
                default = "Bot" if login.endswith("[bot]") else "User"
                found = User(id=self.next_id(), login=login, type=kind or default, created_at=now_iso())
                self.users[key] = found
            elif kind is not None:
                found.type = kind
            return found

    def repo(self, owner: str, name: str) -> Repo | None:
        """The repository ``owner/name`` (case-insensitive), or ``None``."""
        with self.lock:
            return self.repos.get(f"{owner}/{name}".lower())

    def create_repo(
        self,
        owner: str,
        name: str,
        *,
        private: bool = False,
        default_branch: str = "main",
        description: str | None = None,
    ) -> Repo:
        """Create an empty repository (the caller decides about an initial commit).

        :raises ValueError: when it already exists.
        """
        with self.lock:
            key = f"{owner}/{name}".lower()
            if key in self.repos:
                raise ValueError(f"{owner}/{name} already exists")
            self.user(owner)
            git = GitRepo.init(self.root / owner / f"{name}.git", default_branch)
            repo = Repo(
                id=self.next_id(),
                owner=self.users[owner.lower()].login,
                name=name,
                private=private,
                description=description,
                default_branch=default_branch,
                git=git,
                created_at=now_iso(),
            )
            self.repos[key] = repo
            return repo

    def find_job(self, repo: Repo, job_id: int) -> Job | None:
        """A job of any run of ``repo``."""
        for run in repo.runs.values():
            for job in run.jobs:
                if job.id == job_id:
                    return job
        return None

    def find_artifact(self, repo: Repo, artifact_id: int) -> Artifact | None:
        """An artifact of any run of ``repo``."""
        for run in repo.runs.values():
            for artifact in run.artifacts:
                if artifact.id == artifact_id:
                    return artifact
        return None
