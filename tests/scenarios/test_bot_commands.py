"""/gauntlet commands end to end: the action entrypoint, real PyGithub over HTTP, the sandbox, the state branch.

(Not ``test_commands.py``: ``tests/unit/engine/`` has one, and the test folders are not packages.)

A PR with a critical, a major and a minor review finding is reported once; then people with every permission
(and a bot) comment commands, and each comment is delivered to ``run_action`` as GitHub would deliver it.
"""

from __future__ import annotations

import io
import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from gauntlet.action.entry import run_action
from gauntlet.errors import GitHubUnavailable
from gauntlet.pipeline import Clock
from gauntlet.sandbox import JobSeed, Sandbox
from gauntlet.sandbox.contract import ContractRecorder

REPO = "octo/app"
BOT = "github-actions[bot]"
NOW = datetime(2026, 11, 2, 12, tzinfo=UTC)
#: Who comments, and the permission the repository gives them (the outsider has none: a public repository
#: still lets them read, as GitHub's permission API says).
PEOPLE = {"ada": "admin", "max": "maintain", "wes": "write", "rita": "read", "pat": "maintain"}
OUTSIDER, A_BOT, AUTHOR = "otto", "dependabot[bot]", "pat"
EVERY_COMMAND = "\n".join(
    [
        "/gauntlet help",
        "/gauntlet status",
        "/gauntlet retry",
        "/gauntlet accept-risk all the vendor owns this",
        "/gauntlet approve SH-1",
        "/gauntlet reject SH-1 not now",
        "/gauntlet reset",
    ]
)
REVIEW = [
    {"reviewer": "r", "severity": severity, "category": category, "location": "src/app.py:1", "description": what}
    for severity, category, what in [("critical", "bug", "Crash"), ("major", "security", "Unchecked"),
                                     ("minor", "style", "Unclear")]
]  # fmt: skip


@dataclass
class Bench:
    """The sandbox, a PR reported once by Gauntlet, and a way to deliver comment events to the action."""

    sandbox: Sandbox
    workspace: Path
    pr: int
    run_id: int
    env: dict[str, str]

    def repo(self, login: str = "octo") -> Any:
        return self.sandbox.pygithub(login).get_repo(REPO)

    def say(self, login: str, body: str) -> Any:
        """``login`` comments ``body`` on the PR; returns the comment."""
        return self.repo(login).get_issue(self.pr).create_comment(body)

    def deliver(self, comment: Any, action: str = "created") -> str:
        """Deliver the ``issue_comment`` event for ``comment`` to the action; returns its stdout."""
        return act(self.event(comment, action))

    def event(self, comment: Any, action: str = "created") -> dict[str, str]:
        """The environment of the run GitHub starts for ``comment`` (the payload written to a file)."""
        issue = self.repo().get_issue(self.pr)
        payload = {"action": action, "comment": comment.raw_data, "issue": issue.raw_data, "repository": {
            "full_name": REPO, "default_branch": "main"}}  # fmt: skip
        path = self.workspace / f"comment-{comment.id}-{action}.json"
        path.write_text(json.dumps(payload))
        # The comment's workflow run is a run of its own (Gauntlet is not a step of the PR's CI run there).
        own = {"GITHUB_RUN_ID": str(900_000 + comment.id)}
        return {**self.env, **own, "GITHUB_EVENT_NAME": "issue_comment", "GITHUB_EVENT_PATH": str(path)}

    def replies(self, comment_id: int) -> list[str]:
        """Gauntlet's replies to a comment, in order."""
        found = [
            c.body
            for c in self.repo().get_issue(self.pr).get_comments()
            if c.user.login == BOT and f"gauntlet:key=pr-comment:reply-{comment_id}:" in c.body
        ]
        return sorted(found, key=lambda b: int(re.search(rf"reply-{comment_id}:(\d+)", b).group(1)))  # type: ignore[union-attr]

    def reactions(self, comment_id: int) -> list[str]:
        """Gauntlet's reactions on a comment."""
        comment = self.repo().get_issue(self.pr).get_comment(comment_id)
        return sorted(r.content for r in comment.get_reactions() if r.user.login == BOT)

    def risk_issues(self) -> list[Any]:
        return list(self.repo().get_issues(state="all", labels=["accepted-risk"]))

    def state(self) -> dict[str, Any]:
        """The PR's record on the state branch."""
        content = self.repo().get_contents(f"v1/prs/{self.pr}.json", ref="gauntlet-state")
        return dict(json.loads(content.decoded_content))

    def state_head(self) -> str:
        return str(self.repo().get_branch("gauntlet-state").commit.sha)

    def bot_bodies(self) -> list[str]:
        """Every body Gauntlet wrote: PR and issue comments, issues, check run summaries."""
        repo = self.repo()
        bodies = [c.body for c in repo.get_issue(self.pr).get_comments() if c.user.login == BOT]
        for issue in repo.get_issues(state="all"):
            if issue.user.login == BOT:
                bodies += [issue.body, *(c.body for c in issue.get_comments() if c.user.login == BOT)]
        head = repo.get_pull(self.pr).head.sha
        bodies += [run.output.summary or "" for run in repo.get_commit(head).get_check_runs()]
        return bodies


