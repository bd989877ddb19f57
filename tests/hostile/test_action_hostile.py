"""The whole action on the sandbox, fed the attack on every channel; then everything it wrote is read back.

Channels: every findings format and a job log in the workspace, the branch name, the PR title, commit
messages (PR and default branch), and ``/gauntlet`` comments (a reason quoting secrets, a 70,000-character
comment, lone surrogates). What is read back: every body, title and annotation Gauntlet sent (the
sandbox's responses to its writes, and the check runs' annotations), the job summary, the outputs and
stdout, and every file on the state branch. None may hold a secret; no body may hold a live mention,
HTML from input, a heading or fence from input, or more than one marker; every run exits 0, 1 or 2 in
bounded time.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from channels import DOCUMENTS, SENTINEL, attack
from markdown_kit import blocks_with, foreign_html, live_mentions, markers
from scenario import BOT, OWNER, REPO, Outcome, Scenario
from secrets_kit import in_context, leaked, make_secrets

from gauntlet.sandbox import Sandbox

MAINTAINER = "mia"
#: Writes whose responses carry text Gauntlet composed (git data is checked on the state branch instead).
_TEXT_OPERATIONS = ("issue", "comment", "pull", "check")


class Posted:
    """Every 2xx response to a write: what GitHub now shows."""

    def __init__(self) -> None:
        self.items: list[tuple[str, Any]] = []

    def __call__(self, method: str, operation: str, status: int, body: Any) -> None:
        if method in ("POST", "PATCH", "PUT") and 200 <= status < 300 and any(w in operation for w in _TEXT_OPERATIONS):
            author = (body.get("user") or {}).get("login") if isinstance(body, dict) else None
            if author in (None, BOT):  # people's own comments and PRs are theirs to write
                self.items.append((operation, body))

    def bodies(self) -> list[str]:
        """The Markdown bodies among them (comments, issues, PRs, check summaries)."""
        found = []
        for _, body in self.items:
            if isinstance(body, dict):
                found += [body[k] for k in ("body",) if isinstance(body.get(k), str)]
                output = body.get("output") or {}
                found += [output[k] for k in ("summary", "text") if isinstance(output.get(k), str)]
        return found


@pytest.fixture(name="world")
def hostile_world(tmp_path: Path) -> Iterator[tuple[Scenario, Posted]]:
    posted = Posted()
    with Sandbox.start() as sandbox:
        sandbox.observe(posted)
        sandbox.create_repo(REPO, {"README.md": "# app\n", "src/app.py": "x = 1\n"})
        sandbox.set_permission(REPO, BOT, "write")
        sandbox.set_permission(REPO, MAINTAINER, "maintain")
        yield Scenario(sandbox=sandbox, owner=sandbox.pygithub(OWNER), root=tmp_path), posted
        assert not sandbox.app.crashes, "sandbox handler crashed:\n" + "\n".join(sandbox.app.crashes)


def workspace_files(secrets: dict[str, str]) -> dict[str, str]:
    return {name: make(secrets).decode("utf-8", "replace") for name, make in DOCUMENTS.items()}


FINDINGS = ",".join(name for name in DOCUMENTS if name != "job.log")


def comment_event(world: Scenario, number: int, body: str) -> dict[str, Any]:
    """The maintainer comments ``body``; the ``issue_comment`` payload, carrying all of ``body``.

    GitHub refuses bodies over 65,536 characters, so a longer one is posted cut and delivered whole
    (a forged or future payload must not hang Gauntlet either).
    """
    repo = world.sandbox.pygithub(MAINTAINER).get_repo(REPO)
    comment = repo.get_issue(number).create_comment(body[:65_536])
    issue = world.owner.get_repo(REPO).get_issue(number)
    return {"action": "created", "comment": {**comment.raw_data, "body": body}, "issue": issue.raw_data,
            "repository": {"full_name": REPO, "default_branch": "main"}}  # fmt: skip


def state_files(world: Scenario) -> dict[str, bytes]:
    repo = world.owner.get_repo(REPO)
    tree = repo.get_git_tree("gauntlet-state", recursive=True)
    return {e.path: bytes(repo.get_contents(e.path, ref="gauntlet-state").decoded_content)  # type: ignore[union-attr]
            for e in tree.tree if e.type == "blob"}  # fmt: skip


def annotations(world: Scenario) -> list[dict[str, Any]]:
    repo = world.owner.get_repo(REPO)
    found = []
    for pull in repo.get_pulls(state="all"):
        for run in repo.get_commit(pull.head.sha).get_check_runs(filter="all"):
            found += [a.raw_data for a in run.get_annotations()]
    return found


def test_the_attack_on_every_channel_leaves_no_secret_no_ping_and_no_crash(world: tuple[Scenario, Posted]) -> None:
    action, posted = world
    secrets = make_secrets(2026)
    # Commit facts keep 200 characters of a subject: the secrets go first.
    reason = in_context(secrets)
    hostile_subject = " ".join(reason[k] for k in ("github ghp", "npm", "password in url")) + " @everyone <b>x</b>"
    branch = f"feature/@everyone-{secrets['github ghp']}"
    number, sha = action.open_pr(branch, {"src/app.py": "x = 3\n"})
    action.sandbox.commit(REPO, {"src/app.py": "x = 4\n"}, hostile_subject + "\n\n" + attack(secrets), branch=branch)
    sha = action.sandbox.head(REPO, branch) or sha
    event = action.pull_request_event(number, sha, "opened")
    event["pull_request"]["title"] = hostile_subject
    outcomes: list[Outcome] = []
    timings: list[float] = []

    def run(name: str, payload: dict[str, Any], **kw: Any) -> Outcome:
        started = time.monotonic()
        outcome = action.run(name, payload, **kw)
        timings.append(time.monotonic() - started)
        outcomes.append(outcome)
        return outcome

    files = workspace_files(secrets)
    inputs = {"findings": FINDINGS, "logs": "job.log"}
    first = run("pull_request", event, files=files, inputs=inputs)
    assert first.code in (0, 1), first.error
    assert int(first.outputs["criticals"]) >= 1, "the attack's findings were reported"

    comments = [
        "/gauntlet accept-risk all "
        + " ".join(reason[k] for k in ("github ghu", "aws secret access key", "slack", "npm"))
        + " @everyone <b>bold</b> # heading",
        "/gauntlet accept-risk " + "x" * 70_000,
        "/gauntlet status \ud800 \u0000 @everyone",
        "/gauntlet " + "@everyone " * 7_000,
    ]
    for index, body in enumerate(comments):
        outcome = run("issue_comment", comment_event(action, number, body), files={}, run_id=200 + index)
        assert outcome.code in (0, 1, 2), outcome.error

    # The default branch: a culprit whose subject carries the attack, failing twice (confirmed), then a revert.
    good = action.sandbox.head(REPO) or ""
    push = {"ref": "refs/heads/main", "before": good, "repository": {"full_name": REPO, "default_branch": "main"}}
    green = run("push", {**push, "after": good, "before": "0" * 40}, files={}, run_id=300)
    assert green.code == 0, green.error
    culprit = action.sandbox.commit(REPO, {"src/app.py": "x = 5\n"}, hostile_subject, author="bob")
    for run_id in (301, 302):
        outcome = run("push", {**push, "after": culprit}, files=files, inputs=inputs, run_id=run_id)
        assert outcome.code in (0, 1), outcome.error

    assert all(o.code in (0, 1, 2) and "Traceback" not in o.error for o in outcomes)
    assert max(timings) < 30, timings
    bodies = posted.bodies()
    assert len(bodies) >= 5, "comments, replies, issues and check summaries were written"
    everything = {
        "posted": json.dumps([body for _, body in posted.items], ensure_ascii=False),
        "annotations": json.dumps(annotations(action), ensure_ascii=False),
        "summaries": "".join(o.summary for o in outcomes),
        "outputs": json.dumps([o.outputs for o in outcomes], ensure_ascii=False),
        "stdout": "".join(o.stdout for o in outcomes),
        **{f"state:{path}": data.decode() for path, data in state_files(action).items()},
    }
    leaks = {where: leaked(text, secrets) for where, text in everything.items() if leaked(text, secrets)}
    assert leaks == {}, leaks
    for body in [*bodies, *(o.summary for o in outcomes)]:
        assert markers(body) <= 1, body[:300]
        assert live_mentions(body) == [], (live_mentions(body), body[:300])
        assert foreign_html(body) == [], foreign_html(body)
        assert blocks_with(body, SENTINEL) == [], blocks_with(body, SENTINEL)


@pytest.mark.parametrize(
    ("event", "payload"),
    [
        ("pull_request", {"action": "opened", "number": "9" * 5000, "pull_request": {"number": 10**30}}),
        ("pull_request", {"action": "opened", "pull_request": {"head": {"sha": "\ud800" * 40, "ref": None}}}),
        ("issue_comment", {"action": "created", "comment": {"body": ["not", "text"], "user": "x"}, "issue": 5}),
        ("issue_comment", {"action": "created", "comment": {"id": 2**70, "body": "/gauntlet status \ud800",
                           "user": {"login": "@everyone"}}, "issue": {"number": -1, "pull_request": {}}}),
        ("push", {"ref": "refs/heads/main", "after": "<script>", "before": "9" * 5000, "commits": "x"}),
        ("workflow_run", {"action": "completed", "workflow_run": {"id": "1e999", "pull_requests": [None, 7]}}),
    ],
)  # fmt: skip
def test_a_hostile_event_payload_gets_a_clear_answer(
    world: tuple[Scenario, Posted], event: str, payload: dict[str, Any]
) -> None:
    action, posted = world
    payload = {**payload, "repository": {"full_name": REPO, "default_branch": "main"}}

    outcome = action.run(event, payload, files={})

    assert outcome.code in (0, 2), outcome.error
    assert "Traceback" not in outcome.error and "\n" not in outcome.error.strip()
    assert all(markers(body) <= 1 and live_mentions(body) == [] for body in posted.bodies())


def _review(**fields: str) -> str:
    """A review agent's findings file (the demo's format) with one major finding."""
    finding = {"reviewer": "sec", "severity": "high", "category": "security", "location": "src/app.py:1", **fields}
    return json.dumps({"issues": [finding]})


def _body_line(pem: str) -> str:
    """A line of a key's body quoted without its markers, after other words: ``k MIIE...``."""
    return "k " + next(line for line in pem.splitlines() if line.startswith("MII"))


