"""Where Gauntlet runs (DESIGN §3, issue 29): the history is CI's, whichever setup each side uses.

Gauntlet runs as the last step of CI's ``test`` job on pull requests (``GITHUB_JOB=test``) and from a
``workflow_run`` workflow of its own on main (``GITHUB_JOB=gauntlet``, never recorded): both sides must
keep their runs under ``CI/test``, so a PR's failure after a green main is ``new``; the same CI run
reaching Gauntlet both ways is one observation.
"""

from __future__ import annotations

from typing import Any

from scenario import DEMO, REPO, Scenario, failing_ci

from gauntlet.action.entry import STEP_RERUN_NOTICE
from gauntlet.sandbox import JobSeed
from gauntlet.state.branch import BranchRecord

BROKEN = (DEMO / "pytest-main-broken.log").read_text(encoding="utf-8")
GREEN = (DEMO / "pytest-main-green.log").read_text(encoding="utf-8")
#: Gauntlet's own workflow (default-branch.yml): its job's name must never reach a record or a body.
OWN = {"workflow": "Gauntlet on main", "job": "gauntlet-own-job"}
WATCH = {"download_logs": "true", "logs": "", "findings": ""}
ONLY_LOGS = {"logs": "pytest.log", "findings": ""}


def _ci(world: Scenario, sha: str, conclusion: str, log: str, *, jobs: tuple[str, ...] = ("test",)) -> int:
    seeds = [JobSeed(name=name, conclusion=conclusion, log=log) for name in jobs]
    return world.sandbox.seed_run(REPO, jobs=seeds, head_branch="main", head_sha=sha, event="push").id


def _workflow_run(world: Scenario, run_id: int) -> dict[str, Any]:
    run = world.owner.get_repo(REPO).get_workflow_run(run_id)
    return {"action": "completed", "workflow_run": run.raw_data, "repository": _repository()}


def _push(sha: str) -> dict[str, Any]:
    return {"ref": "refs/heads/main", "after": sha, "repository": _repository()}


def _repository() -> dict[str, str]:
    return {"full_name": REPO, "default_branch": "main"}


def _everything_written(world: Scenario) -> str:
    """The state branch's files, and every comment, issue and check Gauntlet wrote, as one text."""
    repo = world.owner.get_repo(REPO)
    texts = [data.decode("utf-8", "replace") for data in world.state_files().values()]
    for issue in repo.get_issues(state="all"):
        texts += [issue.title, issue.body or "", *(c.body or "" for c in issue.get_comments())]
    for sha in {world.sandbox.head(REPO) or "", *(p.head.sha for p in repo.get_pulls(state="all"))}:
        texts += [c.output.summary or "" for c in world.check_runs(sha)]
    return "\n".join(texts)


def test_a_pr_failure_after_a_green_main_seen_from_workflow_run_is_new(world: Scenario) -> None:
    main = world.sandbox.head(REPO) or ""
    green = _ci(world, main, "success", GREEN)
    watched = world.run("workflow_run", _workflow_run(world, green), inputs=WATCH, run_id=9001, **OWN)
    assert watched.code == 0, watched.error

    number, sha = world.open_pr("break", {"calc.py": "def add(a, b):\n    return a * b\n"})
    pr = world.run("pull_request", world.pull_request_event(number, sha, "opened"), files=failing_ci(1), run_id=20)

    assert pr.code == 0, pr.error
    counts = pr.report["provenance"]["counts"]
    assert counts["new"] >= 3 and counts["unknown"] == 0, counts
    branch = BranchRecord.model_validate_json(world.state_file("v1/branches/main.json") or b"")
    assert {r.job for r in branch.runs} == {"CI/test"}, "main's run is CI's job, not Gauntlet's"
    record = world.pr_record(number)
    assert record is not None and {t.job for t in record.outcomes.tests} == {"CI/test"}
    written = _everything_written(world)
    assert OWN["job"] not in written and OWN["workflow"] not in written


def test_a_whole_ci_run_seen_from_workflow_run_covers_the_job_a_step_ran_in(world: Scenario) -> None:
    main = world.sandbox.head(REPO) or ""
    green = _ci(world, main, "success", GREEN, jobs=("test", "lint"))
    watched = world.run("workflow_run", _workflow_run(world, green), inputs=WATCH, run_id=9001, **OWN)
    assert watched.code == 0, watched.error
    branch = BranchRecord.model_validate_json(world.state_file("v1/branches/main.json") or b"")
    assert [r.job for r in branch.runs] == ["CI/lint+test"]

    number, sha = world.open_pr("break", {"calc.py": "def add(a, b):\n    return a * b\n"})
    pr = world.run("pull_request", world.pull_request_event(number, sha, "opened"), files=failing_ci(1), run_id=20)
    counts = pr.report["provenance"]["counts"]
    assert counts["new"] >= 3 and counts["unknown"] == 0, counts


