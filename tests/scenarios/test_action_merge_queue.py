"""The merge queue (DESIGN §3, issue 29): ``merge_group`` gets a check on the group's head commit, judged
against the branch the group merges into; a queue branch's failure is never that branch's break.

The payload is the one GitHub sends (``merge_group`` ``checks_requested``,
https://docs.github.com/webhooks/webhook-events-and-payloads#merge_group); Gauntlet is the last step of CI's
``test`` job, which runs on ``merge_group`` too.
"""

from __future__ import annotations

from typing import Any

from mainline import LOGS
from scenario import REPO, Scenario

from gauntlet.sandbox import JobSeed

ONLY_LOGS = {"logs": "pytest.log", "findings": ""}


def _log(name: str) -> dict[str, str]:
    return {"pytest.log": (LOGS / name).read_text(encoding="utf-8")}


def _push(sha: str) -> dict[str, Any]:
    return {"ref": "refs/heads/main", "after": sha, "repository": {"full_name": REPO, "default_branch": "main"}}


def _group(world: Scenario, pr: int, files: dict[str, str]) -> tuple[str, dict[str, Any]]:
    """The queue's commit for PR ``pr`` on top of main, and the ``merge_group`` event GitHub sends for it."""
    base = world.sandbox.head(REPO) or ""
    branch = f"gh-readonly-queue/main/pr-{pr}-{base}"
    world.owner.get_repo(REPO).create_git_ref(f"refs/heads/{branch}", base)
    head = world.sandbox.commit(REPO, files, f"Merge pull request #{pr}", branch=branch)
    event = {
        "action": "checks_requested",
        "merge_group": {
            "head_sha": head,
            "head_ref": f"refs/heads/{branch}",
            "base_sha": base,
            "base_ref": "refs/heads/main",
            "head_commit": {
                "id": head,
                "tree_id": "0" * 40,
                "message": f"Merge pull request #{pr}",
                "timestamp": "2026-12-04T10:00:00Z",
                "author": {"name": "Octo", "email": "octo@example.com"},
                "committer": {"name": "GitHub", "email": "noreply@github.com"},
            },
        },
        "repository": {"full_name": REPO, "default_branch": "main"},
        "sender": {"login": "octo"},
    }
    return head, event


def test_a_group_failing_only_on_what_main_already_fails_passes_and_a_new_failure_fails_it(world: Scenario) -> None:
    main = world.sandbox.head(REPO) or ""
    red = world.run("push", _push(main), files=_log("pytest-divide-broken.log"), inputs=ONLY_LOGS, run_id=10)
    assert red.code == 0, red.error
    before = world.state_files()

    head, event = _group(world, 1, {"docs/guide.md": "More guide\n"})
    queued = world.run("merge_group", event, files=_log("pytest-divide-broken.log"), inputs=ONLY_LOGS, run_id=11)

    assert queued.code == 0, queued.error
    assert queued.report["provenance"]["counts"]["preexisting"] == 1
    [check] = world.check_runs(head)
    assert check.conclusion == "success" and "merge queue" in check.output.title
    assert "judged against `main`" in (check.output.summary or "")

    head, event = _group(world, 2, {"calc.py": "def add(a, b):\n    return a * b\n"})
    broken = world.run("merge_group", event, files=_log("pytest-add-divide-broken.log"), inputs=ONLY_LOGS, run_id=12)

    assert broken.code == 0, broken.error
    assert broken.report["provenance"]["counts"] | {"new": 1, "preexisting": 1} == broken.report["provenance"]["counts"]
    assert [c.conclusion for c in world.check_runs(head)] == ["failure"]
    kinds = {e["type"] for e in broken.report["effects"]}
    assert kinds == {"set_check", "write_summary"}, "no rerun, revert or issue: the queue is not main"
    assert world.state_files() == before, "main's record is untouched and no queue branch gets a record"


def test_a_merge_group_payload_without_its_group_is_refused_clearly(world: Scenario) -> None:
    before = world.state_files()
    bad = {"action": "checks_requested", "merge_group": "nope", "repository": {"full_name": REPO}}
    refused = world.run("merge_group", bad, files=_log("pytest-pass.log"), inputs=ONLY_LOGS, run_id=13)
    assert refused.code == 2 and "merge_group" in refused.error
    no_base = {"action": "checks_requested", "merge_group": {"head_sha": "a" * 40}, "repository": {"full_name": REPO}}
    refused = world.run("merge_group", no_base, files=_log("pytest-pass.log"), inputs=ONLY_LOGS, run_id=14)
    assert refused.code == 2 and "base_ref" in refused.error
    assert world.state_files() == before


def test_a_merge_group_event_gauntlet_does_not_act_on_is_ignored(world: Scenario) -> None:
    ignored = world.run("merge_group", {"action": "destroyed"}, files={}, inputs=ONLY_LOGS, run_id=15)
    assert ignored.code == 0 and "ignored event merge_group" in ignored.stdout


def test_a_queue_run_seen_from_workflow_run_is_judged_the_same_way(world: Scenario) -> None:
    main = world.sandbox.head(REPO) or ""
    assert world.run("push", _push(main), files=_log("pytest-divide-broken.log"), inputs=ONLY_LOGS, run_id=10).code == 0
    head, event = _group(world, 3, {"docs/guide.md": "More guide\n"})
    branch = event["merge_group"]["head_ref"].removeprefix("refs/heads/")
    job = JobSeed(name="test", conclusion="failure", log=_log("pytest-divide-broken.log")["pytest.log"])
    ci = world.sandbox.seed_run(REPO, jobs=[job], head_branch=branch, head_sha=head, event="merge_group").id
    run = world.owner.get_repo(REPO).get_workflow_run(ci)
    payload = {"action": "completed", "workflow_run": run.raw_data, "repository": {"full_name": REPO}}
    world.sandbox.clear_requests()

    watched = world.run(
        "workflow_run", payload, inputs={"download_logs": "true", "logs": "", "findings": ""}, run_id=9001
    )

    assert watched.code == 0, watched.error
    assert [c.conclusion for c in world.check_runs(head)] == ["success"]
    assert not [r for r in world.sandbox.requests() if "/pulls" in r["path"]], "a queue commit belongs to no PR"
    assert world.state_file(f"v1/branches/{branch.replace('/', '--')}.json") is None