def act(env: dict[str, str]) -> str:
    out = io.StringIO()
    clock = Clock(now=NOW, sleep=lambda seconds: None, monotonic=time.monotonic, throttle=False)
    assert run_action(env, clock, out) == 0
    return out.getvalue()


@pytest.fixture
def bench(tmp_path: Path) -> Iterator[Bench]:
    recorder = ContractRecorder()
    with Sandbox.start() as sandbox:
        sandbox.observe(recorder)
        sandbox.create_repo(REPO, {"README.md": "# app\n", "src/app.py": "x = 1\n"})
        sandbox.set_permission(REPO, BOT, "write")
        sandbox.set_permission(REPO, A_BOT, "admin")  # an app may hold any permission: a bot is still never obeyed
        for login, permission in PEOPLE.items():
            sandbox.set_permission(REPO, login, permission)
        head = sandbox.commit(REPO, {"src/app.py": "x = 2\n"}, "Change x", branch="feature", author=AUTHOR)
        pull = (
            sandbox.pygithub(AUTHOR).get_repo(REPO).create_pull(title="Change x", body="", base="main", head="feature")
        )
        failing = [JobSeed(name="test", conclusion="failure", log="boom")]
        run = sandbox.seed_run(
            REPO, jobs=failing, head_branch="feature", event="pull_request", pull_numbers=[pull.number]
        )
        (tmp_path / "review.json").write_text(json.dumps(REVIEW))
        event = {"action": "opened", "number": pull.number, "pull_request": pull.raw_data,
                 "repository": {"full_name": REPO, "default_branch": "main"}}  # fmt: skip
        (tmp_path / "pr.json").write_text(json.dumps(event))
        env = {
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_API_URL": sandbox.url,
            "GITHUB_RUN_ID": str(run.id),
            "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_JOB": "gauntlet",
            "GITHUB_WORKSPACE": str(tmp_path),
            "GITHUB_SHA": head,
            "INPUT_GITHUB_TOKEN": BOT,
        }
        act({**env, "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(tmp_path / "pr.json"),
             "INPUT_FINDINGS": "review.json"})  # fmt: skip
        yield Bench(sandbox=sandbox, workspace=tmp_path, pr=pull.number, run_id=run.id, env=env)
        crashes = list(sandbox.app.crashes)
    assert not crashes, "sandbox handler crashed:\n" + "\n".join(crashes)
    problems = [f"{m.method} {m.template} -> {m.status}: {'; '.join(m.errors[:3])}" for m in recorder.mismatches]
    assert not problems, "responses that break GitHub's OpenAPI description:\n" + "\n".join(problems)


def outcomes(replies: list[str]) -> list[str]:
    """``done`` or ``refused`` per reply, from the line after the quoted command."""
    return ["refused" if "Not done:" in body else "done" for body in replies]


