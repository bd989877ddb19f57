"""Users, rate limit, repositories, branches and collaborators."""

from __future__ import annotations

import time
from typing import Any

from gauntlet.sandbox.app import RATE_LIMIT, Context
from gauntlet.sandbox.http import ApiError, Response, Router, paginate, required_text, validation_failed
from gauntlet.sandbox.rules import rest_rules
from gauntlet.sandbox.store import PERMISSIONS, Repo
from gauntlet.sandbox.views import git as git_views
from gauntlet.sandbox.views.repos import public_user, repository, user
from gauntlet.sandbox.writes import commit_files

router = Router()


@router.add("GET", "/user")
def get_authenticated(ctx: Context) -> Response:
    """The user the token authenticates as."""
    who = ctx.store.user(ctx.need_login())
    private = {
        "private_gists": 0,
        "total_private_repos": 0,
        "owned_private_repos": 0,
        "disk_usage": 0,
        "collaborators": 0,
        "two_factor_authentication": False,
        "user_view_type": "private",
    }
    return Response(body={**public_user(ctx.base, who), **private})


@router.add("GET", "/users/{username}")
def get_user(ctx: Context) -> Response:
    """Any user (users are created on first sight)."""
    return Response(body=public_user(ctx.base, ctx.store.user(ctx.params["username"])))


