"""The check run and sticky comment handlers on the sandbox: batches of 50, no repeats, comment modes."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from gauntlet.effects.base import apply
from gauntlet.effects.models import CheckAnnotation, SetCheck, UpsertComment
from gauntlet.effects.views import RunView
from gauntlet.github.backend import GitHubBackend
from gauntlet.github.client import LOW_QUOTA, GitHubClient
from gauntlet.github.hub import CommentMode, Hub
from gauntlet.models import evolve
from gauntlet.sandbox import Sandbox
from gauntlet.sandbox.app import RATE_LIMIT
from gauntlet.vocabulary import Decision

REPO = "octo/app"
BOT = "github-actions[bot]"
HEAD = "0" * 40


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    with Sandbox.start() as running:
        running.create_repo(REPO, {"README.md": "# app\n"})
        running.set_permission(REPO, BOT, "write")
        yield running


def backend(sandbox: Sandbox, mode: CommentMode = "changes") -> GitHubBackend:
    client = GitHubClient(BOT, sandbox.url, throttle=False)
    hub = Hub(client=client, repo=client.repo(REPO), bot_login=BOT, known=lambda key: None, comment_mode=mode)
    return GitHubBackend(hub)


def view(iteration: int = 1) -> RunView:
    decision = Decision(action="fix_criticals", iteration=iteration, criticals=1, majors=0, minors=0)
    return RunView(repository=REPO, pr=1, head_sha=HEAD, decision=decision)


def check(sha: str, count: int, conclusion: str = "failure") -> SetCheck:
    annotations = tuple(
        CheckAnnotation(
            path="src/app.py",
            start_line=i + 1,
            end_line=i + 1,
            annotation_level="failure",
            title="critical: test_failure",
            message=f"failure {i}",
        )
        for i in range(count)
    )
    return SetCheck(head_sha=sha, conclusion=conclusion, title="t", view=view(), annotations=annotations)  # type: ignore[arg-type]


def test_annotations_go_in_batches_of_50_and_are_never_sent_twice(sandbox: Sandbox) -> None:
    sha = sandbox.head(REPO) or ""
    [created] = apply([check(sha, 120)], backend(sandbox))
    posts = [r for r in sandbox.requests() if "check-runs" in r["path"] and r["method"] in ("POST", "PATCH")]

    [again] = apply([check(sha, 120)], backend(sandbox))

    assert created.status == "created" and again.status == "unchanged"
    assert [r["method"] for r in posts] == ["POST", "PATCH", "PATCH"], "50 + 50 + 20"
    repo = sandbox.store.repo("octo", "app")
    assert repo is not None
    [run] = repo.check_runs.values()
    assert len(run.annotations) == 120


def test_low_on_quota_the_check_keeps_its_first_50_annotations_and_skips_the_rest(sandbox: Sandbox) -> None:
    sha = sandbox.head(REPO) or ""
    sandbox.store.rate_hour = int(time.time()) // 3600
    sandbox.store.rate_used[BOT] = RATE_LIMIT - LOW_QUOTA  # this hour's quota nearly spent
    sandbox.clear_requests()

    [created] = apply([check(sha, 120)], backend(sandbox))

    writes = [r for r in sandbox.requests() if "check-runs" in r["path"] and r["method"] in ("POST", "PATCH")]
    assert created.status == "created" and [r["method"] for r in writes] == ["POST"]
    repo = sandbox.store.repo("octo", "app")
    assert repo is not None
    [run] = repo.check_runs.values()
    assert len(run.annotations) == 50, "the first batch is there, the rest could wait"


def test_low_on_quota_the_sticky_comment_leaves_the_learned_rules_out(sandbox: Sandbox) -> None:
    number = open_issue(sandbox)
    taught = evolve(view(), rules=("Check the sign of every sum before returning it.",))
    sandbox.store.rate_hour = int(time.time()) // 3600
    sandbox.store.rate_used[BOT] = RATE_LIMIT - LOW_QUOTA

    [posted] = apply([UpsertComment(pr=number, view=taught)], backend(sandbox))

    repo = sandbox.store.repo("octo", "app")
    assert repo is not None
    [comment] = [c for c in repo.comments.values() if c.issue_number == number]
    assert posted.status == "created" and "sign of every sum" not in comment.body
    sandbox.store.rate_used[BOT] = 0  # a new hour: the rules are shown again
    [again] = apply([UpsertComment(pr=number, view=taught)], backend(sandbox))
    assert again.status == "updated" and "sign of every sum" in repo.comments[comment.id].body


def test_a_new_conclusion_updates_the_same_check_run(sandbox: Sandbox) -> None:
    sha = sandbox.head(REPO) or ""
    apply([check(sha, 3)], backend(sandbox))

    [updated] = apply([check(sha, 3, "success")], backend(sandbox))

    repo = sandbox.store.repo("octo", "app")
    assert repo is not None
    assert updated.status == "updated"
    assert [(r.conclusion, len(r.annotations)) for r in repo.check_runs.values()] == [("success", 3)]


def open_issue(sandbox: Sandbox) -> int:
    client = GitHubClient("octo", sandbox.url, throttle=False)
    return int(client.request("POST", f"/repos/{REPO}/issues", body={"title": "PR stand-in"})["number"])


def test_comment_modes(sandbox: Sandbox) -> None:
    number = open_issue(sandbox)
    effect = UpsertComment(pr=number, view=view())

    assert [r.status for r in apply([effect], backend(sandbox, "off"))] == ["skipped"]
    assert [r.status for r in apply([effect], backend(sandbox, "changes"))] == ["created"]
    assert [r.status for r in apply([effect], backend(sandbox, "changes"))] == ["unchanged"]
    assert [r.status for r in apply([effect], backend(sandbox, "always"))] == ["updated"]
    changed = UpsertComment(pr=number, view=view(2))
    assert [r.status for r in apply([changed], backend(sandbox, "changes"))] == ["updated"]
    repo = sandbox.store.repo("octo", "app")
    assert repo is not None
    assert len([c for c in repo.comments.values() if c.issue_number == number]) == 1


def test_a_racing_duplicate_comment_is_settled_to_the_oldest(sandbox: Sandbox) -> None:
    number = open_issue(sandbox)
    effect = UpsertComment(pr=number, view=view())
    first, second = backend(sandbox), backend(sandbox)
    existing = second.find(effect)  # both runs look before either creates
    [made] = apply([effect], first)

    late = second.perform(effect, existing)

    assert late.number == made.number, "the later run adopts the older comment"
    repo = sandbox.store.repo("octo", "app")
    assert repo is not None
    assert [c.id for c in repo.comments.values() if c.issue_number == number] == [made.number]


def test_failed_jobs_are_rerun_once_per_attempt(sandbox: Sandbox) -> None:
    from gauntlet.effects.models import RerunFailedJobs
    from gauntlet.sandbox import JobSeed

    run = sandbox.seed_run(REPO, jobs=[JobSeed(name="test", conclusion="failure", log="Connection reset\n")])
    effect = RerunFailedJobs(run_id=run.id, attempt=1)

    first = apply([effect], backend(sandbox))
    again = apply([effect], backend(sandbox))

    assert [r.status for r in first + again] == ["created", "unchanged"]
    repo = sandbox.store.repo("octo", "app")
    assert repo is not None and repo.runs[run.id].run_attempt == 2
    reruns = [r for r in sandbox.requests() if r["path"].endswith("/rerun-failed-jobs")]
    assert len(reruns) == 1


def test_the_run_gauntlet_runs_in_is_not_rerun_while_it_is_in_progress(sandbox: Sandbox) -> None:
    from gauntlet.effects.models import RerunFailedJobs
    from gauntlet.sandbox import JobSeed

    # Gauntlet as the last step of the CI job: its own run is in progress, which GitHub refuses to rerun (403).
    run = sandbox.seed_run(REPO, jobs=[JobSeed(name="test", conclusion=None, log="")])
    client = GitHubClient(BOT, sandbox.url, throttle=False)
    own = GitHubBackend(Hub(client=client, repo=client.repo(REPO), bot_login=BOT, own_run=str(run.id)))

    [result] = apply([RerunFailedJobs(run_id=run.id, attempt=1)], own)

    assert result.status == "skipped" and "in progress" in (result.detail or "")
    assert not [r for r in sandbox.requests() if f"/actions/runs/{run.id}" in r["path"]], "not even a read"


def test_a_reaction_is_added_once(sandbox: Sandbox) -> None:
    from gauntlet.effects.models import React

    number = open_issue(sandbox)
    person = GitHubClient("octo", sandbox.url, throttle=False)
    comment = person.request("POST", f"/repos/{REPO}/issues/{number}/comments", body={"body": "/gauntlet status"})
    effect = React(comment_id=int(comment["id"]), content="eyes")

    statuses = [r.status for r in apply([effect], backend(sandbox)) + apply([effect], backend(sandbox))]

    assert statuses == ["created", "unchanged"]
    repo = sandbox.store.repo("octo", "app")
    assert repo is not None
    assert [(r.user, r.content) for r in repo.comments[int(comment["id"])].reactions] == [(BOT, "eyes")]
