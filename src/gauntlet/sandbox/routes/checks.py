"""Check runs (with annotations) and commit statuses.

See https://docs.github.com/rest/checks/runs (annotations: at most 50 per request, appended on update) and
https://docs.github.com/rest/commits/statuses.
"""

from __future__ import annotations

from typing import Any

from gauntlet.sandbox.app import Context
from gauntlet.sandbox.http import Response, Router, found, paginate, validation_failed
from gauntlet.sandbox.store import CheckRun, Repo, Status, now_iso
from gauntlet.sandbox.views import ci as views

router = Router()
_CONCLUSIONS = ("action_required", "cancelled", "failure", "neutral", "success", "skipped", "stale", "timed_out")
_MAX_ANNOTATIONS = 50  # per request, as on GitHub


def _apply(run: CheckRun, body: dict[str, Any]) -> None:
    for field in ("name", "details_url", "external_id", "started_at", "completed_at"):
        if field in body:
            setattr(run, field, body[field])
    if "conclusion" in body:
        if body["conclusion"] not in _CONCLUSIONS:
            raise validation_failed(resource="CheckRun", code="invalid", field="conclusion")
        run.conclusion = body["conclusion"]
        run.status = "completed"
    if "status" in body:
        if body["status"] not in ("queued", "in_progress", "completed", "waiting", "requested", "pending"):
            raise validation_failed(resource="CheckRun", code="invalid", field="status")
        run.status = body["status"]
    if run.status == "completed":
        if run.conclusion is None:
            raise validation_failed("conclusion is required when status is completed", resource="CheckRun")
        run.completed_at = run.completed_at or now_iso()
    output = body.get("output")
    if isinstance(output, dict):
        run.title = output.get("title", run.title)
        run.summary = output.get("summary", run.summary)
        run.text = output.get("text", run.text)
        annotations = output.get("annotations") or []
        if len(annotations) > _MAX_ANNOTATIONS:
            raise validation_failed("Only 50 annotations may be sent per request", resource="CheckRun")
        for annotation in annotations:
            if not all(k in annotation for k in ("path", "start_line", "end_line", "annotation_level", "message")):
                raise validation_failed(resource="CheckRun", code="missing_field", field="annotations")
        # GitHub appends annotations on every update rather than replacing them.
        run.annotations.extend(annotations)


@router.add("POST", "/repos/{owner}/{repo}/check-runs")
def create_check_run(ctx: Context) -> Response:
    """Create a check run on a commit."""
    repo = ctx.repo("write")
    body = ctx.body()
    name, head_sha = body.get("name"), body.get("head_sha")
    if not isinstance(name, str) or not isinstance(head_sha, str):
        raise validation_failed(resource="CheckRun", code="missing_field", field="head_sha")
    if repo.git.object_type(head_sha) != "commit":
        raise validation_failed("No commit found for SHA: " + head_sha, resource="CheckRun")
    with ctx.store.lock:
        run = CheckRun(
            id=ctx.store.next_id(),
            name=name,
            head_sha=head_sha,
            status="queued",
            conclusion=None,
            started_at=now_iso(),
            completed_at=None,
            external_id=None,
            details_url=None,
        )
        _apply(run, body)
        repo.check_runs[run.id] = run
        return Response(status=201, body=views.check_run(ctx.base, repo, run))


def _get(ctx: Context, repo: Repo) -> CheckRun:
    return ctx.numbered(repo.check_runs, "check_run_id")


@router.add("GET", "/repos/{owner}/{repo}/check-runs/{check_run_id}")
def read_check_run(ctx: Context) -> Response:
    """One check run."""
    repo = ctx.repo()
    with ctx.store.lock:
        return Response(body=views.check_run(ctx.base, repo, _get(ctx, repo)))


@router.add("PATCH", "/repos/{owner}/{repo}/check-runs/{check_run_id}")
def update_check_run(ctx: Context) -> Response:
    """Update a check run (annotations accumulate)."""
    repo = ctx.repo("write")
    with ctx.store.lock:
        run = _get(ctx, repo)
        _apply(run, ctx.body())
        return Response(body=views.check_run(ctx.base, repo, run))


