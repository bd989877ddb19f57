"""Seeding what only GitHub itself creates: repositories with history, workflow runs, jobs, logs, artifacts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gauntlet.sandbox.rules import normalised
from gauntlet.sandbox.store import PERMISSIONS, Artifact, Job, Repo, Store, WorkflowRun, now_iso
from gauntlet.sandbox.writes import commit_files


@dataclass(frozen=True, kw_only=True)
class JobSeed:
    """A job to seed: its conclusion (``None`` while running) and log text."""

    name: str
    conclusion: str | None = "success"
    log: str = ""
    steps: Sequence[str] = ()


@dataclass(frozen=True, kw_only=True)
class RunSeed:
    """A workflow run to seed; ``head_sha`` defaults to the head of ``head_branch`` (default branch)."""

    name: str = "CI"
    head_branch: str | None = None
    head_sha: str | None = None
    event: str = "push"
    actor: str | None = None
    jobs: Sequence[JobSeed] = ()
    artifacts: Mapping[str, Mapping[str, bytes]] = field(default_factory=dict)
    pull_numbers: Sequence[int] = ()
    path: str = ".github/workflows/ci.yml"


def _encode(files: Mapping[str, str | bytes | None]) -> dict[str, bytes | None]:
    return {p: (v.encode() if isinstance(v, str) else v) for p, v in files.items()}


def create_repo(
    store: Store,
    full_name: str,
    files: Mapping[str, str | bytes] | None = None,
    *,
    private: bool = False,
    default_branch: str = "main",
    message: str = "Initial commit",
) -> Repo:
    """Create ``owner/name`` with one commit holding ``files`` (a README when none are given)."""
    owner, _, name = full_name.partition("/")
    repo = store.create_repo(owner, name, private=private, default_branch=default_branch)
    commit_files(repo, default_branch, _encode(files or {"README.md": f"# {name}\n"}), message, owner)
    return repo


def commit(
    store: Store,
    full_name: str,
    files: Mapping[str, str | bytes | None],
    message: str,
    *,
    branch: str | None = None,
    author: str | None = None,
) -> str:
    """Commit ``files`` (``None`` deletes) on ``branch`` (a missing one starts at the default branch's head)."""
    repo = need_repo(store, full_name)
    with store.lock:
        start = repo.git.ref(f"refs/heads/{repo.default_branch}")
        target = branch or repo.default_branch
        return commit_files(repo, target, _encode(files), message, author or repo.owner, start=start)


def need_repo(store: Store, full_name: str) -> Repo:
    """The repository or ``KeyError``."""
    owner, _, name = full_name.partition("/")
    repo = store.repo(owner, name)
    if repo is None:
        raise KeyError(full_name)
    return repo


def set_permission(store: Store, full_name: str, login: str, permission: str) -> None:
    """Give ``login`` a collaborator permission (``none`` removes it)."""
    if permission not in PERMISSIONS:
        raise ValueError(f"unknown permission {permission!r}")
    repo = need_repo(store, full_name)
    user = store.user(login)
    with store.lock:
        if permission == "none":
            repo.collaborators.pop(user.login.lower(), None)
        else:
            repo.collaborators[user.login.lower()] = permission


def set_rules(store: Store, full_name: str, branch: str, rules: Sequence[Mapping[str, Any]]) -> None:
    """Make ``rules`` the active ruleset rules of ``branch`` (REST's ``{type, parameters}``; ``[]`` removes them).

    :raises KeyError: no such repository.
    :raises ValueError: a rule GitHub would not have (``rules.normalised``).
    """
    repo = need_repo(store, full_name)
    stored = normalised(rules)
    with store.lock:
        repo.rules[branch] = stored


def _conclusion(jobs: Sequence[Job]) -> str | None:
    if any(j.conclusion is None for j in jobs):
        return None
    for worst in ("failure", "timed_out", "cancelled"):
        if any(j.conclusion == worst for j in jobs):
            return worst
    return "success"


def seed_run(store: Store, full_name: str, seed: RunSeed) -> WorkflowRun:
    """Add a workflow run with its jobs, logs and artifacts; its conclusion follows the jobs'."""
    repo = need_repo(store, full_name)
    with store.lock:
        branch = seed.head_branch or repo.default_branch
        sha = seed.head_sha or repo.git.ref(f"refs/heads/{branch}")
        if sha is None:
            raise KeyError(f"{full_name}: no branch {branch}")
        stamp = now_iso()
        run_id = store.next_id()
        jobs = [
            Job(
                id=store.next_id(),
                run_id=run_id,
                name=j.name,
                status="completed" if j.conclusion else "in_progress",
                conclusion=j.conclusion,
                log=j.log,
                steps=[_step(n, i, j.conclusion) for i, n in enumerate(j.steps, 1)],
                started_at=stamp,
                completed_at=stamp if j.conclusion else None,
            )
            for j in seed.jobs
        ]
        conclusion = _conclusion(jobs) if jobs else "success"
        run = WorkflowRun(
            id=run_id,
            name=seed.name,
            head_branch=branch,
            head_sha=sha,
            event=seed.event,
            status="completed" if conclusion else "in_progress",
            conclusion=conclusion,
            actor=seed.actor or repo.owner,
            created_at=stamp,
            updated_at=stamp,
            path=seed.path,
            pull_numbers=list(seed.pull_numbers),
            jobs=jobs,
            artifacts=[
                Artifact(id=store.next_id(), run_id=run_id, name=n, files=dict(f), created_at=stamp)
                for n, f in seed.artifacts.items()
            ],
        )
        repo.runs[run.id] = run
        return run


def finish_jobs(store: Store, full_name: str, run_id: int, outcomes: Mapping[str, tuple[str, str]]) -> WorkflowRun:
    """Complete the latest attempt's jobs: ``name -> (conclusion, log)``; the run concludes when all have."""
    repo = need_repo(store, full_name)
    with store.lock:
        run = repo.runs[run_id]
        stamp = now_iso()
        current = [j for j in run.jobs if j.run_attempt == run.run_attempt]
        for job in current:
            if job.name in outcomes:
                job.conclusion, job.log = outcomes[job.name]
                job.status, job.completed_at = "completed", stamp
        conclusion = _conclusion(current)
        run.conclusion = conclusion
        run.status = "completed" if conclusion else "in_progress"
        run.updated_at = stamp
        return run


def _step(name: str, number: int, conclusion: str | None) -> dict[str, object]:
    return {
        "name": name,
        "status": "completed" if conclusion else "in_progress",
        "conclusion": conclusion,
        "number": number,
        "started_at": None,
        "completed_at": None,
    }
