"""The action on the other events: workflow_run with downloads, a read-only token, a closed PR, ignored events."""

from __future__ import annotations

import json

from scenario import BOT, REPO, Scenario, failing_ci

from gauntlet.sandbox import JobSeed


def test_workflow_run_downloads_failed_logs_and_artifacts_and_finds_the_pr(world: Scenario) -> None:
    number, sha = world.open_pr("from-fork", {"calc.py": "def add(a, b):\n    return a + b\n"})
    ci = failing_ci(1)
    run = world.sandbox.seed_run(
        REPO,
        jobs=[
            JobSeed(name="lint", conclusion="success", log="all good\n"),
            JobSeed(name="test", conclusion="failure", log=ci["pytest.log"]),
        ],
        head_branch=world.prs[number],
        head_sha=sha,
        event="pull_request",
        artifacts={"findings": {"review.json": ci["review.json"].encode()}},
    )
    payload = {
        "action": "completed",
        "workflow_run": {
            "id": run.id,
            "head_sha": sha,
            "head_branch": world.prs[number],
            "pull_requests": [],
            "run_attempt": 1,
            "name": "CI",
        },
        "repository": {"full_name": REPO, "default_branch": "main"},
    }

    outcome = world.run(
        "workflow_run",
        payload,
        inputs={"download_logs": "true", "download_artifacts": "find*", "logs": "", "findings": ""},
    )

    assert outcome.code == 0, outcome.error
    assert outcome.outputs["action"] == "fix_criticals"
    report = outcome.report
    assert report["decision"]["criticals"] >= 3, "the failed job's log was read"
    assert report["decision"]["majors"] + report["decision"]["minors"] >= 1, "the artifact's review findings were read"
    comments = world.comments(number)
    assert len(comments) == 1 and comments[0].user.login == BOT
    paths = [r["path"] for r in world.sandbox.requests()]
    assert f"/repos/{REPO}/commits/{sha}/pulls" in paths, "a fork's run names no PR: it is looked up"
    job_logs = [p for p in paths if p.endswith("/logs")]
    assert len(job_logs) == 1, "only the failed job's log is fetched"


def test_a_read_only_token_reports_through_summary_and_annotations(world: Scenario) -> None:
    number, sha = world.open_pr("fork-pr", {"calc.py": "def add(a, b):\n    return a + b\n"})
    reader = "fork-reader[bot]"
    world.sandbox.set_permission(REPO, reader, "read")

    outcome = world.run(
        "pull_request", world.pull_request_event(number, sha, "opened"), files=failing_ci(1), token=reader
    )

    assert outcome.code == 0, outcome.error
    assert "read-only token" in outcome.stdout and "read-only token" in outcome.summary
    errors = [line for line in outcome.stdout.splitlines() if line.startswith("::error ")]
    assert 1 <= len(errors) <= 10
    assert "file=" in errors[0] and "line=" in errors[0]
    assert outcome.outputs["action"] == "fix_criticals"
    assert world.comments(number) == []
    assert world.check_runs(sha) == []
    assert world.state_file("README.md") is None, "no state branch was created"


def test_a_closed_pr_is_compacted(world: Scenario) -> None:
    number, sha = world.open_pr("to-close", {"calc.py": "def add(a, b):\n    return a + b\n"})
    assert world.run("pull_request", world.pull_request_event(number, sha, "opened"), files=failing_ci(1)).code == 0
    for run_id in (2, 3):
        sha = world.push(number, {"calc.py": f"# {run_id}\n"})
        assert (
            world.run("pull_request", world.pull_request_event(number, sha), files=failing_ci(2), run_id=run_id).code
            == 0
        )
    before = world.pr_record(number)
    assert before is not None and len(before.iterations) == 3

    closed = world.run("pull_request", world.pull_request_event(number, sha, "closed"))
    again = world.run("pull_request", world.pull_request_event(number, sha, "closed"))

    assert (closed.code, again.code) == (0, 0), closed.error
    after = world.pr_record(number)
    assert after is not None and after.closed
    assert after.iteration_count == 3 and len(after.iterations) == 1
    assert after.iterations[0].head_sha == sha
    assert len(world.state_commits()) == 4, "the redelivered close changed nothing"


