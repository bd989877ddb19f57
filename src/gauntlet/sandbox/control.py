"""``/_sandbox/``: controls for tests and the demo. Production code never calls these.

| route | does |
|---|---|
| ``GET /_sandbox/requests`` / ``DELETE`` | the request log ``[{method, path, status}]`` / clear it |
| ``POST /_sandbox/faults`` | ``{rate, seed, latency_ms, kinds, retry_after, paths}`` |
| ``POST /_sandbox/repos`` | ``{full_name, files: {path: text}, private, default_branch}``: a repo with one commit |
| ``POST /_sandbox/repos/{owner}/{repo}/commits`` | ``{files: {path: text or null}, message, branch, author}`` |
| ``PUT /_sandbox/repos/{owner}/{repo}/permissions/{login}`` | ``{permission}`` without needing admin |
| ``PUT /_sandbox/repos/{owner}/{repo}/rules/{branch}`` | ``{rules: [{type, parameters}]}``: the branch's rules |
| ``POST /_sandbox/repos/{owner}/{repo}/runs`` | seed a workflow run: ``{name, head_branch, head_sha, event,
  jobs: [{name, conclusion, log, steps}], artifacts: {name: {file: text}}, pull_numbers}`` |
| ``POST /_sandbox/repos/{owner}/{repo}/runs/{run_id}/finish`` | ``{jobs: {name: [conclusion, log]}}`` |
| ``GET /_sandbox/logs/{token}``, ``GET /_sandbox/artifacts/{token}.zip`` | where 302s from the API lead |
"""

from __future__ import annotations

from typing import Any

from gauntlet.sandbox import seed
from gauntlet.sandbox.app import Context
from gauntlet.sandbox.artifacts import zip_files
from gauntlet.sandbox.faults import KINDS, Faults, FaultSettings
from gauntlet.sandbox.http import Response, Router, not_found, validation_failed
from gauntlet.sandbox.requestlog import RequestLog

router = Router()  # the routes that need only the store


@router.add("POST", "/_sandbox/repos")
def create_repo(ctx: Context) -> Response:
    body = ctx.body()
    try:
        repo = seed.create_repo(
            ctx.store,
            str(body["full_name"]),
            body.get("files"),
            private=bool(body.get("private", False)),
            default_branch=str(body.get("default_branch", "main")),
        )
    except (KeyError, ValueError) as exc:
        raise validation_failed(str(exc)) from exc
    return Response(status=201, body={"full_name": repo.full_name, "clone_url": f"{ctx.base}/{repo.full_name}.git"})


@router.add("POST", "/_sandbox/repos/{owner}/{repo}/commits")
def add_commit(ctx: Context) -> Response:
    body = ctx.body()
    full = f"{ctx.params['owner']}/{ctx.params['repo']}"
    try:
        sha = seed.commit(
            ctx.store,
            full,
            body.get("files") or {},
            str(body.get("message", "Change")),
            branch=body.get("branch"),
            author=body.get("author"),
        )
    except KeyError as exc:
        raise not_found() from exc
    return Response(status=201, body={"sha": sha})


@router.add("PUT", "/_sandbox/repos/{owner}/{repo}/permissions/{login}")
def permission(ctx: Context) -> Response:
    try:
        seed.set_permission(
            ctx.store,
            f"{ctx.params['owner']}/{ctx.params['repo']}",
            ctx.params["login"],
            str(ctx.body().get("permission", "write")),
        )
    except KeyError as exc:
        raise not_found() from exc
    except ValueError as exc:
        raise validation_failed(str(exc)) from exc
    return Response(status=204)


@router.add("PUT", "/_sandbox/repos/{owner}/{repo}/rules/{branch}")
def rules(ctx: Context) -> Response:
    found = ctx.body().get("rules")
    try:
        if not isinstance(found, list):
            raise ValueError("rules: expected a list")
        seed.set_rules(ctx.store, f"{ctx.params['owner']}/{ctx.params['repo']}", ctx.params["branch"], found)
    except KeyError as exc:
        raise not_found() from exc
    except ValueError as exc:
        raise validation_failed(str(exc)) from exc
    return Response(status=204)


