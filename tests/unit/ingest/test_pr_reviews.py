"""Review threads and reviews of a pull request -> review findings: severity, trust, lifecycle, edits."""

from __future__ import annotations

from typing import Any

import pytest

from gauntlet.ingest.comment import DEFAULT_SEVERITY
from gauntlet.ingest.pr_reviews import Trust, answers, review_findings

URL = "https://github.com/octo/app/pull/7"
TRUST = Trust(bots=frozenset({"CodeRabbitAI[bot]"}))


def comment(
    ident: int, body: str, login: str = "reviewer", *, association: str = "COLLABORATOR", **extra: Any
) -> dict[str, Any]:
    kind = "Bot" if login.endswith("[bot]") else "User"
    return {
        "id": ident,
        "body": body,
        "user": {"login": login, "type": kind},
        "author_association": association,
        "path": "src/app.py",
        "position": 3,
        "line": 12,
        "original_line": 12,
        "html_url": f"{URL}#discussion_r{ident}",
        **extra,
    }


def review(ident: int, state: str, body: str, login: str = "reviewer") -> dict[str, Any]:
    return {
        "id": ident,
        "state": state,
        "body": body,
        "user": {"login": login, "type": "User"},
        "author_association": "MEMBER",
        "html_url": f"{URL}#pullrequestreview-{ident}",
    }


def findings(comments: list[dict[str, Any]], reviews: list[dict[str, Any]] = (), **kw: Any) -> list[Any]:  # type: ignore[assignment]
    return review_findings(
        comments, reviews, pr_author=kw.pop("pr_author", "author"), trust=kw.pop("trust", TRUST), **kw
    )


@pytest.mark.parametrize(
    ("body", "severity"),
    [
        ("issue (blocking): crashes on empty input", "major"),
        ("suggestion (non-blocking): use a dict", "minor"),
        ("nitpick: spacing", "nitpick"),
        ("nit: spacing", "nitpick"),
        ("todo: add a test", "minor"),
        ("chore: bump the pin", "minor"),
        ("**Critical**\nSQL from user input", "critical"),
        ("_⚠️ Potential issue_ | _🟠 Major_\n\nUnset X", "major"),
        ("[major] leaks a handle", "major"),
        ("![high](https://www.gstatic.com/codereviewagent/high-priority.svg)\n\nloops", "major"),
        ("this will crash on empty input", "minor"),
    ],
)
def test_severity_follows_the_convention(body: str, severity: str) -> None:
    (found,) = findings([comment(1, body)])
    assert (found.severity, found.source, found.kind, found.path, found.line) == (
        severity,
        "review",
        "review",
        "src/app.py",
        12,
    )
    assert found.url == f"{URL}#discussion_r1"


@pytest.mark.parametrize("body", ["praise: lovely", "question: why?", "thought: later", ""])
def test_conversation_is_no_finding(body: str) -> None:
    assert findings([comment(1, body)]) == []


def test_the_table_is_configurable_and_covers_every_label() -> None:
    from typing import get_args

    from gauntlet.models import ReviewLabel

    assert set(DEFAULT_SEVERITY) == set(get_args(ReviewLabel))
    table = {**DEFAULT_SEVERITY, "unlabelled": None, "question": "minor", "blocking": "critical"}
    got = findings(
        [comment(1, "plain text"), comment(2, "question: why?"), comment(3, "issue (blocking): x")], severity=table
    )
    assert [(f.url.rsplit("r", 1)[1], f.severity) for f in got] == [("2", "minor"), ("3", "critical")]


