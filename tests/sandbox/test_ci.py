"""Check runs, commit statuses, workflow runs, jobs, logs, artifacts and re-runs."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable

import github
import pytest
import requests

from gauntlet.sandbox import JobSeed, Sandbox

Client = Callable[..., github.Github]

BOT = "github-actions[bot]"


def test_check_run_with_annotations(sandbox: Sandbox, client: Client, repo_name: str) -> None:
    repo = client(BOT).get_repo(repo_name)
    sha = sandbox.head(repo_name)
    annotations = [
        {"path": "src/app.py", "start_line": n, "end_line": n, "annotation_level": "failure", "message": f"m{n}"}
        for n in range(1, 51)
    ]
    check = repo.create_check_run(
        "gauntlet", sha, status="in_progress", output={"title": "t", "summary": "s", "annotations": annotations}
    )
    check.edit(
        conclusion="failure",
        output={"title": "t", "summary": "s2", "annotations": [{**annotations[0], "message": "last"}]},
    )
    again = repo.get_check_run(check.id)
    assert (again.status, again.conclusion, again.output.summary) == ("completed", "failure", "s2")
    assert again.output.annotations_count == 51
    assert len(list(again.get_annotations())) == 51
    assert [c.name for c in repo.get_commit(sha).get_check_runs()] == ["gauntlet"]
    assert list(repo.get_commit(sha).get_check_runs(check_name="other")) == []
    with pytest.raises(github.GithubException):
        repo.create_check_run("x", sha, output={"title": "t", "summary": "s", "annotations": annotations * 2})


def test_commit_statuses(sandbox: Sandbox, gh: github.Github, repo_name: str) -> None:
    commit = gh.get_repo(repo_name).get_commit(sandbox.head(repo_name))
    commit.create_status("pending", context="ci")
    commit.create_status("success", context="ci", description="ok")
    commit.create_status("failure", context="lint")
    assert [s.state for s in commit.get_statuses()] == ["failure", "success", "pending"]
    combined = commit.get_combined_status()
    assert combined.state == "failure" and combined.total_count == 2


def test_runs_jobs_logs_artifacts_and_rerun(sandbox: Sandbox, client: Client, repo_name: str) -> None:
    run = sandbox.seed_run(
        repo_name,
        jobs=[
            JobSeed(name="test", conclusion="failure", log="FAILED tests/test_x.py::test_y - assert 1 == 2\n"),
            JobSeed(name="lint", conclusion="success", log="All checks passed!\n"),
        ],
        artifacts={"findings": {"review.json": b'{"issues": []}'}},
    )
    repo = client(BOT).get_repo(repo_name)
    listed = repo.get_workflow_runs(branch="main")
    assert [r.id for r in listed] == [run.id]
    got = repo.get_workflow_run(run.id)
    assert (got.conclusion, got.status, got.head_sha) == ("failure", "completed", sandbox.head(repo_name))
    jobs = {j.name: j for j in got.jobs()}
    assert jobs["test"].conclusion == "failure"
    log_url = jobs["test"].logs_url()
    assert log_url.startswith(sandbox.url)
    assert "assert 1 == 2" in requests.get(log_url, timeout=5).text  # no token needed, as on GitHub
    (artifact,) = got.get_artifacts()
    raw = requests.get(
        artifact.archive_download_url, headers={"Authorization": f"token {BOT}"}, timeout=5, allow_redirects=True
    )
    assert zipfile.ZipFile(io.BytesIO(raw.content)).read("review.json") == b'{"issues": []}'
    assert got.rerun_failed_jobs()
    rerun = repo.get_workflow_run(run.id)
    assert (rerun.run_attempt, rerun.status, rerun.conclusion) == (2, "queued", None)
    assert sorted((j.name, j.conclusion) for j in rerun.jobs()) == [("lint", "success"), ("test", None)]
    sandbox.finish_jobs(repo_name, run.id, {"test": ("success", "1 passed\n")})
    assert repo.get_workflow_run(run.id).conclusion == "success"


def test_reading_runs_needs_no_write_but_rerun_does(sandbox: Sandbox, client: Client, repo_name: str) -> None:
    run = sandbox.seed_run(repo_name, jobs=[JobSeed(name="t", conclusion="failure")])
    reader = client("reader[bot]").get_repo(repo_name).get_workflow_run(run.id)
    assert not reader.rerun_failed_jobs()  # PyGithub turns the 403 into False
    assert sandbox.requests()[-1]["status"] == 403
