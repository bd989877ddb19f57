"""Users, repositories, branches, permissions and rate-limit headers through PyGithub."""

from __future__ import annotations

from collections.abc import Callable

import github
import pytest
import requests

from gauntlet.sandbox import Sandbox

Client = Callable[..., github.Github]

BOT = "github-actions[bot]"
REPO = "octo/app"


def test_token_text_is_the_login_and_bots_are_bots(sandbox: Sandbox, client: Client) -> None:
    assert client("alice").get_user().login == "alice"
    bot = client(BOT).get_user(BOT)
    assert bot.type == "Bot"
    assert client("alice").get_user("alice").type == "User"


def test_rate_limit_and_headers(sandbox: Sandbox, gh: github.Github) -> None:
    gh.get_user("someone").login  # noqa: B018 - one counted call
    core = gh.get_rate_limit().resources.core
    assert core.limit == 5000 and 0 < core.remaining < 5000
    response = requests.get(f"{sandbox.url}/users/x", headers={"Authorization": "token x"}, timeout=5)
    for header in ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-RateLimit-Used"):
        assert header in response.headers
    missing = requests.get(f"{sandbox.url}/nope", timeout=5)
    assert missing.status_code == 404 and "X-RateLimit-Remaining" in missing.headers


def test_create_repos_for_user_and_org(sandbox: Sandbox, gh: github.Github) -> None:
    made = gh.get_user().create_repo("lib", auto_init=True, private=True)
    assert made.full_name == "octo/lib" and made.private
    assert made.get_branch("main").commit.commit.message == "Initial commit"
    org_repo = gh.get_organization("acme").create_repo("svc")
    assert org_repo.full_name == "acme/svc"
    assert org_repo.url.startswith(sandbox.url)
    with pytest.raises(github.GithubException) as info:
        gh.get_user().create_repo("lib")
    assert info.value.status == 422


def test_branches(sandbox: Sandbox, gh: github.Github, repo_name: str) -> None:
    sandbox.commit(repo_name, {"x.txt": "x"}, branch="feature/x")
    repo = gh.get_repo(repo_name)
    assert [b.name for b in repo.get_branches()] == ["feature/x", "main"]
    branch = repo.get_branch("feature/x")
    assert branch.commit.sha == sandbox.head(repo_name, "feature/x")
    with pytest.raises(github.UnknownObjectException):
        repo.get_branch("missing")


def test_permissions_and_forbidden_writes(sandbox: Sandbox, client: Client, gh: github.Github, repo_name: str) -> None:
    repo = gh.get_repo(repo_name)
    assert repo.get_collaborator_permission("octo") == "admin"
    assert repo.get_collaborator_permission("stranger") == "read"
    repo.add_to_collaborators("maint", permission="maintain")
    assert repo.get_collaborator_permission("maint") == "write"
    fork_token = client("fork-pr[bot]").get_repo(repo_name)
    with pytest.raises(github.GithubException) as info:
        fork_token.create_label("x", "ffffff")
    assert info.value.status == 403
    assert info.value.data["message"] == "Resource not accessible by integration"
    # A bot needs write even to comment; a human reader may comment, as on github.com.
    issue = repo.create_issue("hello")
    with pytest.raises(github.GithubException):
        fork_token.get_issue(issue.number).create_comment("no")
    client("stranger").get_repo(repo_name).get_issue(issue.number).create_comment("/gauntlet approve")
    assert client(BOT).get_repo(repo_name).get_issue(issue.number).create_comment("ok").user.login == BOT


def test_private_repos_are_invisible(sandbox: Sandbox, client: Client, gh: github.Github) -> None:
    sandbox.create_repo("octo/secret", private=True)
    with pytest.raises(github.UnknownObjectException):
        client("stranger").get_repo("octo/secret")
    sandbox.set_permission("octo/secret", "friend", "read")
    assert client("friend").get_repo("octo/secret").permissions.pull


def test_urls_use_the_requests_own_host(sandbox: Sandbox, repo_name: str) -> None:
    other = sandbox.url.replace("127.0.0.1", "localhost")
    body = requests.get(f"{other}/repos/{REPO}", headers={"Authorization": "token octo"}, timeout=5).json()
    assert body["url"].startswith(other) and body["owner"]["url"].startswith(other)