@router.add("GET", "/rate_limit")
def rate_limit(ctx: Context) -> Response:
    """The primary rate limits as the headers count them, REST's and GraphQL's (the sandbox never refuses for them)."""
    reset = (int(time.time()) // 3600 + 1) * 3600
    with ctx.store.lock:
        used = ctx.store.rate_used.get(ctx.login or "", 0)
        points = ctx.store.graphql_used.get(ctx.login or "", 0)

    def resource(spent: int) -> dict[str, int]:
        return {"limit": RATE_LIMIT, "remaining": max(0, RATE_LIMIT - spent), "reset": reset, "used": spent}

    core = resource(used)
    # GraphQL's points are a budget of their own (``App.charge``).
    return Response(body={"resources": {"core": core, "search": core, "graphql": resource(points)}, "rate": core})


def _create(ctx: Context, owner: str) -> Response:
    body = ctx.body()
    name = required_text(body, "name", "Repository")
    try:
        repo = ctx.store.create_repo(
            owner,
            name,
            private=bool(body.get("private", False)),
            description=body.get("description"),
        )
    except ValueError as exc:
        raise validation_failed(
            "Repository creation failed.",
            resource="Repository",
            code="custom",
            field="name",
            message="name already exists on this account",
        ) from exc
    if body.get("auto_init"):
        commit_files(repo, repo.default_branch, {"README.md": f"# {name}\n".encode()}, "Initial commit", owner)
    return Response(status=201, body=_repo_view(ctx, repo))


def _repo_view(ctx: Context, repo: Repo) -> dict[str, Any]:
    return repository(ctx.base, repo, ctx.store.user(repo.owner), ctx.login)


@router.add("POST", "/user/repos")
def create_for_user(ctx: Context) -> Response:
    """Create a repository owned by the requester."""
    return _create(ctx, ctx.need_login())


@router.add("GET", "/orgs/{org}")
def get_org(ctx: Context) -> Response:
    """An organisation; unknown names become organisations on first sight (a user's login is not one)."""
    org = ctx.store.user(ctx.params["org"])
    if org.type == "User" and not any(r.owner.lower() == org.login.lower() for r in ctx.store.repos.values()):
        org = ctx.store.user(org.login, "Organization")
    if org.type != "Organization":
        raise ApiError(404, "Not Found")
    api = f"{ctx.base}/orgs/{org.login}"
    body = {
        "login": org.login,
        "id": org.id,
        "node_id": f"O_{org.id:08d}",
        "url": api,
        "repos_url": f"{api}/repos",
        "events_url": f"{api}/events",
        "hooks_url": f"{api}/hooks",
        "issues_url": f"{api}/issues",
        "members_url": f"{api}/members{{/member}}",
        "public_members_url": f"{api}/public_members{{/member}}",
        "avatar_url": f"{ctx.base}/_sandbox/avatars/{org.login}",
        "description": None,
        "html_url": f"{ctx.base}/{org.login}",
        "type": "Organization",
        "created_at": org.created_at,
        "updated_at": org.created_at,
    }
    return Response(body=body)


@router.add("POST", "/orgs/{org}/repos")
def create_for_org(ctx: Context) -> Response:
    """Create a repository in an organisation (any login may; the sandbox has no org membership)."""
    ctx.need_login()
    ctx.store.user(ctx.params["org"], "Organization")
    return _create(ctx, ctx.params["org"])


@router.add("GET", "/repos/{owner}/{repo}")
def get_repo(ctx: Context) -> Response:
    """A repository as the requester sees it."""
    return Response(body=_repo_view(ctx, ctx.repo()))


def _branch_names(repo: Repo) -> list[tuple[str, str]]:
    return [(name.removeprefix("refs/heads/"), sha) for name, sha in repo.git.refs("refs/heads/")]


@router.add("GET", "/repos/{owner}/{repo}/branches")
def list_branches(ctx: Context) -> Response:
    """Branches, sorted by name."""
    repo = ctx.repo()
    api = f"{ctx.base}/repos/{repo.full_name}"
    items = [
        {"name": name, "commit": {"sha": sha, "url": f"{api}/commits/{sha}"}, "protected": False}
        for name, sha in _branch_names(repo)
    ]
    page, links = paginate(ctx.request, items)
    return Response(body=page, headers=links)


@router.add("GET", "/repos/{owner}/{repo}/branches/{branch}")
def get_branch(ctx: Context) -> Response:
    """One branch with its head commit."""
    repo = ctx.repo()
    name = ctx.params["branch"]
    sha = repo.git.ref(f"refs/heads/{name}")
    if sha is None:
        raise ApiError(404, "Branch not found")
    api = f"{ctx.base}/repos/{repo.full_name}"
    body = {
        "name": name,
        "commit": git_views.commit(ctx.base, ctx.store, repo, repo.git.read_commit(sha)),
        "_links": {"self": f"{api}/branches/{name}", "html": f"{ctx.base}/{repo.full_name}/tree/{name}"},
        "protected": False,
        "protection": {"enabled": False, "required_status_checks": {"enforcement_level": "off", "contexts": []}},
        "protection_url": f"{api}/branches/{name}/protection",
    }
    return Response(body=body)


@router.add("GET", "/repos/{owner}/{repo}/rules/branches/{branch}")
def get_branch_rules(ctx: Context) -> Response:
    """The active rules of a branch, which need not exist (https://docs.github.com/rest/repos/rules)."""
    repo = ctx.repo()
    page, links = paginate(ctx.request, rest_rules(repo, ctx.params["branch"]))
    return Response(body=page, headers=links)


@router.add("PUT", "/repos/{owner}/{repo}/collaborators/{username}")
def put_collaborator(ctx: Context) -> Response:
    """Grant a permission at once (GitHub would send an invitation first)."""
    repo = ctx.repo("admin")
    permission = str(ctx.body().get("permission", "write"))
    if permission == "pull":
        permission = "read"
    if permission == "push":
        permission = "write"
    if permission not in PERMISSIONS[1:]:
        raise validation_failed(resource="Repository", code="invalid", field="permission")
    login = ctx.store.user(ctx.params["username"]).login
    with ctx.store.lock:
        repo.collaborators[login.lower()] = permission
    return Response(status=204)


@router.add("GET", "/repos/{owner}/{repo}/collaborators/{username}/permission")
def get_permission(ctx: Context) -> Response:
    """The permission a user has; ``permission`` uses GitHub's legacy words (triage→read, maintain→write)."""
    repo = ctx.repo()
    who = ctx.store.user(ctx.params["username"])
    role = repo.permission(who.login)
    legacy = {"none": "none", "read": "read", "triage": "read", "write": "write", "maintain": "write"}.get(role, role)
    collaborator = {**user(ctx.base, who), "permissions": _flags(role), "role_name": role}
    return Response(body={"permission": legacy, "role_name": role, "user": collaborator})


def _flags(role: str) -> dict[str, bool]:
    order = PERMISSIONS.index(role)
    return {
        "pull": order >= 1,
        "triage": order >= 2,
        "push": order >= 3,
        "maintain": order >= 4,
        "admin": order >= 5,
    }
