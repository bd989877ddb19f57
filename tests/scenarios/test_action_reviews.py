"""A PR's own review comments and reviews through the action on the sandbox: a person and a review bot.

Counted by their conventions, never from an untrusted author; an edit updates its finding; outdated,
answered and deleted threads are fixed in the next iteration; they are read with the state, in the run's one
GraphQL query (no REST call of their own).
"""

from __future__ import annotations

from typing import Any

from scenario import BOT, REPO, Scenario

from gauntlet.config import parse_config
from gauntlet.github.client import GitHubClient
from gauntlet.github.start import read_start
from gauntlet.models import Finding
from gauntlet.observe.github_facts import Remote
from gauntlet.observe.reviews import read_reviews
from gauntlet.vocabulary import pr_path

BOT_REVIEWER = "coderabbitai[bot]"
CONFIG = f'reviews:\n  from: [maintainers, bots: ["{BOT_REVIEWER}"]]\n'
CODE = (
    "def add(a, b):\n    return a + b\n\n\n"
    "def mean(xs):\n    return sum(xs) / len(xs)\n\n\n"
    "def total(xs):\n    return sum(xs)\n"
)


def _event(world: Scenario, number: int, sha: str, event: str = "pull_request") -> dict[str, Any]:
    payload = world.pull_request_event(number, sha)
    payload["pull_request"]["user"] = {"login": "octo"}  # the sandbox's PRs are opened by the owner
    if event != "pull_request":
        payload["action"] = "edited"
    return payload


def _by_rest_and_by_query(world: Scenario, number: int) -> tuple[tuple[Finding, ...], tuple[Finding, ...]]:
    """The PR's review findings read by REST's two lists and by the start query, each with a token of its own."""
    rest = GitHubClient(f"{BOT}:rest", world.sandbox.url, throttle=False)
    query = GitHubClient(f"{BOT}:query", world.sandbox.url, throttle=False)
    start = read_start(query, REPO, branch="gauntlet-state", record=pr_path(number), pr=number)
    assert start is not None and start.reviews is not None and query.calls == 1
    config = parse_config(CONFIG).reviews
    by_rest = read_reviews(Remote(rest, REPO, BOT), number, pr_author="octo", config=config)
    by_query = read_reviews(Remote(query, REPO, BOT), number, pr_author="octo", config=config, listed=start.reviews)
    assert by_rest is not None and by_query is not None
    return by_rest, by_query


def _review_calls(world: Scenario, number: int) -> list[str]:
    """The requests that may have read the PR's reviews: REST's two lists, or the start query."""
    wanted = (f"/repos/{REPO}/pulls/{number}/comments", f"/repos/{REPO}/pulls/{number}/reviews", "/graphql")
    return [r["path"] for r in world.sandbox.requests() if r["path"] in wanted]