def test_one_ci_run_reaching_gauntlet_as_a_step_and_from_workflow_run_is_one_observation(world: Scenario) -> None:
    culprit = world.sandbox.commit(REPO, {"calc.py": "def add(a, b):\n    return a * b\n"}, "Multiply instead")
    red = _ci(world, culprit, "failure", BROKEN)
    step = world.run("push", _push(culprit), files={"pytest.log": BROKEN}, inputs={"findings": ""}, run_id=red)
    assert step.code == 0, step.error
    before = world.state_files()

    watched = world.run("workflow_run", _workflow_run(world, red), inputs=WATCH, run_id=9001, **OWN)

    assert watched.code == 0, watched.error
    branch = BranchRecord.model_validate_json(world.state_file("v1/branches/main.json") or b"")
    assert len(branch.runs) == 1, [r.observation for r in branch.runs]
    assert len(branch.breakages) <= 1
    done = {(e["type"], e["status"]) for e in watched.report["effects"] if e["type"] != "write_summary"}
    # The one thing the step could not do, the run seen from workflow_run does: ask for the confirming rerun.
    assert ("rerun_failed_jobs", "skipped") in {(e["type"], e["status"]) for e in step.report["effects"]}
    assert ("rerun_failed_jobs", "created") in done
    assert not {t for t, s in done if s in ("created", "updated", "performed") and t != "rerun_failed_jobs"}, done
    assert len(world.check_runs(culprit)) <= 1, "no second check on the commit"
    assert world.state_files() == before, "the second delivery changed nothing"

    again = world.run("workflow_run", _workflow_run(world, red), inputs=WATCH, run_id=9001, **OWN)
    assert again.code == 0, again.error
    reruns = [e["status"] for e in again.report["effects"] if e["type"] == "rerun_failed_jobs"]
    assert reruns in ([], ["unchanged"]), "a redelivery never asks GitHub twice"
    asked = world.requests("POST", f"/actions/runs/{red}/rerun-failed-jobs")
    assert len(asked) == 1


def test_a_ci_run_that_lists_no_jobs_is_refused_and_nothing_stored_is_lost(world: Scenario) -> None:
    main = world.sandbox.head(REPO) or ""
    green = _ci(world, main, "success", GREEN)
    assert world.run("workflow_run", _workflow_run(world, green), inputs=WATCH, run_id=9001, **OWN).code == 0
    before = world.state_files()
    empty = world.sandbox.seed_run(REPO, jobs=[], head_branch="main", head_sha=main, event="push").id

    refused = world.run("workflow_run", _workflow_run(world, empty), inputs=WATCH, run_id=9002, **OWN)

    assert refused.code == 2
    assert "lists no jobs" in refused.error
    assert world.state_files() == before


def test_an_input_glob_that_matches_nothing_is_loud_and_the_check_is_not_green(world: Scenario) -> None:
    number, sha = world.open_pr("docs", {"README.md": "# app\n\nMore words.\n"})
    event = world.pull_request_event(number, sha, "opened")
    typo = world.run(
        "pull_request", event, files={"pytest.log": GREEN}, inputs={**ONLY_LOGS, "logs": "pytset.log,/etc/hostname"}
    )

    assert typo.code == 0, typo.error
    assert "::warning title=Gauntlet could not read an input::input `logs`: the pattern `pytset.log`" in typo.stdout
    problems = {p["path"]: p for p in typo.report["input_problems"]}
    assert problems["pytset.log"]["misconfigured"] and "matches no file" in problems["pytset.log"]["message"]
    assert "outside the workspace" in problems["/etc/hostname"]["message"]
    [check] = world.check_runs(sha)
    assert check.conclusion == "neutral"
    assert "misconfigured" in check.output.title and "pytset.log" in (check.output.summary or "")
    assert "**The check is neutral**: an input is misconfigured" in world.comments(number)[0].body

    fixed = world.run("pull_request", event, files={"pytest.log": GREEN}, inputs=ONLY_LOGS, run_id=101)
    assert fixed.report["input_problems"] == []
    assert [c.conclusion for c in world.check_runs(sha)] == ["success"]


def test_a_step_that_cannot_rerun_its_own_run_says_so_once_with_the_fix(world: Scenario) -> None:
    main = world.sandbox.head(REPO) or ""
    green = _ci(world, main, "success", GREEN)
    assert world.run("workflow_run", _workflow_run(world, green), inputs=WATCH, run_id=9001, **OWN).code == 0
    number, sha = world.open_pr("break", {"calc.py": "def add(a, b):\n    return a * b\n"})

    step = world.run("pull_request", world.pull_request_event(number, sha, "opened"), files=failing_ci(1), run_id=20)

    [rerun] = [e for e in step.report["effects"] if e["type"] == "rerun_failed_jobs"]
    assert rerun["status"] == "skipped", "GitHub reruns only completed runs: never asked"
    assert step.summary.count(STEP_RERUN_NOTICE) == 1
    assert "workflow_run" in STEP_RERUN_NOTICE and f"::notice title=Gauntlet::{STEP_RERUN_NOTICE}" in step.stdout


def test_from_workflow_run_a_new_pr_failure_is_rerun_and_nothing_is_said(world: Scenario) -> None:
    number, sha = world.open_pr("break", {"calc.py": "def add(a, b):\n    return a * b\n"})
    seeds = [JobSeed(name="test", conclusion="failure", log=(DEMO / "pytest-iteration-1.log").read_text())]
    ci = world.sandbox.seed_run(REPO, jobs=seeds, head_branch="break", head_sha=sha, event="pull_request").id
    event = _workflow_run(world, ci)
    event["workflow_run"]["pull_requests"] = [{"number": number}]

    watched = world.run("workflow_run", event, inputs=WATCH, run_id=9001, **OWN)

    assert watched.code == 0, watched.error
    [rerun] = [e for e in watched.report["effects"] if e["type"] == "rerun_failed_jobs"]
    assert rerun["status"] == "created"
    assert STEP_RERUN_NOTICE not in watched.summary
    assert world.owner.get_repo(REPO).get_workflow_run(ci).run_attempt == 2