def test_only_trusted_authors_count_and_gauntlet_never() -> None:
    got = findings(
        [
            comment(1, "major: from a maintainer"),
            comment(2, "major: from a fork", "stranger", association="CONTRIBUTOR"),
            comment(3, "major: from an unlisted bot", "helper[bot]", association="NONE"),
            comment(4, "_⚠️ Potential issue_\n\nlisted bot", "coderabbitai[bot]", association="NONE"),
            comment(5, "**[critical]** 3 failing", "github-actions[bot]", association="NONE"),
            comment(6, "<!-- gauntlet:key=pr-comment:7 -->\ncritical: x", "octo", association="OWNER"),
        ]
    )
    assert [(f.tool, f.message) for f in got] == [
        ("reviewer", "from a maintainer"),
        ("coderabbitai[bot]", "listed bot"),
    ]
    assert findings([comment(1, "major: x")], trust=Trust(maintainers=False)) == []


def test_outdated_answered_and_deleted_threads_close() -> None:
    outdated = comment(1, "major: gone", position=None, line=None)
    answered = comment(2, "major: answered")
    reply = comment(3, "Fixed in 1a2b3c4.", "Author", in_reply_to_id=2)
    doubted = comment(4, "major: still open")
    question = comment(5, "fixed?", "author", in_reply_to_id=4)
    stranger = comment(6, "done", "someone", in_reply_to_id=4)
    orphan = comment(8, "done", "author", in_reply_to_id=99)  # its thread's first comment was deleted
    got = findings([outdated, answered, reply, doubted, question, stranger, orphan])
    assert [f.message for f in got] == ["still open"]
    assert got[0].line == 12
    (kept,) = findings([comment(1, "major: moved", line=None, original_line=9, subject_type="file", position=None)])
    assert kept.line == 9


@pytest.mark.parametrize(
    ("reply", "closes"),
    [("done", True), ("Done!", True), ("**fixed**", True), ("addressed in abc1234", True), ("Fixed, thanks", True),
     ("fixed?", False), ("not fixed", False), ("doneness", False), ("> done\n\nno", False)],
)  # fmt: skip
def test_answers(reply: str, closes: bool) -> None:
    assert answers(reply) is closes


def test_an_edit_keeps_the_fingerprint_and_updates_the_finding() -> None:
    (before,) = findings([comment(1, "nit: spacing")])
    (after,) = findings([comment(1, "issue: this crashes")])
    assert before.fingerprint == after.fingerprint
    assert (after.severity, after.message) == ("major", "this crashes")
    (other,) = findings([comment(2, "nit: spacing")])
    assert other.fingerprint != before.fingerprint


def test_reviews_count_by_state_and_label() -> None:
    got = findings(
        [],
        [
            review(10, "CHANGES_REQUESTED", "please handle empty input"),
            review(11, "COMMENTED", "Looks fine overall"),
            review(12, "COMMENTED", "nit: the title", "other"),
            review(13, "APPROVED", "", "other"),
            review(14, "DISMISSED", "issue: old"),
            review(15, "CHANGES_REQUESTED", "critical: leaks the token\n\nlesson: never log headers", "third"),
        ],
    )
    assert [(f.tool, f.severity, f.path) for f in got] == [("reviewer", "major", None), ("third", "critical", None)]
    assert got[1].rule_learned == "never log headers"
    assert got[0].url == f"{URL}#pullrequestreview-10"


def test_an_approval_supersedes_the_reviewers_change_request() -> None:
    reviews = [review(10, "CHANGES_REQUESTED", "needs work"), review(11, "APPROVED", "thanks")]
    assert findings([], reviews) == []


def test_malformed_items_are_skipped() -> None:
    junk: list[Any] = [None, 3, {"id": "x"}, {"id": 1}, {"id": 2, "body": 5, "user": "x"}, comment(3, "major: ok")]
    assert [f.message for f in findings(junk, junk)] == ["ok"]
    assert findings([comment(4, "major: x", html_url="javascript:alert(1)")]) == []


def test_the_pr_authors_own_threads_and_reviews_are_notes_not_findings() -> None:
    own = comment(1, "critical: remember to drop the debug flag", login="Author", association="OWNER")
    theirs = comment(2, "critical: SQL from user input", login="reviewer")
    own_review = review(3, "COMMENTED", "critical: revisit before release", login="author")
    found = findings([own, theirs], [own_review])
    assert [f.message for f in found] == ["SQL from user input"]
