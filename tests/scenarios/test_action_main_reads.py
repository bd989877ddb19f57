"""Default-branch runs through the action read only what their state says they need (issue 21).

A green run of a push reads its own commit only (no history), no PR and no job listing; the red run that opens a
revert PR reads the culprit once, no tree, and lists no PR; a redelivery of it opens nothing.
"""

from __future__ import annotations

from typing import Any

from scenario import DEMO, REPO, Scenario

from gauntlet.sandbox import JobSeed

BROKEN = (DEMO / "pytest-main-broken.log").read_text(encoding="utf-8")
GREEN = (DEMO / "pytest-main-green.log").read_text(encoding="utf-8")
INPUTS = {"download_logs": "true", "logs": "", "findings": ""}


def _event(world: Scenario, run_id: int) -> dict[str, Any]:
    run = world.owner.get_repo(REPO).get_workflow_run(run_id)
    repository = {"full_name": REPO, "default_branch": "main"}
    return {"action": "completed", "workflow_run": run.raw_data, "repository": repository}


def _ci(world: Scenario, sha: str, conclusion: str, log: str) -> int:
    job = JobSeed(name="test", conclusion=conclusion, log=log)
    return world.sandbox.seed_run(REPO, jobs=[job], head_branch="main", head_sha=sha, event="push").id


def _reads(requests: list[dict[str, Any]], fragment: str) -> list[str]:
    """The GETs whose path contains ``fragment`` (the check run's listing is the check's, not the history's)."""
    paths = [r["path"] for r in requests if r["method"] == "GET" and fragment in r["path"]]
    return [p for p in paths if not p.endswith("/check-runs")]


def test_a_green_push_reads_no_history_and_a_revert_reads_the_culprit_once(world: Scenario) -> None:
    good = world.sandbox.head(REPO) or ""
    run = _ci(world, good, "success", GREEN)
    world.sandbox.clear_requests()
    green = world.run("workflow_run", _event(world, run), inputs=INPUTS, run_id=9001)
    assert green.code == 0, green.error
    seen = world.sandbox.requests()
    assert _reads(seen, "/commits/") == [f"/repos/{REPO}/commits/{good}"], "its own commit: no history"
    assert _reads(seen, "/pulls") == []
    # One listing of the CI run's jobs: they name what the run is kept under, never Gauntlet's own job.
    assert _reads(seen, "/jobs") == [f"/repos/{REPO}/actions/runs/{run}/jobs"]

    culprit = world.sandbox.commit(REPO, {"calc.py": "def add(a, b):\n    return a * b\n"}, "Multiply instead")
    red = _ci(world, culprit, "failure", BROKEN)
    reverted = world.run("workflow_run", _event(world, red), inputs=INPUTS, run_id=9002)
    for attempt in range(2, 6):  # a failing test is confirmed by its reruns failing too (DESIGN §3)
        assert reverted.code == 0, reverted.error
        if "rerun_failed_jobs" not in [e["type"] for e in reverted.report["effects"]]:
            break
        world.sandbox.finish_jobs(REPO, red, {"test": ("failure", BROKEN)})
        world.sandbox.clear_requests()
        reverted = world.run("workflow_run", _event(world, red), inputs=INPUTS, run_id=9002 + attempt)
    assert "open_revert_pr" in [e["type"] for e in reverted.report["effects"]]
    seen = world.sandbox.requests()
    [pull] = list(world.owner.get_repo(REPO).get_pulls(state="all"))
    assert pull.head.ref == f"gauntlet/revert-{culprit[:12]}"
    assert world.file_at("calc.py", pull.head.sha) == world.file_at("calc.py", good)
    assert _reads(seen, f"/commits/{culprit}") == [f"/repos/{REPO}/commits/{culprit}"], "the culprit, once"
    assert _reads(seen, "/git/trees") == [] and _reads(seen, "/git/commits") == []
    assert not [p for p in _reads(seen, "/pulls") if p.endswith("/pulls")], "no PR is listed"

    again = world.run("workflow_run", _event(world, red), inputs=INPUTS, run_id=9002 + attempt)
    assert again.code == 0, again.error
    assert [p.number for p in world.owner.get_repo(REPO).get_pulls(state="all")] == [pull.number]


def test_a_branch_run_looks_no_check_run_up_on_a_commit_its_record_has_not_seen(world: Scenario) -> None:
    """The first run on a commit creates its check run unasked; any later one finds it in the branch record."""
    good = world.sandbox.head(REPO) or ""
    run = _ci(world, good, "success", GREEN)
    world.sandbox.clear_requests()
    first = world.run("workflow_run", _event(world, run), inputs=INPUTS, run_id=9101)
    assert first.code == 0, first.error
    listings = [r for r in world.sandbox.requests() if r["method"] == "GET" and r["path"].endswith("/check-runs")]
    assert listings == [], "nothing to look up: no run served this commit"

    world.sandbox.clear_requests()
    again = world.run("workflow_run", _event(world, run), inputs=INPUTS, run_id=9101)  # delivered twice
    assert again.code == 0, again.error
    seen = world.sandbox.requests()
    assert not [r for r in seen if r["method"] == "POST" and r["path"].endswith("/check-runs")], "posted once"
    assert not [r for r in seen if r["method"] == "GET" and r["path"].endswith("/check-runs")], "the record names it"
    checks = list(world.owner.get_repo(REPO).get_commit(good).get_check_runs())
    assert [c.name for c in checks] == ["Gauntlet"]