@router.add("POST", "/_sandbox/repos/{owner}/{repo}/runs")
def add_run(ctx: Context) -> Response:
    body = ctx.body()
    try:
        run = seed.seed_run(ctx.store, f"{ctx.params['owner']}/{ctx.params['repo']}", run_seed(body))
    except KeyError as exc:
        raise not_found() from exc
    jobs = [{"id": j.id, "name": j.name} for j in run.jobs]
    artifacts = [{"id": a.id, "name": a.name} for a in run.artifacts]
    return Response(status=201, body={"id": run.id, "jobs": jobs, "artifacts": artifacts})


@router.add("POST", "/_sandbox/repos/{owner}/{repo}/runs/{run_id}/finish")
def finish(ctx: Context) -> Response:
    outcomes = {str(k): (str(v[0]), str(v[1])) for k, v in (ctx.body().get("jobs") or {}).items()}
    try:
        run = seed.finish_jobs(ctx.store, f"{ctx.params['owner']}/{ctx.params['repo']}", ctx.number("run_id"), outcomes)
    except KeyError as exc:
        raise not_found() from exc
    return Response(body={"id": run.id, "status": run.status, "conclusion": run.conclusion})


@router.add("GET", "/_sandbox/logs/{token}")
def job_log(ctx: Context) -> Response:
    with ctx.store.lock:
        job_id = ctx.store.log_tokens.get(ctx.params["token"])
        for repo in ctx.store.repos.values():
            job = ctx.store.find_job(repo, job_id or -1)
            if job is not None:
                return Response(raw=job.log.encode(), content_type="text/plain; charset=utf-8")
    raise not_found()


@router.add("GET", "/_sandbox/artifacts/{token}")
def artifact_zip(ctx: Context) -> Response:
    with ctx.store.lock:
        artifact_id = ctx.store.log_tokens.get(ctx.params["token"].removesuffix(".zip"))
        for repo in ctx.store.repos.values():
            artifact = ctx.store.find_artifact(repo, artifact_id or -1)
            if artifact is not None:
                return Response(raw=zip_files(artifact.files), content_type="application/zip")
    raise not_found()


def control_router(log: RequestLog, faults: Faults) -> Router:
    """The control routes, bound to the sandbox's request log and faults."""
    bound = Router()
    bound.extend(router)
    add = bound.add

    @add("GET", "/_sandbox/requests")
    def list_requests(ctx: Context) -> Response:
        return Response(body=log.entries())

    @add("DELETE", "/_sandbox/requests")
    def clear_requests(ctx: Context) -> Response:
        log.clear()
        return Response(status=204)

    @add("POST", "/_sandbox/faults")
    def set_faults(ctx: Context) -> Response:
        body = ctx.body()
        try:
            faults.configure(
                FaultSettings(
                    rate=float(body.get("rate", 0.0)),
                    seed=int(body.get("seed", 0)),
                    latency_ms=int(body.get("latency_ms", 0)),
                    kinds=tuple(body.get("kinds") or KINDS),
                    retry_after=int(body.get("retry_after", 1)),
                    paths=tuple(body.get("paths") or ()),
                )
            )
        except (TypeError, ValueError) as exc:
            raise validation_failed(str(exc)) from exc
        return Response(body={"rate": faults.settings.rate, "kinds": list(faults.settings.kinds)})

    return bound


def run_seed(body: dict[str, Any]) -> seed.RunSeed:
    """A ``RunSeed`` from the JSON a test posts."""
    jobs = [
        seed.JobSeed(
            name=str(j["name"]),
            conclusion=j.get("conclusion", "success"),
            log=str(j.get("log", "")),
            steps=tuple(j.get("steps") or ()),
        )
        for j in body.get("jobs") or []
    ]
    artifacts = {
        str(name): {str(p): (v.encode() if isinstance(v, str) else bytes(v)) for p, v in files.items()}
        for name, files in (body.get("artifacts") or {}).items()
    }
    return seed.RunSeed(
        name=str(body.get("name", "CI")),
        head_branch=body.get("head_branch"),
        head_sha=body.get("head_sha"),
        event=str(body.get("event", "push")),
        actor=body.get("actor"),
        jobs=jobs,
        artifacts=artifacts,
        pull_numbers=tuple(body.get("pull_numbers") or ()),
        path=str(body.get("path", ".github/workflows/ci.yml")),
    )