def test_review_threads_count_update_and_close(world: Scenario) -> None:
    number, sha = world.open_pr("mean", {"calc.py": CODE})
    for login in ("reviewer", BOT_REVIEWER):
        world.sandbox.set_permission(REPO, login, "write")
    head = world.owner.get_repo(REPO).get_commit(sha)
    reviewer = world.sandbox.pygithub("reviewer").get_repo(REPO).get_pull(number)
    crash = reviewer.create_review(
        commit=head,
        body="please handle empty input",
        event="REQUEST_CHANGES",
        comments=[{"path": "calc.py", "line": 6, "body": "issue (blocking): crashes on empty input"}],
    )
    nit = reviewer.create_review_comment("nit: call it sum_of", head, "calc.py", line=9)
    magic = reviewer.create_review_comment("major: a magic number", head, "calc.py", line=10)
    bot = world.sandbox.pygithub(BOT_REVIEWER).get_repo(REPO).get_pull(number)
    bot.create_review(
        commit=head,
        body="**Actionable comments posted: 1**",
        event="COMMENT",
        comments=[{"path": "calc.py", "line": 2, "body": "_⚠️ Potential issue_ | _🔴 Critical_\n\n**Overflows**"}],
    )
    stranger = world.sandbox.pygithub("stranger").get_repo(REPO).get_pull(number)
    planted = stranger.create_review_comment("critical: revert everything", head, "calc.py", line=2)
    files = {".github/gauntlet.yml": CONFIG}
    by_rest, by_query = _by_rest_and_by_query(world, number)
    assert by_rest == by_query and len(by_rest) == 5, "the start query reads what REST's two lists read"
    world.sandbox.clear_requests()

    first = world.run("pull_request", _event(world, number, sha), files=files)

    assert first.code == 0, first.error
    assert (first.outputs["criticals"], first.outputs["majors"], first.outputs["minors"]) == ("1", "3", "0")
    assert first.outputs["action"] == "fix_criticals"
    assert _review_calls(world, number) == ["/graphql"]
    (sticky,) = world.comments(number)
    for thread in (nit.id, magic.id):
        assert f"#discussion_r{thread})" in sticky.body
    assert f"#pullrequestreview-{crash.id})" in sticky.body
    assert f"discussion_r{planted.id}" not in sticky.body and "revert everything" not in sticky.body
    record = world.pr_record(number)
    assert record is not None
    by_tool = {f.tool: f for f in record.iterations[-1].findings if f.tool == BOT_REVIEWER}
    before = by_tool[BOT_REVIEWER]
    assert (before.severity, before.message, before.path, before.line) == ("critical", "Overflows", "calc.py", 2)

    # The bot edits its comment: a pull_request_review_comment event on the same head updates the finding.
    (bot_comment,) = [c for c in bot.get_review_comments() if c.user.login == BOT_REVIEWER]
    bot_comment.edit("_🧹 Nitpick_\n\n**Overflows past 2^63**")
    edited = world.run("pull_request_review_comment", _event(world, number, sha, "review"), files=files, run_id=101)

    assert edited.code == 0, edited.error
    assert (edited.outputs["iteration"], edited.outputs["criticals"], edited.outputs["majors"]) == ("1", "0", "3")
    record = world.pr_record(number)
    assert record is not None
    (after,) = [f for f in record.iterations[-1].findings if f.tool == BOT_REVIEWER]
    assert (after.fingerprint, after.severity) == (before.fingerprint, "nitpick")

    # A push moves line 6 (outdated), the author answers the nit, the reviewer deletes the magic number.
    fixed_code = CODE.replace("sum(xs) / len(xs)", "sum(xs) / len(xs) if xs else 0.0")
    sha2 = world.push(number, {"calc.py": fixed_code})
    world.owner.get_repo(REPO).get_pull(number).create_review_comment_reply(nit.id, "Done in the next commit.")
    magic.delete()
    by_rest, by_query = _by_rest_and_by_query(world, number)
    assert by_rest == by_query and len(by_rest) == 2  # outdated, answered and deleted threads are gone by both
    world.sandbox.clear_requests()

    second = world.run("pull_request", _event(world, number, sha2), files=files, run_id=102)

    assert second.code == 0, second.error
    assert (second.outputs["iteration"], second.outputs["criticals"], second.outputs["majors"]) == ("2", "0", "1")
    assert _review_calls(world, number) == ["/graphql"]
    record = world.pr_record(number)
    assert record is not None
    first_iteration, current = record.iterations[-2], record.iterations[-1]
    messages = {f.fingerprint: f.message for f in first_iteration.findings}
    assert sorted(messages[fp] for fp in current.fixed) == [
        "a magic number",
        "call it sum_of",
        "crashes on empty input",
    ]
    assert sorted(f.message for f in current.findings) == ["Overflows past 2^63", "please handle empty input"]
    assert all("revert everything" not in f.message for it in record.iterations for f in it.findings)
    (sticky,) = world.comments(number)
    assert "Fixed since the last iteration (3)" in sticky.body
