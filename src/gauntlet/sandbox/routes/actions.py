"""Workflow runs, jobs, job logs, artifacts and re-runs (runs are seeded through ``/_sandbox/``).

See https://docs.github.com/rest/actions/workflow-runs and
https://docs.github.com/rest/actions/workflow-jobs#download-job-logs-for-a-workflow-run (the 302).
"""

from __future__ import annotations

import secrets

from gauntlet.sandbox.app import Context
from gauntlet.sandbox.artifacts import zip_files
from gauntlet.sandbox.http import ApiError, Response, Router, found, not_found, paginate
from gauntlet.sandbox.store import Repo, WorkflowRun, now_iso
from gauntlet.sandbox.views import ci as views

router = Router()


def _run(ctx: Context, repo: Repo) -> WorkflowRun:
    return ctx.numbered(repo.runs, "run_id")


def _short_lived_redirect(ctx: Context, item_id: int, template: str) -> Response:
    """302 to ``/_sandbox/`` + ``template`` (with ``{token}``): a fresh token stands for ``item_id``.

    GitHub's download URLs need no token and expire, so tests see clients follow them without authorising;
    callers hold the store lock, which guards the token table.
    """
    token = secrets.token_urlsafe(16)
    ctx.store.log_tokens[token] = item_id
    location = f"{ctx.base}/_sandbox/" + template.format(token=token)
    return Response(status=302, headers={"Location": location}, raw=b"")


@router.add("GET", "/repos/{owner}/{repo}/actions/runs")
def list_runs(ctx: Context) -> Response:
    """Runs, newest first; ``branch``, ``event``, ``status`` (status or conclusion) and ``head_sha`` filter."""
    repo = ctx.repo()
    query = ctx.request.query
    with ctx.store.lock:
        runs = [
            r
            for r in sorted(repo.runs.values(), key=lambda r: -r.id)
            if (not query.get("branch") or r.head_branch == query["branch"])
            and (not query.get("event") or r.event == query["event"])
            and (not query.get("head_sha") or r.head_sha == query["head_sha"])
            and (not query.get("status") or query["status"] in (r.status, r.conclusion))
        ]
        page, links = paginate(ctx.request, runs)
        body = {
            "total_count": len(runs),
            "workflow_runs": [views.workflow_run(ctx.base, ctx.store, repo, r, ctx.login) for r in page],
        }
    return Response(body=body, headers=links)


@router.add("GET", "/repos/{owner}/{repo}/actions/runs/{run_id}")
def read_run(ctx: Context) -> Response:
    """One run."""
    repo = ctx.repo()
    with ctx.store.lock:
        return Response(body=views.workflow_run(ctx.base, ctx.store, repo, _run(ctx, repo), ctx.login))


@router.add("GET", "/repos/{owner}/{repo}/actions/runs/{run_id}/jobs")
def list_jobs(ctx: Context) -> Response:
    """Jobs of the latest attempt (``filter=all``: of every attempt)."""
    repo = ctx.repo()
    with ctx.store.lock:
        run = _run(ctx, repo)
        jobs = (
            run.jobs
            if ctx.request.query.get("filter") == "all"
            else [j for j in run.jobs if j.run_attempt == run.run_attempt]
        )
        page, links = paginate(ctx.request, jobs)
        body = {"total_count": len(jobs), "jobs": [views.job(ctx.base, repo, run, j) for j in page]}
    return Response(body=body, headers=links)


@router.add("GET", "/repos/{owner}/{repo}/actions/jobs/{job_id}")
def read_job(ctx: Context) -> Response:
    """One job."""
    repo = ctx.repo()
    with ctx.store.lock:
        job = found(ctx.store.find_job(repo, ctx.number("job_id")))
        return Response(body=views.job(ctx.base, repo, repo.runs[job.run_id], job))


@router.add("GET", "/repos/{owner}/{repo}/actions/jobs/{job_id}/logs")
def job_logs(ctx: Context) -> Response:
    """302 to a short-lived log URL that needs no token, as GitHub does."""
    repo = ctx.repo()
    with ctx.store.lock:
        job = found(ctx.store.find_job(repo, ctx.number("job_id")))
        return _short_lived_redirect(ctx, job.id, "logs/{token}")


@router.add("GET", "/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts")
def list_artifacts(ctx: Context) -> Response:
    """Artifacts of a run."""
    repo = ctx.repo()
    with ctx.store.lock:
        run = _run(ctx, repo)
        page, links = paginate(ctx.request, run.artifacts)
        body = {
            "total_count": len(run.artifacts),
            "artifacts": [views.artifact(ctx.base, repo, run, a, len(zip_files(a.files))) for a in page],
        }
    return Response(body=body, headers=links)


@router.add("GET", "/repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}")
def download_artifact(ctx: Context) -> Response:
    """302 to the artifact's zip on the sandbox (only ``zip`` exists)."""
    repo = ctx.repo()
    if ctx.params["archive_format"] != "zip":
        raise not_found()
    with ctx.store.lock:
        artifact = found(ctx.store.find_artifact(repo, ctx.number("artifact_id")))
        return _short_lived_redirect(ctx, artifact.id, "artifacts/{token}.zip")


@router.add("POST", "/repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs")
def rerun_failed(ctx: Context) -> Response:
    """Start a new attempt: failed jobs queue again, the others carry over (as on GitHub)."""
    from dataclasses import replace

    repo = ctx.repo("write")
    with ctx.store.lock:
        run = _run(ctx, repo)
        if run.status != "completed":
            raise ApiError(403, "This workflow run is not completed")
        current = [j for j in run.jobs if j.run_attempt == run.run_attempt]
        if not any(j.conclusion in ("failure", "cancelled", "timed_out") for j in current):
            raise ApiError(403, "This workflow run has no failed jobs")
        run.run_attempt += 1
        stamp = now_iso()
        for job in current:
            failed = job.conclusion in ("failure", "cancelled", "timed_out")
            run.jobs.append(
                replace(
                    job,
                    id=ctx.store.next_id(),
                    run_attempt=run.run_attempt,
                    status="queued" if failed else job.status,
                    conclusion=None if failed else job.conclusion,
                    log="" if failed else job.log,
                    started_at=stamp if failed else job.started_at,
                    completed_at=None if failed else job.completed_at,
                )
            )
        run.status, run.conclusion, run.updated_at = "queued", None, stamp
    return Response(status=201, body={})
