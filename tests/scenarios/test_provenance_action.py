"""Provenance through the action on the sandbox: a failure already red on main does not fail a PR's check."""

from __future__ import annotations

from scenario import REPO, Scenario, failing_ci

from gauntlet.state.branch import BranchRecord


def push(sha: str) -> dict[str, object]:
    return {"ref": "refs/heads/main", "after": sha, "repository": {"full_name": REPO, "default_branch": "main"}}


def test_a_failure_already_on_main_is_reported_but_does_not_fail_the_pr(world: Scenario) -> None:
    main = world.sandbox.head(REPO) or ""
    red = world.run("push", push(main), files=failing_ci(1), run_id=10)
    assert red.code == 0, red.error
    data = world.state_file("v1/branches/main.json")
    assert data is not None and BranchRecord.model_validate_json(data).outcomes.tests, "main's outcomes are kept"

    number, sha = world.open_pr("docs", {"README.md": "# app\n\nMore words.\n"})
    pr = world.run("pull_request", world.pull_request_event(number, sha, "opened"), files=failing_ci(1), run_id=20)

    assert pr.code == 0, pr.error
    counts = pr.report["provenance"]["counts"]
    assert counts["preexisting"] >= 3 and counts["new"] == 0 and counts["unknown"] == 0, counts
    assert [c.conclusion for c in world.check_runs(sha)] == ["success"]
    [comment] = world.comments(number)
    assert "Already failing on the default branch" in comment.body
    assert "does not fail the check" in comment.body
    assert "rerun_failed_jobs" not in {e["type"] for e in pr.report["effects"]}, "nothing new to tell from a flake"
    record = world.pr_record(number)
    assert record is not None and record.outcomes.tests, "the PR's own outcomes are kept in its file"


def test_a_failure_new_in_the_pr_fails_the_check_and_counts_as_new(world: Scenario) -> None:
    main = world.sandbox.head(REPO) or ""
    green = world.run("push", push(main), files={}, run_id=10)
    assert green.code == 0, green.error

    number, sha = world.open_pr("break", {"calc.py": "def add(a, b):\n    return a * b\n"})
    pr = world.run("pull_request", world.pull_request_event(number, sha, "opened"), files=failing_ci(1), run_id=20)

    assert pr.code == 0, pr.error
    assert pr.report["provenance"]["counts"]["new"] >= 3
    assert [c.conclusion for c in world.check_runs(sha)] == ["failure"]
    assert "**Yours** (3)" in world.comments(number)[0].body
