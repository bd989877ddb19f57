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


def test_a_session_token_is_its_logins_with_its_permissions_and_rate_limit(
    sandbox: Sandbox, client: Client, repo_name: str
) -> None:
    job = client(f"{BOT}:job-1")
    assert job.get_user().login == BOT
    issue = client("octo").get_repo(repo_name).create_issue("hello")
    assert job.get_repo(repo_name).get_issue(issue.number).create_comment("ok").user.login == BOT
    with pytest.raises(github.GithubException) as info:  # the permission is the login's: a reader's is read
        client("reader:job-1").get_repo(repo_name).create_label("x", "ffffff")
    assert info.value.status == 403
    used = [int(_get(sandbox, f"/repos/{REPO}", token)[0].headers["X-RateLimit-Used"]) for token in (BOT, f"{BOT}:2")]
    assert used[1] == used[0] + 1, "one hourly count for the login, whichever of its tokens called"


def _get(sandbox: Sandbox, path: str, token: str, etag: str | None = None) -> tuple[requests.Response, int]:
    """``GET path`` with ``token`` (and ``If-None-Match: etag``): the response and the login's used count."""
    headers = {"Authorization": f"token {token}", **({"If-None-Match": etag} if etag else {})}
    response = requests.get(f"{sandbox.url}{path}", headers=headers, timeout=5)
    return response, int(response.headers["X-RateLimit-Used"])


def test_an_etag_is_bound_to_the_token_that_read_it(sandbox: Sandbox, repo_name: str) -> None:
    # GitHub: "it's currently expected for ETags to be auth token specific" (eclipse-csi/otterdog#201).
    path = f"/repos/{REPO}/contents/README.md"
    first, used = _get(sandbox, path, f"{BOT}:job-1")
    etag = first.headers["ETag"]
    again, used_again = _get(sandbox, path, f"{BOT}:job-1", etag)
    assert again.status_code == 304 and again.content == b"" and used_again == used, "the same token: free"
    other, used_other = _get(sandbox, path, f"{BOT}:job-2", etag)
    assert other.status_code == 200 and other.json() == first.json()
    assert used_other == used + 1, "another token of the same login: a full answer, counted"
    assert other.headers["ETag"] != etag
    assert _get(sandbox, path, f"{BOT}:job-2", other.headers["ETag"])[0].status_code == 304
    # A token without a colon is one token as before: its own tag, a 304 with it, a 200 with another's.
    plain, _ = _get(sandbox, path, BOT)
    assert _get(sandbox, path, BOT, plain.headers["ETag"])[0].status_code == 304
    assert _get(sandbox, path, BOT, etag)[0].status_code == 200
    assert _get(sandbox, path, "octo", plain.headers["ETag"])[0].status_code == 200


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
