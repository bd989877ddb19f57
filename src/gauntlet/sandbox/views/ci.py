"""JSON views of check runs, commit statuses, workflow runs, jobs and artifacts."""

from __future__ import annotations

from typing import Any

from gauntlet.sandbox.store import Artifact, CheckRun, Job, Repo, Status, Store, WorkflowRun
from gauntlet.sandbox.views.repos import api, node_id, repository, user


def check_run(base: str, repo: Repo, item: CheckRun) -> dict[str, Any]:
    """A ``check-run``."""
    url = f"{api(base, repo)}/check-runs/{item.id}"
    return {
        "id": item.id,
        "node_id": node_id("CR", item.id),
        "head_sha": item.head_sha,
        "external_id": item.external_id,
        "url": url,
        "html_url": f"{base}/{repo.full_name}/runs/{item.id}",
        "details_url": item.details_url,
        "status": item.status,
        "conclusion": item.conclusion,
        "started_at": item.started_at,
        "completed_at": item.completed_at,
        "name": item.name,
        "output": {
            "title": item.title,
            "summary": item.summary,
            "text": item.text,
            "annotations_count": len(item.annotations),
            "annotations_url": f"{url}/annotations",
        },
        "check_suite": {"id": item.id},
        "app": None,
        "pull_requests": [],
    }


def annotation(base: str, repo: Repo, item: CheckRun, raw: dict[str, Any]) -> dict[str, Any]:
    """A ``check-annotation``."""
    return {
        "path": raw.get("path"),
        "start_line": raw.get("start_line"),
        "end_line": raw.get("end_line"),
        "start_column": raw.get("start_column"),
        "end_column": raw.get("end_column"),
        "annotation_level": raw.get("annotation_level"),
        "title": raw.get("title"),
        "message": raw.get("message"),
        "raw_details": raw.get("raw_details"),
        "blob_href": f"{base}/{repo.full_name}/blob/{item.head_sha}/{raw.get('path')}",
    }


def status(base: str, store: Store, repo: Repo, item: Status) -> dict[str, Any]:
    """A ``status``."""
    return {
        "url": f"{api(base, repo)}/statuses/{item.sha}",
        "avatar_url": None,
        "id": item.id,
        "node_id": node_id("ST", item.id),
        "state": item.state,
        "description": item.description,
        "target_url": item.target_url,
        "context": item.context,
        "created_at": item.created_at,
        "updated_at": item.updated_at,
        "creator": user(base, store.user(item.creator)),
    }


def workflow_run(base: str, store: Store, repo: Repo, run: WorkflowRun, login: str | None) -> dict[str, Any]:
    """A ``workflow-run``."""
    url = f"{api(base, repo)}/actions/runs/{run.id}"
    actor = user(base, store.user(run.actor))
    repo_view = repository(base, repo, store.user(repo.owner), login)
    pulls = []
    for number in run.pull_numbers:
        issue = repo.issues.get(number)
        if issue is None or issue.pull is None:
            continue
        small_repo = {"id": repo.id, "url": api(base, repo), "name": repo.name}
        pulls.append(
            {
                "id": issue.id,
                "number": number,
                "url": f"{api(base, repo)}/pulls/{number}",
                "head": {"ref": issue.pull.head_ref, "sha": issue.pull.head_sha, "repo": small_repo},
                "base": {"ref": issue.pull.base_ref, "sha": issue.pull.base_sha, "repo": small_repo},
            }
        )
    return {
        "id": run.id,
        "name": run.name,
        "node_id": node_id("WFR", run.id),
        "head_branch": run.head_branch,
        "head_sha": run.head_sha,
        "path": run.path,
        "display_title": run.name,
        "run_number": run.id,
        "run_attempt": run.run_attempt,
        "event": run.event,
        "status": run.status,
        "conclusion": run.conclusion,
        "workflow_id": run.workflow_id,
        "check_suite_id": run.id,
        "url": url,
        "html_url": f"{base}/{repo.full_name}/actions/runs/{run.id}",
        "pull_requests": pulls,
        "created_at": run.created_at,
        "updated_at": run.updated_at,
        "run_started_at": run.created_at,
        "actor": actor,
        "triggering_actor": actor,
        "jobs_url": f"{url}/jobs",
        "logs_url": f"{url}/logs",
        "check_suite_url": f"{api(base, repo)}/check-suites/{run.id}",
        "artifacts_url": f"{url}/artifacts",
        "cancel_url": f"{url}/cancel",
        "rerun_url": f"{url}/rerun",
        "previous_attempt_url": f"{url}/attempts/{run.run_attempt - 1}" if run.run_attempt > 1 else None,
        "workflow_url": f"{api(base, repo)}/actions/workflows/{run.workflow_id}",
        "head_commit": None,
        "repository": repo_view,
        "head_repository": repo_view,
    }


def job(base: str, repo: Repo, run: WorkflowRun, item: Job) -> dict[str, Any]:
    """A ``job``."""
    return {
        "id": item.id,
        "run_id": run.id,
        "run_url": f"{api(base, repo)}/actions/runs/{run.id}",
        "run_attempt": item.run_attempt,
        "node_id": node_id("J", item.id),
        "head_sha": run.head_sha,
        "head_branch": run.head_branch,
        "url": f"{api(base, repo)}/actions/jobs/{item.id}",
        "html_url": f"{base}/{repo.full_name}/actions/runs/{run.id}/job/{item.id}",
        "status": item.status,
        "conclusion": item.conclusion,
        "created_at": item.started_at,
        "started_at": item.started_at,
        "completed_at": item.completed_at,
        "name": item.name,
        "steps": item.steps,
        "check_run_url": f"{api(base, repo)}/check-runs/{item.id}",
        "labels": ["ubuntu-latest"],
        "runner_id": None,
        "runner_name": None,
        "runner_group_id": None,
        "runner_group_name": None,
        "workflow_name": run.name,
    }


def artifact(base: str, repo: Repo, run: WorkflowRun, item: Artifact, size: int) -> dict[str, Any]:
    """An ``artifact``."""
    url = f"{api(base, repo)}/actions/artifacts/{item.id}"
    return {
        "id": item.id,
        "node_id": node_id("A", item.id),
        "name": item.name,
        "size_in_bytes": size,
        "url": url,
        "archive_download_url": f"{url}/zip",
        "expired": False,
        "created_at": item.created_at,
        "updated_at": item.created_at,
        "expires_at": None,
        "digest": None,
        "workflow_run": {
            "id": run.id,
            "repository_id": repo.id,
            "head_repository_id": repo.id,
            "head_branch": run.head_branch,
            "head_sha": run.head_sha,
        },
    }
