"""A PR's lifecycle through the Action (issue 30): every issue Gauntlet filed about a PR closes, with a comment saying
why, when the PR is merged or closed, and a redelivered close does nothing more (item 5); review activity spends no
attempt, the author's own notes block nothing, and a needs-human issue quotes what a reviewer wrote (item 4); a
circular fix is not flakiness, and an accepted finding leaves nothing to recover from (item 8)."""

from __future__ import annotations

import json
from typing import Any

from scenario import DEMO, OWNER, REAL_LOGS, REPO, Scenario, failing_ci

from gauntlet.demo.payloads import comment_event

ONLY = {"logs": "*.log", "findings": ""}


def _escalate(world: Scenario, files: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    """A PR whose new commits keep bringing back the same failures (by default the demo's real pytest log; else
    ``files``, read as logs and ``review.json``) until Gauntlet asks a human."""
    number, sha = world.open_pr("loop", {"calc.py": "def add(a, b):\n    return a * b\n"})
    inputs = ONLY if files is None else {}
    files = files or {"pytest.log": failing_ci(1)["pytest.log"]}
    for n in range(8):
        event = world.pull_request_event(number, sha, "opened" if n == 0 else "synchronize")
        done = world.run("pull_request", event, files=files, inputs=inputs, run_id=100 + n)
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
        own = {"workflow": "Gauntlet reviews", "job": "gauntlet-own-job"}  # a workflow of Gauntlet's own
        done = world.run(event, payload, files={}, inputs={"logs": "", "findings": ""}, run_id=300 + n, **own)
        assert done.code == 0, done.error
        assert {e["type"] for e in done.report["effects"]} <= {"set_check", "upsert_comment", "write_summary"}
    record = world.pr_record(number)
    assert record is not None and len(record.attempts) == 1, [a.failure_type for a in record.attempts]
    assert [i for i in world.repo.get_issues(state="all") if i.pull_request is None] == []
    # A review event's run is no CI run: its lack of test failures is not a pass that makes them look flaky.
    assert world.check_runs(sha)[0].conclusion == "failure"
    assert all(t.outcomes[-1].run.startswith("100.") for t in record.outcomes.tests)
    written = b"".join(world.state_files().values())
    assert b"gauntlet-own-job" not in written and b"Gauntlet reviews" not in written


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


def test_the_authors_own_critical_note_blocks_nothing_and_a_reviewers_does(world: Scenario) -> None:
    """Issue 30, item 4: the PR author's own ``critical:`` note to self is no finding; a reviewer's same words are."""
    number, sha = world.open_pr("note", {"calc.py": "def add(a, b):\n    return a + b\n"})
    head = world.repo.get_commit(sha)
    world.repo.get_pull(number).create_review_comment("critical: remember negative numbers", head, "calc.py", line=2)
    event = world.pull_request_event(number, sha, "opened")
    event["pull_request"]["user"] = {"login": OWNER}  # the sandbox's PRs are opened by the owner
    nothing = {"logs": "", "findings": ""}

    own = world.run("pull_request", event, files={}, inputs=nothing)

    assert own.code == 0, own.error
    assert (own.outputs["criticals"], own.outputs["action"]) == ("0", "clean")
    world.sandbox.set_permission(REPO, "rev", "write")
    reviewer = world.sandbox.pygithub("rev").get_repo(REPO).get_pull(number)
    reviewer.create_review_comment("critical: remember negative numbers", head, "calc.py", line=2)
    reviewed = world.run("pull_request", event, files={}, inputs=nothing, run_id=101)
    assert reviewed.code == 0, reviewed.error
    assert (reviewed.outputs["criticals"], reviewed.outputs["action"]) == ("1", "fix_criticals")


def test_a_needs_human_issue_quotes_what_the_reviewer_wrote(world: Scenario) -> None:
    """Issue 30, item 4: a review finding in the issue's evidence is what the reviewer wrote, not a fingerprint."""
    review = (DEMO / "review-iteration-1.json").read_text(encoding="utf-8")
    number, _ = _escalate(world, {"review.json": review})

    [issue] = [i for i in world.repo.get_issues(state="all") if i.pull_request is None]
    assert f"PR #{number}" in issue.title
    evidence = [line for line in issue.body.splitlines() if line.lstrip("- ").startswith("iteration ")]
    assert evidence, issue.body
    said = "divide() lets ZeroDivisionError escape although callers expect ValueError."
    assert all(f"calc.py:8: “{said}”" in line for line in evidence), evidence


def test_an_accepted_review_finding_alone_leaves_nothing_to_recover(world: Scenario) -> None:
    """Issue 30, item 8: once a maintainer accepted the one review finding left, the next iteration is clean and
    its recovery line asks for no retry of a failed verification."""
    demo = json.loads((DEMO / "review-iteration-1.json").read_text(encoding="utf-8"))
    review = json.dumps({"issues": demo["issues"][:1]})  # the demo reviewer's one major finding
    only = {"logs": "", "findings": "review.json"}
    number, sha = world.open_pr("risk", {"calc.py": "def add(a, b):\n    return a + b\n"})
    event = world.pull_request_event(number, sha, "opened")
    first = world.run("pull_request", event, files={"review.json": review}, inputs=only)
    assert first.code == 0, first.error
    assert first.report["recovery"]["failure_type"] == "verification_failed"  # the finding is open: push a fix
    world.sandbox.set_permission(REPO, "mia", "maintain")
    comment = (
        world.sandbox.pygithub("mia")
        .get_repo(REPO)
        .get_issue(number)
        .create_comment("/gauntlet accept-risk all the vendor owns this")
    )
    accepted = world.run("issue_comment", comment_event(comment, world.repo.get_pull(number)), run_id=200)
    assert accepted.code == 0, accepted.error

    sha = world.push(number, {"README.md": "# app, documented\n"})
    event = world.pull_request_event(number, sha)
    later = world.run("pull_request", event, files={"review.json": review}, inputs=only, run_id=201)

    assert later.code == 0, later.error
    assert (later.outputs["iteration"], later.outputs["majors"], later.outputs["action"]) == ("2", "0", "clean")
    assert later.report["recovery"]["failure_type"] is None, later.report["recovery"]
    shown = world.comments(number)[0].body + later.summary
    recovery = [line for line in shown.splitlines() if line.startswith("**Recovery:**")]
    assert recovery and not any("retry" in line or "verification_failed" in line for line in recovery), recovery