#: Per commenter, the outcome of help, status, retry, accept-risk, approve, reject, reset (in that order).
#: ``approve``/``reject`` of a proposal that does not exist are "refused" after authorisation passed, so the reply
#: text tells the two apart: see the assertions below.
EXPECTED = {
    OUTSIDER: ["done", "done", "refused", "refused", "refused", "refused", "refused"],
    "rita": ["done", "done", "refused", "refused", "refused", "refused", "refused"],
    "wes": ["done", "done", "done", "refused", "refused", "refused", "refused"],
    AUTHOR: ["done", "done", "done", "refused", "refused", "refused", "done"],
    "max": ["done", "done", "done", "done", "refused", "refused", "done"],
    "ada": ["done", "done", "done", "refused", "refused", "refused", "done"],
}


@pytest.mark.slow  # seven deliveries through the whole action: about 20 s on a busy machine
def test_every_command_by_every_kind_of_commenter(bench: Bench) -> None:
    bot_comment = bench.say(A_BOT, EVERY_COMMAND)
    bench.deliver(bot_comment)
    assert bench.replies(bot_comment.id) == []
    assert bench.reactions(bot_comment.id) == []

    for login, expected in EXPECTED.items():
        comment = bench.say(login, EVERY_COMMAND)
        bench.deliver(comment)
        replies = bench.replies(comment.id)
        assert outcomes(replies) == expected, (login, replies)
        assert bench.reactions(comment.id) == ["confused"]  # some command was not done, for everyone
        help_reply, status_reply, retry, accept, approve, reject, reset = replies
        assert "> /gauntlet help" in help_reply
        assert "(maintain permission)" in help_reply
        assert "Iteration 1" in status_reply
        needs_maintain = "needs the maintain permission"
        if login in (OUTSIDER, "rita"):
            assert "needs the write permission" in retry
            assert f"{login} has read" in retry
        if login in (OUTSIDER, "rita", "wes"):
            assert all(needs_maintain in reply for reply in (accept, approve, reject, reset))
        if login == AUTHOR:
            assert "someone other than the author" in accept
            assert "someone other than the author" in approve
            assert "no proposal SH-1" in reject  # reject is not an approval: the author may say no
        if login in ("max", "ada"):
            assert "no proposal SH-1" in approve
            assert "no proposal SH-1" in reject
        if login == "max":
            assert "max accepted 2 risks: the vendor owns this" in accept
        if login == "ada":
            assert "no open finding matches" in accept  # max accepted them already

    issues = bench.risk_issues()
    assert sorted(i.title for i in issues) == ["[Gauntlet/major] accepted risk: Unchecked",
                                               "[Gauntlet/minor] accepted risk: Unclear"]  # fmt: skip
    assert all("Accepted by `max`" in i.body and "the vendor owns this" in i.body for i in issues)
    record = bench.state()
    assert sorted(r["by"] for r in record["accepted_risks"]) == ["max", "max"]
    assert record["iteration_count"] == 1  # commands never advance the iteration
    assert record["attempts"] == []  # reset forgot them
    run = bench.repo().get_workflow_run(bench.run_id)
    assert run.run_attempt == 2  # one rerun of the failed jobs, however many people asked
    sticky = [c.body for c in bench.repo().get_issue(bench.pr).get_comments() if "key=pr-comment:1 -->" in c.body]
    assert len(sticky) == 1
    assert "accepted by `max`" in sticky[0]


def test_edited_comments_are_never_acted_on(bench: Bench) -> None:
    before = bench.state_head()
    for login in [*EXPECTED, A_BOT]:
        comment = bench.say(login, "looks good")
        comment.edit(EVERY_COMMAND)
        out = bench.deliver(bench.repo().get_issue(bench.pr).get_comment(comment.id), action="edited")
        assert "ignored" in out
        assert bench.replies(comment.id) == []
        assert bench.reactions(comment.id) == []
    assert bench.risk_issues() == []
    assert bench.state_head() == before
    assert bench.repo().get_workflow_run(bench.run_id).run_attempt == 1