@pytest.mark.parametrize("shape", [str, _body_line], ids=["pem block", "body line after words"])
def test_a_private_key_in_a_review_finding_reaches_no_comment_check_or_issue(
    world: tuple[Scenario, Posted], shape: Callable[[str], str]
) -> None:
    """Issue 30, item 12: a PEM block a reviewer quoted goes from the comment, the check and the issues filed;
    so does a line of its body quoted without the block's markers."""
    action, posted = world
    key = {"private key": shape(make_secrets(30)["private key"]).removeprefix("k ")}
    quoted = shape(make_secrets(30)["private key"])
    review = _review(description=f"The deploy key is committed here:\n{quoted}\nRotate it.")
    number, sha = action.open_pr("key", {"src/app.py": "x = 2\n"})
    only = {"logs": "", "findings": "review.json"}
    ran = action.run("pull_request", action.pull_request_event(number, sha, "opened"), files={"review.json": review},
                     inputs=only)  # fmt: skip
    assert ran.code == 0, ran.error
    assert ran.outputs["majors"] == "1"
    accepted = action.run("issue_comment", comment_event(action, number, "/gauntlet accept-risk all rotated"), run_id=2)
    assert accepted.code == 0, accepted.error

    [issue] = [i for i in action.repo.get_issues(state="all") if i.pull_request is None]
    shown = quoted.replace(key["private key"], "[REDACTED]")
    assert issue.title == f"[Gauntlet/major] accepted risk: The deploy key is committed here: {shown} Rotate it."
    comments = [c.body for c in action.comments(number)]
    checks = [f"{r.output.summary}{r.output.text}" for r in action.check_runs(sha)]
    for where in (comments, checks, [issue.body]):
        assert any(f"The deploy key is committed here: {shown}" in body for body in where), where
    written = [*posted.bodies(), *comments, *checks, issue.body, ran.summary, accepted.summary]
    assert [leaked(body, key) for body in written if leaked(body, key)] == []
    assert leaked("".join(data.decode() for data in state_files(action).values()), key) == []


def test_lone_surrogates_in_a_review_file_give_a_finding_not_a_crash(world: tuple[Scenario, Posted]) -> None:
    """Issue 30, item 12: ``\\ud800`` in a review JSON's strings once crashed ingest with UnicodeDecodeError."""
    action, _ = world
    review = _review(reviewer="r\ud800", description="Unchecked \ud800 input \udc00 here")
    assert "\\ud800" in review  # the escapes JSON writes for lone surrogates, as a review agent's encoder would
    number, sha = action.open_pr("surrogates", {"src/app.py": "x = 2\n"})

    ran = action.run("pull_request", action.pull_request_event(number, sha, "opened"), files={"review.json": review},
                     inputs={"logs": "", "findings": "review.json"})  # fmt: skip

    assert ran.code == 0, ran.error
    assert ran.outputs["majors"] == "1" and ran.report["input_problems"] == []
    [comment] = action.comments(number)
    assert "Unchecked \ufffd input \ufffd here" in comment.body