def test_unrouted_events_are_reported_as_ignored(world: Scenario) -> None:
    outcome = world.run("release", {"action": "published", "repository": {"full_name": REPO}})

    assert outcome.code == 0, outcome.error
    assert "ignored event release" in outcome.stdout
    assert json.loads(outcome.outputs["report"])["effects"] == []
    assert [r for r in world.sandbox.requests() if not r["path"].startswith("/_sandbox")] == []


def test_a_deleted_tag_or_branch_plans_nothing(world: Scenario) -> None:
    for ref in ("refs/tags/v1.0", "refs/heads/topic"):
        event = {"ref": ref, "before": "a" * 40, "after": "0" * 40, "deleted": True, "repository": {"full_name": REPO}}
        outcome = world.run("push", event)
        assert outcome.code == 0, outcome.error
        assert "ignored event push" in outcome.stdout
        assert json.loads(outcome.outputs["report"])["effects"] == []
    assert [r for r in world.sandbox.requests() if not r["path"].startswith("/_sandbox")] == []


def test_dry_run_with_a_state_dir_needs_no_github_at_all(world: Scenario) -> None:
    number, sha = world.open_pr("dry", {"calc.py": "def add(a, b):\n    return a + b\n"})
    world.sandbox.clear_requests()

    outcome = world.run(
        "pull_request",
        world.pull_request_event(number, sha, "opened"),
        files=failing_ci(1),
        inputs={"dry_run": "true", "state_dir": ".gauntlet"},
        # The token a workflow always passes (`github_token` defaults to it): it must not be used.
        api_url="http://127.0.0.1:9",  # nothing listens there: any call would fail the run
    )

    assert outcome.code == 0, outcome.error
    assert outcome.outputs["action"] == "fix_criticals"
    assert {e["status"] for e in outcome.report["effects"] if e["type"] != "write_summary"} == {"planned"}
    assert outcome.summary, "the job summary is still written"
    assert world.sandbox.requests() == []


def test_a_break_on_the_default_branch_gets_one_revert_pr(world: Scenario) -> None:
    def push(sha: str, before: str) -> dict[str, object]:
        return {
            "ref": "refs/heads/main",
            "after": sha,
            "before": before,
            "repository": {"full_name": REPO, "default_branch": "main"},
        }

    good = world.sandbox.head(REPO) or ""
    green = world.run("push", push(good, "0" * 40), files={}, run_id=10)
    assert green.code == 0, green.error
    culprit = world.sandbox.commit(
        REPO, {"calc.py": "def add(a, b):\n    return a * b\n"}, "Multiply instead", author="bob"
    )

    ci = world.sandbox.seed_run(
        REPO, jobs=[JobSeed(name="gauntlet", conclusion="failure", log="")], head_branch="main", head_sha=culprit
    )
    first = world.run("push", push(culprit, good), files=failing_ci(1), run_id=ci.id)
    assert first.code == 0, first.error
    # A single red run never opens a revert PR: Gauntlet asks for a rerun of the failed jobs first.
    assert "rerun_failed_jobs" in {e["type"] for e in first.report["effects"]}
    assert not [p for p in world.owner.get_repo(REPO).get_pulls(state="all") if p.head.ref.startswith("gauntlet/")]
    runs = [first]
    # A failing test blamed on the code it tests takes four sightings; the last attempt is delivered twice.
    for attempt in (2, 3, 4, 4):
        world.sandbox.finish_jobs(REPO, ci.id, {"gauntlet": ("failure", "")})  # the rerun ran and failed again
        runs.append(world.run("push", push(culprit, good), files=failing_ci(1), run_id=ci.id, attempt=attempt))

    assert [r.code for r in runs] == [0] * 5, [r.error for r in runs]
    pulls = [p for p in world.owner.get_repo(REPO).get_pulls(state="all") if p.head.ref.startswith("gauntlet/revert-")]
    assert len(pulls) == 1, [p.title for p in pulls]
    assert pulls[0].head.ref == f"gauntlet/revert-{culprit[:12]}"
    assert pulls[0].title == 'Revert "Multiply instead"'
    assert f"This reverts commit {culprit}." in pulls[0].body
    assert runs[-1].outputs["revert_pr"] in ("", str(pulls[0].number))
    assert any(r.outputs["revert_pr"] == str(pulls[0].number) for r in runs)


