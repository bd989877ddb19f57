"""A PR on the sandbox through the action: comment, check run and state appear; the next commit edits them."""

from __future__ import annotations

from scenario import BOT, REPO, Scenario, failing_ci

from gauntlet.state.shared import LearningBook


def test_a_failing_pr_gets_a_comment_a_check_and_state(world: Scenario) -> None:
    number, sha = world.open_pr("fix-add", {"calc.py": "def add(a, b):\n    return a + b\n"})

    first = world.run("pull_request", world.pull_request_event(number, sha, "opened"), files=failing_ci(1))

    assert first.code == 0, first.error
    assert first.outputs["action"] == "fix_criticals"
    assert first.outputs["iteration"] == "1"
    assert int(first.outputs["criticals"]) >= 3
    comments = world.comments(number)
    assert len(comments) == 1
    assert comments[0].user.login == BOT
    assert f"<!-- gauntlet:key=pr-comment:{number} -->" in comments[0].body
    assert "iteration 1" in comments[0].body
    assert first.outputs["comment_url"] == comments[0].html_url
    checks = world.check_runs(sha)
    assert [(c.name, c.conclusion) for c in checks] == [("Gauntlet", "failure")]
    assert checks[0].output.annotations_count > 0
    record = world.pr_record(number)
    assert record is not None and record.iteration_count == 1
    assert record.comment_id == comments[0].id
    assert "fix criticals" in first.summary.lower() or "fix_criticals" in first.summary
    assert first.report["api_calls"] > 0
    assert f"{first.report['api_calls']} API calls" in first.stdout and "left this hour" in first.stdout

    sha2 = world.push(number, {"calc.py": "def add(a, b):\n    return a + b\n# 2\n"})
    second = world.run("pull_request", world.pull_request_event(number, sha2), files=failing_ci(2), run_id=101)

    assert second.code == 0, second.error
    assert second.outputs["iteration"] == "2"
    after = world.comments(number)
    assert [c.id for c in after] == [comments[0].id], "the sticky comment is edited in place"
    body = after[0].body
    assert "iteration 2" in body
    assert "Fixed" in body or "fixed" in body
    record = world.pr_record(number)
    assert record is not None and record.iteration_count == 2
    current = record.iterations[-1]
    assert current.fixed and current.head_sha == sha2
    assert [c.name for c in world.check_runs(sha2)] == ["Gauntlet"]
    assert [c.name for c in world.check_runs(sha)] == ["Gauntlet"]
    learned = LearningBook.model_validate_json(world.state_file("v1/learnings.json") or b"{}")
    fixes = [fix for fix in learned.fixes if fix.fixed_sha == sha2]
    assert fixes and all(fix.files == ["calc.py"] for fix in fixes), "a fix records the files its commit changed"


def test_the_same_event_three_times_changes_github_and_state_once(world: Scenario) -> None:
    number, sha = world.open_pr("dup", {"calc.py": "def add(a, b):\n    return a + b\n"})
    event = world.pull_request_event(number, sha, "opened")

    outcomes = [world.run("pull_request", event, files=failing_ci(1)) for _ in range(2)]
    world.sandbox.clear_requests()
    outcomes.append(world.run("pull_request", event, files=failing_ci(1)))
    third = world.sandbox.requests()

    assert [o.code for o in outcomes] == [0, 0, 0]
    assert len(world.comments(number)) == 1
    assert len(world.check_runs(sha)) == 1
    # The first run shows the rule it learned from the review; the second reads the learned rules as of the last
    # scan (docs/scale.md), so its comment loses that section once, and the record keeps what the comment now
    # holds. The third run changes nothing.
    assert len(world.state_commits()) == 2, "the first run's change, and the comment's new text"
    # The rerun Gauntlet asks for a new test failure finds no such workflow run here: skipped, nothing written.
    assert [e["status"] for e in outcomes[2].report["effects"] if e["type"] != "write_summary"] == [
        "unchanged",
        "unchanged",
        "skipped",
    ]
    # The third run wrote nothing and read only what it needs: the record names the comment and the check run
    # (neither is read), and the state's head, the record and the PR's reviews come in one GraphQL query.
    assert not [r for r in third if r["method"] != "GET" and "/actions/" not in r["path"] and r["path"] != "/graphql"]
    assert not [r for r in third if "/check-runs" in r["path"] or "/issues/" in r["path"] or "/pulls/" in r["path"]]
    assert [r["status"] for r in third if r["path"] == "/graphql"] == [200]


def test_a_marker_typed_by_someone_else_is_ignored(world: Scenario) -> None:
    number, sha = world.open_pr("spoof", {"calc.py": "def add(a, b):\n    return a + b\n"})
    stranger = world.owner.get_repo(REPO).get_issue(number)
    planted = stranger.create_comment(f"<!-- gauntlet:key=pr-comment:{number} -->\nI am Gauntlet, trust me")

    outcome = world.run("pull_request", world.pull_request_event(number, sha, "opened"), files=failing_ci(1))

    assert outcome.code == 0, outcome.error
    comments = world.comments(number)
    assert len(comments) == 2
    assert comments[0].id == planted.id and comments[0].body.endswith("trust me"), "never edited"
    assert comments[1].user.login == BOT


def test_a_personal_access_token_edits_its_own_sticky_comment(world: Scenario) -> None:
    # A PAT writes as its user, not as github-actions[bot]: with the default bot_login, Gauntlet asks GitHub
    # who the token is (the prefix says it is a user's token) and finds its own comment again.
    pat = "ghp_maya"  # the sandbox's login is the token text
    world.sandbox.set_permission(REPO, pat, "write")
    number, sha = world.open_pr("pat", {"calc.py": "def add(a, b):\n    return a + b\n"})
    first = world.run("pull_request", world.pull_request_event(number, sha, "opened"), files=failing_ci(1), token=pat)
    assert first.code == 0, first.error
    sha2 = world.push(number, {"calc.py": "def add(a, b):\n    return a + b\n# 2\n"})
    second = world.run(
        "pull_request", world.pull_request_event(number, sha2), files=failing_ci(2), run_id=101, token=pat
    )
    assert second.code == 0, second.error
    [comment] = world.comments(number)
    assert comment.user.login == pat and "iteration 2" in comment.body
    asked = [r for r in world.sandbox.requests() if r["method"] == "GET" and r["path"] == "/user"]
    assert len(asked) == 2  # one call a run
