"""JSON views of users and repositories."""

from __future__ import annotations

from typing import Any

from gauntlet.sandbox.store import Repo, User, permission_at_least


def api(base: str, repo: Repo) -> str:
    """The repository's API URL."""
    return f"{base}/repos/{repo.full_name}"


def node_id(kind: str, number: int) -> str:
    """A stable opaque node id."""
    return f"{kind}_{number:08d}"


def user(base: str, who: User) -> dict[str, Any]:
    """A ``simple-user``."""
    return {
        "login": who.login,
        "id": who.id,
        "node_id": node_id("U", who.id),
        "avatar_url": f"{base}/_sandbox/avatars/{who.login}",
        "gravatar_id": "",
        "url": f"{base}/users/{who.login}",
        "html_url": f"{base}/{who.login}",
        "type": who.type,
        "site_admin": False,
        "name": None,
        "email": None,
    }


def public_user(base: str, who: User) -> dict[str, Any]:
    """A ``public-user`` (``GET /users/{u}``, ``GET /user``)."""
    return {
        **user(base, who),
        "company": None,
        "blog": "",
        "location": None,
        "hireable": None,
        "bio": None,
        "twitter_username": None,
        "public_repos": 0,
        "public_gists": 0,
        "followers": 0,
        "following": 0,
        "created_at": who.created_at,
        "updated_at": who.created_at,
        "user_view_type": "public",
    }


def permissions(repo: Repo, login: str | None) -> dict[str, bool]:
    """The ``permissions`` block for the requester."""
    have = repo.permission(login)
    return {
        "admin": permission_at_least(have, "admin"),
        "maintain": permission_at_least(have, "maintain"),
        "push": permission_at_least(have, "write"),
        "triage": permission_at_least(have, "triage"),
        "pull": permission_at_least(have, "read"),
    }


def repository(base: str, repo: Repo, owner: User, login: str | None) -> dict[str, Any]:
    """A ``full-repository`` (also valid where a ``repository`` or ``minimal-repository`` is expected)."""
    url = api(base, repo)
    return {
        "id": repo.id,
        "node_id": node_id("R", repo.id),
        "name": repo.name,
        "full_name": repo.full_name,
        "owner": user(base, owner),
        "private": repo.private,
        "visibility": "private" if repo.private else "public",
        "html_url": f"{base}/{repo.full_name}",
        "description": repo.description,
        "fork": False,
        "url": url,
        "clone_url": f"{base}/{repo.full_name}.git",
        "git_url": f"{base}/{repo.full_name}.git",
        "ssh_url": f"{base}/{repo.full_name}.git",
        "svn_url": f"{base}/{repo.full_name}",
        "mirror_url": None,
        "homepage": None,
        "language": None,
        "default_branch": repo.default_branch,
        "created_at": repo.created_at,
        "updated_at": repo.created_at,
        "pushed_at": repo.created_at,
        "archived": False,
        "disabled": False,
        "is_template": False,
        "has_issues": True,
        "has_projects": False,
        "has_wiki": False,
        "has_pages": False,
        "has_downloads": False,
        "allow_merge_commit": True,
        "allow_squash_merge": True,
        "allow_rebase_merge": False,
        "permissions": permissions(repo, login),
        "topics": [],
        "license": None,
        "open_issues_count": sum(1 for i in repo.issues.values() if i.state == "open"),
        "open_issues": sum(1 for i in repo.issues.values() if i.state == "open"),
        "branches_url": f"{url}/branches{{/branch}}",
        "issues_url": f"{url}/issues{{/number}}",
        "pulls_url": f"{url}/pulls{{/number}}",
        "commits_url": f"{url}/commits{{/sha}}",
        "contents_url": f"{url}/contents/{{+path}}",
        "git_refs_url": f"{url}/git/refs{{/sha}}",
        "labels_url": f"{url}/labels{{/name}}",
        "statuses_url": f"{url}/statuses/{{sha}}",
        "hooks_url": f"{url}/hooks",
    }
