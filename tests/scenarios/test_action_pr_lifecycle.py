"""A PR's lifecycle through the Action (issue 30, item 5): every issue Gauntlet filed about a PR closes, with a
comment saying why, when the PR is merged or closed; a redelivered close does nothing more."""

from __future__ import annotations

from typing import Any

from scenario import REAL_LOGS, REPO, Scenario, failing_ci

ONLY = {"logs": "*.log", "findings": ""}


def _escalate(world: Scenario) -> tuple[int, dict[str, Any]]:
    """A PR whose new commits keep bringing back the same failures until Gauntlet asks a human."""
    number, sha = world.open_pr("loop", {"calc.py": "def add(a, b):\n    return a * b\n"})
    files = {"pytest.log": failing_ci(1)["pytest.log"]}
    for n in range(8):
        event = world.pull_request_event(number, sha, "opened" if n == 0 else "synchronize")
        done = world.run("pull_request", event, files=files, inputs=ONLY, run_id=100 + n)
        assert done.code == 0, done.error
        if any(e["type"] == "file_issue" and e["status"] == "created" for e in done.report["effects"]):
            return number, event
        sha = world.push(number, {"calc.py": f"def add(a, b):\n    return a * b  # try {n}\n"})
    raise AssertionError("no needs-human issue was filed")


def _closed(world: Scenario, number: int, *, merged: bool) -> dict[str, Any]:
    pull = world.repo.get_pull(number)
    payload = {
        "action": "closed",
        "number": number,
        "pull_request": {**pull.raw_data, "merged": merged},
        "repository": {"full_name": REPO, "default_branch": "main"},
    }
    return payload


def test_the_needs_human_issue_of_a_pr_closes_when_the_pr_is_closed(world: Scenario) -> None:
    number, _ = _escalate(world)
    [issue] = [i for i in world.repo.get_issues(state="all") if i.pull_request is None]
    assert issue.state == "open" and f"PR #{number}" in issue.title

    done = world.run("pull_request", _closed(world, number, merged=False), files={}, inputs=ONLY, run_id=200)

    assert done.code == 0, done.error
    issue = world.repo.get_issue(issue.number)
    assert issue.state == "closed"
    [why] = [c.body for c in issue.get_comments() if "Closed by Gauntlet" in c.body]
    assert f"PR #{number} was closed without merging" in why

    again = world.run("pull_request", _closed(world, number, merged=False), files={}, inputs=ONLY, run_id=201)
    assert again.code == 0, again.error
    assert [c.body for c in world.repo.get_issue(issue.number).get_comments() if "Closed by" in c.body] == [why]


def test_a_merged_pr_says_so(world: Scenario) -> None:
    number, _ = _escalate(world)
    done = world.run("pull_request", _closed(world, number, merged=True), files={}, inputs=ONLY, run_id=200)
    assert done.code == 0, done.error
    [issue] = [i for i in world.repo.get_issues(state="all") if i.pull_request is None]
    assert issue.state == "closed"
    assert any(f"PR #{number} was merged" in c.body for c in issue.get_comments())


def test_review_activity_refreshes_the_report_and_spends_no_attempt(world: Scenario) -> None:
    number, sha = world.open_pr("review", {"calc.py": "def add(a, b):\n    return a * b\n"})
    files = {"pytest.log": failing_ci(1)["pytest.log"]}
    first = world.run("pull_request", world.pull_request_event(number, sha, "opened"), files=files, inputs=ONLY)
    assert first.code == 0, first.error
    record = world.pr_record(number)
    assert record is not None and len(record.attempts) == 1
    for n, (event, action) in enumerate(
        [("pull_request_review_comment", "created"), ("pull_request_review", "submitted")] * 3
    ):
        payload = world.pull_request_event(number, sha, action)
        done = world.run(event, payload, files={}, inputs={"logs": "", "findings": ""}, run_id=300 + n)
        assert done.code == 0, done.error
        assert {e["type"] for e in done.report["effects"]} <= {"set_check", "upsert_comment", "write_summary"}
    record = world.pr_record(number)
    assert record is not None and len(record.attempts) == 1, [a.failure_type for a in record.attempts]
    assert [i for i in world.repo.get_issues(state="all") if i.pull_request is None] == []


def test_a_circular_fix_is_not_called_flaky_by_the_pr_health(world: Scenario) -> None:
    """Issue 30, item 8: an A/B oscillation of a circular fix flips failures across commits; that is the
    author's work, not flakiness, in the health line as in provenance (real pytest output)."""
    logs = [REAL_LOGS / "pytest-add-broken.log", REAL_LOGS / "pytest-divide-broken.log"]
    number, sha = world.open_pr("ab", {"calc.py": "def add(a, b):\n    return a * b\n"})
    bodies = []
    for n in range(4):
        event = world.pull_request_event(number, sha, "opened" if n == 0 else "synchronize")
        files = {"pytest.log": logs[n % 2].read_text(encoding="utf-8")}
        done = world.run("pull_request", event, files=files, inputs=ONLY, run_id=300 + n)
        assert done.code == 0, done.error
        bodies.append(world.comments(number)[0].body + done.summary)
        sha = world.push(number, {"calc.py": f"def add(a, b):\n    return a * b  # try {n}\n"})
    assert "**Health:**" in bodies[-1]
    health = [line for body in bodies for line in body.splitlines() if line.startswith("**Health:**")]
    assert health and not any("flak" in line or "flip" in line for line in health), health