@router.add("GET", "/repos/{owner}/{repo}/check-runs/{check_run_id}/annotations")
def list_annotations(ctx: Context) -> Response:
    """Annotations of a check run."""
    repo = ctx.repo()
    with ctx.store.lock:
        run = _get(ctx, repo)
        page, links = paginate(ctx.request, run.annotations)
        return Response(body=[views.annotation(ctx.base, repo, run, a) for a in page], headers=links)


@router.add("GET", "/repos/{owner}/{repo}/commits/{ref}/check-runs")
def list_for_ref(ctx: Context) -> Response:
    """Check runs on a commit (branch names resolve); ``check_name`` and ``status`` filter."""
    repo = ctx.repo()
    sha = found(repo.git.resolve_commit(ctx.params["ref"]))
    query = ctx.request.query
    with ctx.store.lock:
        runs = [
            r
            for r in sorted(repo.check_runs.values(), key=lambda r: -r.id)
            if r.head_sha == sha
            and (not query.get("check_name") or r.name == query["check_name"])
            and (not query.get("status") or r.status == query["status"])
        ]
        page, links = paginate(ctx.request, runs)
        body = {"total_count": len(runs), "check_runs": [views.check_run(ctx.base, repo, r) for r in page]}
    return Response(body=body, headers=links)


@router.add("POST", "/repos/{owner}/{repo}/statuses/{sha}")
def create_status(ctx: Context) -> Response:
    """Set a commit status."""
    repo = ctx.repo("write")
    body = ctx.body()
    sha = ctx.params["sha"]
    if body.get("state") not in ("error", "failure", "pending", "success"):
        raise validation_failed(resource="Status", code="invalid", field="state")
    if repo.git.object_type(sha) != "commit":
        raise validation_failed("No commit found for SHA: " + sha, resource="Status")
    with ctx.store.lock:
        stamp = now_iso()
        status = Status(
            id=ctx.store.next_id(),
            sha=sha,
            state=body["state"],
            context=str(body.get("context") or "default"),
            description=body.get("description"),
            target_url=body.get("target_url"),
            creator=ctx.need_login(),
            created_at=stamp,
            updated_at=stamp,
        )
        repo.statuses.append(status)
        return Response(status=201, body=views.status(ctx.base, ctx.store, repo, status))


def _statuses(ctx: Context, repo: Repo) -> tuple[str, list[Status]]:
    sha = found(repo.git.resolve_commit(ctx.params["ref"]))
    return sha, [s for s in reversed(repo.statuses) if s.sha == sha]


@router.add("GET", "/repos/{owner}/{repo}/statuses/{ref}", documented_as="/repos/{owner}/{repo}/commits/{ref}/statuses")
@router.add("GET", "/repos/{owner}/{repo}/commits/{ref}/statuses")
def list_statuses(ctx: Context) -> Response:
    """Statuses of a commit, newest first."""
    repo = ctx.repo()
    with ctx.store.lock:
        _, items = _statuses(ctx, repo)
        page, links = paginate(ctx.request, items)
        return Response(body=[views.status(ctx.base, ctx.store, repo, s) for s in page], headers=links)


@router.add("GET", "/repos/{owner}/{repo}/commits/{ref}/status")
def combined_status(ctx: Context) -> Response:
    """The combined status: the latest per context; failure/error beats pending beats success."""
    from gauntlet.sandbox.views.repos import repository

    repo = ctx.repo()
    with ctx.store.lock:
        sha, items = _statuses(ctx, repo)
        latest: dict[str, Status] = {}
        for item in items:
            latest.setdefault(item.context, item)
        states = {s.state for s in latest.values()}
        state = (
            "failure"
            if states & {"failure", "error"}
            else "pending"
            if "pending" in states or not states
            else "success"
        )
        api = f"{ctx.base}/repos/{repo.full_name}"
        body = {
            "state": state,
            "statuses": [views.status(ctx.base, ctx.store, repo, s) for s in latest.values()],
            "sha": sha,
            "total_count": len(latest),
            "repository": repository(ctx.base, repo, ctx.store.user(repo.owner), ctx.login),
            "commit_url": f"{api}/commits/{sha}",
            "url": f"{api}/commits/{sha}/status",
        }
    return Response(body=body)