def test_the_same_event_delivered_twice_acts_once(bench: Bench) -> None:
    comment = bench.say("max", "/gauntlet accept-risk majors known\n/gauntlet status")
    bench.deliver(comment)
    after_first = (bench.replies(comment.id), bench.reactions(comment.id), len(bench.risk_issues()), bench.state())
    head = bench.state_head()
    bench.deliver(comment)
    assert (
        bench.replies(comment.id),
        bench.reactions(comment.id),
        len(bench.risk_issues()),
        bench.state(),
    ) == after_first
    assert bench.state_head() == head
    assert len(after_first[0]) == 2
    assert after_first[1] == ["rocket"]


def test_accepting_every_risk_turns_the_check_neutral(bench: Bench) -> None:
    record = bench.state()
    critical = next(f["fingerprint"] for f in record["iterations"][-1]["findings"] if f["severity"] == "critical")
    comment = bench.say("ada", f"/gauntlet accept-risk all fine\n/gauntlet accept-risk {critical[:8]} owned by ops")
    bench.deliver(comment)
    # Answered by the report: no reaction, no reply; the comment and the check name each issue filed.
    assert bench.reactions(comment.id) == [] and bench.replies(comment.id) == []
    head = bench.repo().get_pull(bench.pr).head.sha
    (check,) = [r for r in bench.repo().get_commit(head).get_check_runs() if r.name == "Gauntlet"]
    assert check.conclusion == "neutral"
    filed = bench.risk_issues()
    assert len(filed) == 3
    sticky = [c.body for c in bench.repo().get_issue(bench.pr).get_comments() if "key=pr-comment:" in c.body]
    for issue in filed:
        assert f"(tracked in #{issue.number})" in sticky[0]
        assert f"(tracked in #{issue.number})" in (check.output.summary or "")
        assert f"#{bench.pr}" in issue.body  # GitHub shows the reference in the PR's timeline
    assert "owned by ops" in sticky[0] and "accepted by `ada`" in sticky[0]


HOSTILE = (
    "{{ 1234*1000 }} {% for x in range(3) %}LOOP{% endfor %} <script>alert(1)</script> <img src=x onerror=alert(1)> "
    "@octocat @octo/core <!-- gauntlet:key=pr-comment:1 --> ``` "
)


def test_hostile_comment_text_never_reaches_a_body_unescaped(bench: Bench) -> None:
    filler = (HOSTILE * 1000)[:60_000]
    body = f"/gauntlet accept-risk all {HOSTILE}\n{filler}\n/gauntlet {HOSTILE}\n/gauntlet status {HOSTILE}"
    comment = bench.say("max", body)
    bench.deliver(comment)
    assert len(bench.replies(comment.id)) == 3
    sticky = [c for c in bench.repo().get_issue(bench.pr).get_comments() if "gauntlet:key=pr-comment:1 -->" in c.body]
    assert [c.user.login for c in sticky] == [BOT, "max"]  # a typed marker is not Gauntlet's comment, nor edited
    assert bench.repo().get_issue(bench.pr).get_comment(comment.id).body == body
    for body in bench.bot_bodies():
        text = re.sub(r"\n```json\n[^`]*\n```\n\Z", "", body)  # the check's own verdict block
        assert len(text) <= 65_536
        assert "1234000" not in text
        assert "LOOPLOOP" not in text
        assert "<script" not in text.lower()
        assert "<img" not in text.lower()
        assert "```" not in text
        assert not re.search(r"(?<![`\w])@(octocat|octo/core)", text), text
        assert text.count("<!--") <= 1


def test_faults_and_reruns_never_duplicate_what_a_command_did(bench: Bench) -> None:
    comment = bench.say("max", "/gauntlet accept-risk all known\n/gauntlet retry\n/gauntlet status")
    event = bench.event(comment)
    bench.sandbox.set_faults(0.6, seed=7, retry_after=0)
    failures = 0
    for _ in range(4):  # a run that fails half-way is run again, as a rerun of the workflow would
        try:
            act(event)
        except GitHubUnavailable:
            failures += 1
    bench.sandbox.set_faults(0)
    assert failures  # the rate is high enough that runs die half-way
    act(event)
    assert len(bench.replies(comment.id)) == 3
    assert bench.reactions(comment.id) == ["rocket"]
    assert len(bench.risk_issues()) == 2
    assert len(bench.state()["accepted_risks"]) == 2
    assert bench.repo().get_workflow_run(bench.run_id).run_attempt == 2
    sticky = [c for c in bench.repo().get_issue(bench.pr).get_comments() if "gauntlet:key=pr-comment:1 -->" in c.body]
    assert len(sticky) == 1


