"""Authorisation: permission levels per command, bots and Gauntlet ignored, no self-approval, no edits."""

from __future__ import annotations

import pytest

from gauntlet.config import CommandsConfig
from gauntlet.engine.authorise import PERMISSION_RANK, ignored_because, is_bot, refusal, required_permission
from gauntlet.engine.commands import COMMAND_NAMES, CommandName, parse_commands
from gauntlet.models import CommentFact, Permission

PERMISSIONS: list[Permission] = ["none", "read", "triage", "write", "maintain", "admin"]
DEFAULT_NEED: dict[CommandName, Permission] = {
    "help": "none",
    "status": "none",
    "retry": "write",
    "accept-risk": "maintain",
    "approve": "maintain",
    "reject": "maintain",
    "reset": "maintain",
    "flaky": "maintain",
    "not-flaky": "maintain",
    "known": "maintain",
}


def comment(author: str = "alice", permission: Permission = "none", **extra: object) -> CommentFact:
    return CommentFact.model_validate(
        {"id": 1, "body": "", "author": author, "author_permission": permission, "issue_number": 7, **extra}
    )


def test_levels_are_ranked() -> None:
    assert sorted(PERMISSIONS, key=PERMISSION_RANK.__getitem__) == PERMISSIONS


@pytest.mark.parametrize("name", COMMAND_NAMES)
@pytest.mark.parametrize("have", PERMISSIONS)
def test_default_levels(name: CommandName, have: Permission) -> None:
    (parsed,) = parse_commands(f"/gauntlet {name} P-1")
    allowed = refusal(parsed, comment(permission=have), CommandsConfig(), None) is None
    assert allowed == (PERMISSION_RANK[have] >= PERMISSION_RANK[DEFAULT_NEED[name]])


def test_levels_are_configurable() -> None:
    config = CommandsConfig(retry="admin", status="read")
    assert required_permission("retry", config) == "admin"
    (retry,) = parse_commands("/gauntlet retry")
    (status,) = parse_commands("/gauntlet status")
    assert refusal(retry, comment(permission="maintain"), config, None) is not None
    assert refusal(retry, comment(permission="admin"), config, None) is None
    assert refusal(status, comment(permission="none"), config, None) is not None


def test_the_refusal_says_what_is_needed_and_what_the_author_has() -> None:
    (reset,) = parse_commands("/gauntlet reset")
    reason = refusal(reset, comment(permission="write"), CommandsConfig(), None)
    assert reason is not None
    assert "maintain" in reason
    assert "write" in reason


@pytest.mark.parametrize("text", ["/gauntlet approve P-1", "/gauntlet accept-risk all"])
def test_the_pr_author_cannot_approve_what_concerns_their_pr(text: str) -> None:
    (parsed,) = parse_commands(text)
    admin = comment(author="Alice", permission="admin")
    assert refusal(parsed, admin, CommandsConfig(), "alice") is not None
    assert refusal(parsed, admin, CommandsConfig(), "bob") is None
    assert refusal(parsed, admin, CommandsConfig(allow_self_approval=True), "alice") is None


def test_the_pr_author_may_reject_retry_and_reset() -> None:
    admin = comment(author="alice", permission="admin")
    for text in ("/gauntlet reject P-1", "/gauntlet retry", "/gauntlet reset"):
        (parsed,) = parse_commands(text)
        assert refusal(parsed, admin, CommandsConfig(), "alice") is None


@pytest.mark.parametrize(
    ("author", "author_type"),
    [("dependabot[bot]", "Bot"), ("renovate[bot]", "User"), ("some-app", "Bot"), ("github-actions[bot]", "Bot")],
)
def test_bots_are_never_read(author: str, author_type: str) -> None:
    fact = comment(author=author, permission="admin", author_type=author_type)
    assert is_bot(fact)
    assert ignored_because(fact) is not None


@pytest.mark.parametrize("own", ["gauntlet-bot", "GAUNTLET-BOT", "gauntlet-bot[bot]"])
def test_gauntlet_itself_is_never_read_even_as_a_plain_user(own: str) -> None:
    fact = comment(author="gauntlet-bot", permission="admin", gauntlet_login=own)
    assert ignored_because(fact) is not None


@pytest.mark.parametrize("action", ["edited", "deleted"])
def test_edited_comments_are_never_read(action: str) -> None:
    assert ignored_because(comment(permission="admin", action=action)) is not None


def test_a_new_comment_by_a_person_is_read() -> None:
    assert ignored_because(comment(permission="none")) is None
