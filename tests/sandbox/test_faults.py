"""Injected faults, latency and the request log."""

from __future__ import annotations

import time
from collections.abc import Callable

import github
import pytest
import requests

from gauntlet.sandbox import Sandbox

Client = Callable[..., github.Github]

REPO = "octo/app"

AUTH = {"Authorization": "token octo"}


def statuses(sandbox: Sandbox, count: int) -> list[int]:
    """Status codes of ``count`` plain GETs (0 for a dropped connection)."""
    seen = []
    for _ in range(count):
        try:
            seen.append(requests.get(f"{sandbox.url}/repos/{REPO}", headers=AUTH, timeout=5).status_code)
        except requests.ConnectionError:
            seen.append(0)
    return seen


def test_faults_are_seeded_and_shaped_like_github(sandbox: Sandbox, repo_name: str) -> None:
    sandbox.set_faults(0.5, seed=7)
    first = statuses(sandbox, 60)
    sandbox.set_faults(0.5, seed=7)
    assert statuses(sandbox, 60) == first  # same seed, same faults
    assert {200, 500, 502, 503, 403, 429, 0} <= set(first)
    sandbox.set_faults(1.0, kinds=["403"], retry_after=3)
    limited = requests.get(f"{sandbox.url}/repos/{REPO}", headers=AUTH, timeout=5)
    assert limited.status_code == 403 and limited.headers["Retry-After"] == "3"
    assert "secondary rate limit" in limited.json()["message"]
    assert "X-RateLimit-Remaining" in limited.headers
    sandbox.set_faults(1.0, kinds=["429"])
    assert requests.get(f"{sandbox.url}/repos/{REPO}", headers=AUTH, timeout=5).status_code == 429
    sandbox.set_faults(0.0)
    assert statuses(sandbox, 3) == [200, 200, 200]


def test_faults_through_the_control_route_and_the_cli_switches(sandbox: Sandbox, repo_name: str) -> None:
    body = {"rate": 1.0, "kinds": ["502"], "paths": ["/repos/octo/app/issues"]}
    assert requests.post(f"{sandbox.url}/_sandbox/faults", json=body, timeout=5).status_code == 200
    assert requests.get(f"{sandbox.url}/repos/{REPO}/issues", headers=AUTH, timeout=5).status_code == 502
    assert requests.get(f"{sandbox.url}/repos/{REPO}", headers=AUTH, timeout=5).status_code == 200
    bad = requests.post(f"{sandbox.url}/_sandbox/faults", json={"rate": 2, "kinds": ["teapot"]}, timeout=5)
    assert bad.status_code == 422
    with Sandbox.start(fault_rate=1.0, seed=1, latency_ms=30) as slow:
        started = time.monotonic()
        assert statuses(slow, 2) != [200, 200]
        assert time.monotonic() - started >= 0.06


def test_pygithub_retries_through_faults(sandbox: Sandbox, repo_name: str) -> None:
    sandbox.set_faults(0.3, seed=3, kinds=["500", "502", "503"])
    retrying = github.Github(
        base_url=sandbox.url,
        auth=github.Auth.Token("octo"),
        seconds_between_requests=0,
        seconds_between_writes=0,
        retry=github.GithubRetry(total=10, backoff_factor=0.001, status_forcelist=[500, 502, 503]),
    )
    repo = retrying.get_repo(repo_name)
    for n in range(5):
        repo.get_issues(state="all").totalCount  # noqa: B018 - the call is the point
        assert n >= 0
    assert any(e["status"] >= 500 for e in sandbox.requests())


def test_request_log_counts_calls(sandbox: Sandbox, client: Client, repo_name: str) -> None:
    gh = client()
    sandbox.clear_requests()
    repo = gh.get_repo(repo_name)
    repo.create_issue("x")
    with pytest.raises(github.UnknownObjectException):
        repo.get_issue(99)
    log = requests.get(f"{sandbox.url}/_sandbox/requests", timeout=5).json()
    assert [(e["method"], e["path"], e["status"]) for e in log] == [
        ("GET", "/repos/octo/app", 200),
        ("POST", "/repos/octo/app/issues", 201),
        ("GET", "/repos/octo/app/issues/99", 404),
    ]
    assert requests.delete(f"{sandbox.url}/_sandbox/requests", timeout=5).status_code == 204
    assert requests.get(f"{sandbox.url}/_sandbox/requests", timeout=5).json() == []


def test_control_routes_seed_everything(sandbox: Sandbox, client: Client) -> None:
    base = f"{sandbox.url}/_sandbox"
    made = requests.post(f"{base}/repos", json={"full_name": "demo/app", "files": {"a.py": "x = 1\n"}}, timeout=5)
    assert made.status_code == 201 and made.json()["clone_url"] == f"{sandbox.url}/demo/app.git"
    sha = requests.post(
        f"{base}/repos/demo/app/commits", json={"files": {"b.py": "y\n"}, "message": "B", "branch": "b"}, timeout=5
    ).json()["sha"]
    assert sandbox.head("demo/app", "b") == sha
    assert requests.put(f"{base}/repos/demo/app/permissions/bot[bot]", json={"permission": "write"}, timeout=5).ok
    run = requests.post(
        f"{base}/repos/demo/app/runs",
        json={"head_branch": "b", "jobs": [{"name": "test", "conclusion": None}], "artifacts": {"f": {"r.json": "[]"}}},
        timeout=5,
    ).json()
    gh = client("bot[bot]")
    assert gh.get_repo("demo/app").get_workflow_run(run["id"]).status == "in_progress"
    done = requests.post(
        f"{base}/repos/demo/app/runs/{run['id']}/finish", json={"jobs": {"test": ["failure", "E boom"]}}, timeout=5
    ).json()
    assert done["conclusion"] == "failure"
    assert gh.get_repo("demo/app").get_collaborator_permission("bot[bot]") == "write"