def test_bot_login_auto_asks_github_who_the_token_is(world: Scenario) -> None:
    app = "my-app[bot]"
    world.sandbox.set_permission(REPO, app, "write")
    number, sha = world.open_pr("app", {"calc.py": "def add(a, b):\n    return a + b\n"})
    event = world.pull_request_event(number, sha, "opened")

    runs = [
        world.run("pull_request", event, files=failing_ci(1), token=app, inputs={"bot_login": "auto"}) for _ in "ab"
    ]

    assert [r.code for r in runs] == [0, 0], runs[0].error
    comments = world.comments(number)
    assert [c.user.login for c in comments] == [app], "the second run recognised the app's own comment"


def test_fail_on_and_fail_step_decide_the_check_and_the_exit_code(world: Scenario) -> None:
    number, sha = world.open_pr("strict", {"calc.py": "def add(a, b):\n    return a + b\n"})
    event = world.pull_request_event(number, sha, "opened")

    failing = world.run("pull_request", event, files=failing_ci(1), inputs={"fail_step": "true"})
    lenient = world.run(
        "pull_request", event, files=failing_ci(1), run_id=7, inputs={"fail_on": "never", "fail_step": "true"}
    )

    assert (failing.code, lenient.code) == (1, 0), (failing.error, lenient.error)
    [check] = world.check_runs(sha)
    assert check.conclusion == "success", "the later run with fail_on: never updated the same check"


def test_on_workflow_run_a_main_breakage_names_the_ci_job_that_failed(world: Scenario) -> None:
    def ci(sha: str, conclusion: str, log: str) -> dict[str, object]:
        run = world.sandbox.seed_run(
            REPO,
            jobs=[
                JobSeed(name="lint", conclusion="success", log="ok\n"),
                JobSeed(name="test", conclusion=conclusion, log=log),
            ],
            head_branch="main",
            head_sha=sha,
            event="push",
        )
        workflow_run = {
            "id": run.id,
            "head_sha": sha,
            "head_branch": "main",
            "pull_requests": [],
            "run_attempt": 1,
            "name": "CI",
        }
        return {
            "action": "completed",
            "workflow_run": workflow_run,
            "repository": {"full_name": REPO, "default_branch": "main"},
        }

    inputs = {"download_logs": "true", "logs": "", "findings": ""}
    good = world.sandbox.head(REPO) or ""
    assert world.run("workflow_run", ci(good, "success", "1 passed\n"), inputs=inputs).code == 0
    culprit = world.sandbox.commit(REPO, {"calc.py": "def add(a, b):\n    return a * b\n"}, "Multiply", author="bob")
    broken = failing_ci(1)["pytest.log"]
    # Four red runs: a failing test blamed on the code it tests takes four sightings to confirm.
    runs = [world.run("workflow_run", ci(culprit, "failure", broken), inputs=inputs, run_id=300 + i) for i in range(4)]
    assert [r.code for r in runs] == [0] * 4, [r.error for r in runs]
    repo = world.owner.get_repo(REPO)
    bodies = [p.body for p in repo.get_pulls(state="all") if p.head.ref.startswith("gauntlet/revert-")]
    bodies += [i.body for i in repo.get_issues(state="all", labels=["needs-human"])]
    assert bodies, "the breakage was reported"
    for body in bodies:
        assert "`CI/test`" in body and "CI/gauntlet" not in body
        assert "in run " in body and "log lines " in body