def test_faults_and_reruns_never_duplicate_what_a_report_answered_command_did(bench: Bench) -> None:
    comment = bench.say("max", "/gauntlet accept-risk all known")
    event = bench.event(comment)
    bench.sandbox.set_faults(0.5, seed=11, retry_after=0)
    failures = 0
    for _ in range(3):
        try:
            act(event)
        except GitHubUnavailable:
            failures += 1
    bench.sandbox.set_faults(0)
    act(event)
    assert failures
    assert bench.replies(comment.id) == [] and bench.reactions(comment.id) == []
    filed = bench.risk_issues()
    assert len(filed) == 2 and len(bench.state()["accepted_risks"]) == 2
    sticky = [c for c in bench.repo().get_issue(bench.pr).get_comments() if "gauntlet:key=pr-comment:1 -->" in c.body]
    assert len(sticky) == 1
    assert all(f"(tracked in #{issue.number})" in sticky[0].body for issue in filed)


def test_retry_with_nothing_to_rerun_replies_and_exits_0(bench: Bench) -> None:
    # CI passed; only the review findings failed the check: the run has no failed job to rerun.
    passing = [JobSeed(name="test", conclusion="success", log="ok")]
    run = bench.sandbox.seed_run(
        REPO, jobs=passing, head_branch="feature", event="pull_request", pull_numbers=[bench.pr]
    )
    event = bench.workspace / "pr.json"
    act({**bench.env, "GITHUB_RUN_ID": str(run.id), "GITHUB_EVENT_NAME": "pull_request",
         "GITHUB_EVENT_PATH": str(event), "INPUT_FINDINGS": "review.json"})  # fmt: skip
    comment = bench.say("wes", "/gauntlet retry")
    printed = bench.deliver(comment)  # act() asserts exit 0: GitHub's 403 for the rerun no longer fails the run
    [reply] = bench.replies(comment.id)
    # Nothing was rerun, so the reply claims no rerun (it once said "Asked GitHub to rerun").
    assert f"run {run.id} (attempt 1)" in reply and "has nothing to rerun and is left as it is" in reply
    assert "Asked GitHub" not in reply
    assert "rerun_failed_jobs skipped" in printed
    reruns = [r for r in bench.sandbox.requests() if r["path"].endswith(f"/runs/{run.id}/rerun-failed-jobs")]
    assert reruns == []


def test_a_comment_deleted_before_its_run_is_skipped_with_a_notice(bench: Bench) -> None:
    # A command answered by a reaction and a reply: the reaction's 404 is what finds the deletion.
    comment = bench.say("wes", "/gauntlet accept-risk all fine\n/gauntlet status")
    event = bench.event(comment)
    before = bench.state_head()
    comment.delete()
    printed = act(event)  # act() asserts exit 0
    assert f"::notice title=Gauntlet::skipped: comment {comment.id} was deleted" in printed
    assert bench.state_head() == before and bench.risk_issues() == []
    writes = [r for r in bench.sandbox.requests() if r["method"] == "POST" and "/_sandbox" not in r["path"]]
    # The reaction is posted without a lookup first: its 404 is what says the comment is gone.
    assert [r["status"] for r in writes if f"/comments/{comment.id}/" in r["path"]] == [404]


