"""The comment edge: payload -> CommentFact, and the permission read from the collaborator permission API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from gauntlet.config import Config
from gauntlet.errors import InputError
from gauntlet.github.client import GitHubClient
from gauntlet.models import Observation, Permission
from gauntlet.observe.issue_comment import comment_fact, permission_of
from gauntlet.observe.observation import observe
from gauntlet.observe.payload import Delivery
from gauntlet.sandbox import Sandbox
from gauntlet.settings import Settings

REPO = "octo/app"
BOT = "github-actions[bot]"


def payload(body: str = "/gauntlet status", login: str = "rita", **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "action": "created",
        "comment": {"id": 11, "body": body, "user": {"login": login, "type": "User"}},
        "issue": {"number": 7, "user": {"login": "pat"}, "pull_request": {"url": "x"}},
        "repository": {"full_name": REPO, "default_branch": "trunk"},
    }
    data.update(extra)
    return data


class Lookups:
    """Counts the permission lookups the edge asks for."""

    def __init__(self, level: Permission = "write") -> None:
        self.level = level
        self.asked: list[str] = []

    def __call__(self, login: str) -> Permission:
        self.asked.append(login)
        return self.level


def test_a_command_comment_gets_its_author_permission() -> None:
    lookups = Lookups("maintain")
    fact = comment_fact(payload(), lookups, BOT)
    assert (fact.id, fact.author, fact.author_permission, fact.issue_number) == (11, "rita", "maintain", 7)
    assert fact.is_pull_request
    assert fact.action == "created"
    assert lookups.asked == ["rita"]


@pytest.mark.parametrize(
    "data",
    [
        payload(body="nice work, no commands here"),
        payload(login="dependabot[bot]"),
        payload(login=BOT),
        payload(action="edited"),
    ],
)
def test_no_lookup_when_the_permission_cannot_matter(data: dict[str, Any]) -> None:
    lookups = Lookups()
    fact = comment_fact(data, lookups, BOT)
    assert fact.author_permission == "none"
    assert lookups.asked == []


def test_an_unknown_action_counts_as_an_edit() -> None:
    assert comment_fact(payload(action="bogus"), Lookups(), BOT).action == "edited"


def test_an_issue_is_not_a_pull_request() -> None:
    data = payload()
    del data["issue"]["pull_request"]
    assert not comment_fact(data, Lookups(), BOT).is_pull_request


@pytest.mark.parametrize(
    "broken",
    [
        {"comment": None},
        {"issue": "7"},
        {"comment": {"id": "11", "body": "x"}},
        {"issue": {"number": True}},
        {"comment": {"id": -1, "body": "x"}},
    ],
)
def test_a_broken_payload_is_an_input_error(broken: dict[str, Any]) -> None:
    with pytest.raises(InputError):
        comment_fact(payload(**broken), Lookups(), BOT)


def test_bodies_longer_than_github_allows_are_cut() -> None:
    fact = comment_fact(payload(body="/gauntlet status " + "x" * 200_000), Lookups(), BOT)
    assert len(fact.body) == 65_536


def comment_observation(raw: bytes) -> Observation:
    """The observation the command line and the Action make of an ``issue_comment`` (no GitHub to ask)."""
    delivery = Delivery.of("issue_comment", raw)
    return observe("comment", delivery, Settings(repository=REPO), Config(), bot_login=BOT)


def test_the_observation_names_the_pr_its_author_and_the_default_branch() -> None:
    obs = comment_observation(json.dumps(payload()).encode())
    assert (obs.event, obs.pr, obs.pr_author, obs.default_branch) == ("issue_comment", 7, "pat", "trunk")
    assert obs.comment is not None
    assert obs.comment.author_permission == "none"  # no client: nobody is trusted
    assert obs.id == "comment:11:created"


def test_garbage_payloads_are_input_errors() -> None:
    for raw in (b"not json", b"[1]", b"{}"):
        with pytest.raises(InputError):
            comment_observation(raw)


@pytest.fixture
def client() -> Iterator[GitHubClient]:
    with Sandbox.start() as sandbox:
        sandbox.create_repo(REPO, {"README.md": "x\n"}, private=True)
        for login, level in {
            "ada": "admin",
            "max": "maintain",
            "wes": "write",
            "tia": "triage",
            "rita": "read",
        }.items():
            sandbox.set_permission(REPO, login, level)
        sandbox.set_permission(REPO, BOT, "write")
        yield GitHubClient(BOT, sandbox.url, throttle=False)


def test_permission_levels_come_from_role_name(client: GitHubClient) -> None:
    found = {login: permission_of(client, REPO, login) for login in ("octo", "ada", "max", "wes", "tia", "rita", "eve")}
    assert found == {
        "octo": "admin",
        "ada": "admin",
        "max": "maintain",
        "wes": "write",
        "tia": "triage",
        "rita": "read",
        "eve": "none",
    }