def test_an_accepted_review_risk_closes_when_its_code_changes_on_main_never_by_time(bench: Bench) -> None:
    # The sandbox dates its commits by the wall clock: these runs are timed by it too.
    def act_now(env: dict[str, str]) -> None:
        clock = Clock(now=datetime.now(UTC), sleep=lambda seconds: None, monotonic=time.monotonic, throttle=False)
        assert run_action(env, clock, io.StringIO()) == 0

    # Commit dates have whole seconds, and a change in the second of the acceptance counts as after it: accept in
    # a second of its own, after the fixture's commits of src/app.py, as a person typing the command does.
    time.sleep(1.05 - datetime.now(UTC).microsecond / 1e6)
    comment = bench.say("max", "/gauntlet accept-risk minors the style pass comes later")
    act_now(bench.event(comment))
    [issue] = bench.risk_issues()
    assert "when the code at `src/app.py` changes on the default branch" in issue.body

    def main_run(files: dict[str, str], message: str, run_id: int) -> None:
        sha = bench.sandbox.commit(REPO, files, message)
        push = bench.workspace / f"push-{run_id}.json"
        push.write_text(json.dumps({"ref": "refs/heads/main", "after": sha, "before": "0" * 40,
                                    "repository": {"full_name": REPO, "default_branch": "main"}}))  # fmt: skip
        act_now({**bench.env, "GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(push), "GITHUB_SHA": sha,
                 "GITHUB_REF": "refs/heads/main", "GITHUB_RUN_ID": str(run_id)})  # fmt: skip

    main_run({"README.md": "# app, documented\n"}, "Document the app", 7001)
    assert bench.repo().get_issue(issue.number).state == "open", "the finding's code did not change"
    main_run({"src/app.py": "x = 3\n"}, "Rework x", 7002)
    closed = bench.repo().get_issue(issue.number)
    assert closed.state == "closed"
    [note] = [c.body for c in closed.get_comments() if c.user.login == BOT]
    assert "the code at `src/app.py` changed on `main`" in note


def test_an_accept_risk_assigns_the_owners_the_pr_run_kept_and_a_second_creates_no_label_twice(
    bench: Bench,
) -> None:
    # The PR's run reads CODEOWNERS from its checkout and keeps the owners of its findings' paths.
    (bench.workspace / ".github").mkdir()
    (bench.workspace / ".github" / "CODEOWNERS").write_text("/src/ @wes\n")
    act({**bench.env, "GITHUB_RUN_ATTEMPT": "2", "GITHUB_EVENT_NAME": "pull_request",
         "GITHUB_EVENT_PATH": str(bench.workspace / "pr.json"), "INPUT_FINDINGS": "review.json"})  # fmt: skip
    assert bench.state()["owners"] == {"src/app.py": ["wes"]}
    bench.deliver(bench.say("max", "/gauntlet accept-risk majors the vendor fixes it"))
    event = bench.event(bench.say("max", "/gauntlet accept-risk minors the style pass comes later"))
    bench.sandbox.clear_requests()
    act(event)
    served = [r for r in bench.sandbox.requests() if "/_sandbox" not in r["path"]]
    assert [r for r in served if "CODEOWNERS" in r["path"]] == [], "the owners come from the PR's record"
    created = [r for r in served if r["method"] == "POST" and r["path"].endswith("/labels")]
    # Only the minor's severity label is new: the others were seen on the first issue while looking for this one.
    assert len(created) == 1
    filing = [f"{r['method']} {r['path']}" for r in served if r["path"].split("/")[4:5] in (["issues"], ["labels"])]
    filing = [request for request in filing if "/comments/" not in request]  # the sticky comment's edit
    # A label, the issue and its assignee; no reaction, no reply: the report answers. The marker listing's first
    # page came with the state, in the run's start query.
    assert sorted(filing) == sorted(
        [f"POST /repos/{REPO}/labels", f"POST /repos/{REPO}/issues", f"POST /repos/{REPO}/issues/3/assignees"]
    )  # fmt: skip
    assert [r["path"] for r in served if r["path"] == "/graphql"] == ["/graphql"]
    assert [i.assignees[0].login for i in bench.risk_issues()] == ["wes", "wes"]


def test_an_aws_secret_written_after_its_key_id_in_a_reason_reaches_no_body_and_no_state(bench: Bench) -> None:
    key_id, secret = "AKIAQX7TESTKEYID0001", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    comment = bench.say("ada", f"/gauntlet accept-risk all rotated, was {key_id} and then {secret} for deploys")
    bench.deliver(comment)
    assert len(bench.risk_issues()) == 2, "the command was carried out (criticals are accepted one by one)"
    written = "\n".join([*bench.bot_bodies(), json.dumps(bench.state())])
    assert "rotated, was" in written
    assert key_id not in written and secret not in written
