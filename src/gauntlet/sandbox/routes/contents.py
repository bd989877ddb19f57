"""Contents API, commits, comparisons and the pull requests of a commit.

See https://docs.github.com/rest/repos/contents and https://docs.github.com/rest/commits.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from gauntlet.sandbox.app import Context
from gauntlet.sandbox.git import TreeEntry
from gauntlet.sandbox.http import ApiError, Response, Router, not_found, paginate, validation_failed
from gauntlet.sandbox.store import Repo
from gauntlet.sandbox.views import git as views
from gauntlet.sandbox.views.repos import api
from gauntlet.sandbox.writes import commit_files

router = Router()


def resolve_rev(repo: Repo, rev: str | None) -> str:
    """The commit ``rev`` names (the default branch when ``None``), or a 404."""
    commit = repo.git.resolve_commit(rev or repo.default_branch)
    if commit is None:
        raise ApiError(404, f"No commit found for the ref {rev or repo.default_branch}")
    return commit


def entry_at(repo: Repo, commit: str, path: str) -> TreeEntry | None:
    """The tree entry at ``path`` (repository-relative) in ``commit``, or ``None``."""
    if not path:
        return None
    found = repo.git.ls_tree(commit, path=path)
    return next((e for e in found if e.path == path), None)


@router.add("GET", "/repos/{owner}/{repo}/contents/", documented_as="/repos/{owner}/{repo}/contents/{path}")
@router.add("GET", "/repos/{owner}/{repo}/contents/{path}")
def get_contents(ctx: Context) -> Response:
    """A file with its bytes, or a directory listing (the root's when the path is empty)."""
    repo = ctx.repo()
    ref = ctx.request.query.get("ref") or repo.default_branch
    commit = resolve_rev(repo, ref)
    path = ctx.params.get("path", "").strip("/")
    if not path:
        listing = repo.git.ls_tree(commit)
        return Response(body=[views.content_item(ctx.base, repo, e.path, e, ref) for e in listing])
    entry = entry_at(repo, commit, path)
    if entry is None:
        raise not_found()
    if entry.type == "tree":
        listing = repo.git.ls_tree(f"{commit}:{path}")
        items = [views.content_item(ctx.base, repo, f"{path}/{e.path}", e, ref) for e in listing]
        return Response(body=items)
    data = repo.git.read_blob(entry.sha)
    return Response(body=views.content_file(ctx.base, repo, path, entry, ref, data))


def _file_commit(ctx: Context, repo: Repo, path: str, sha: str, branch: str, deleted: bool) -> dict[str, Any]:
    info = repo.git.read_commit(sha)
    entry = None if deleted else entry_at(repo, sha, path)
    content = None
    if entry is not None:
        content = views.content_item(ctx.base, repo, path, entry, branch)
    return {"content": content, "commit": views.git_commit(ctx.base, repo, info)}


@router.add("PUT", "/repos/{owner}/{repo}/contents/{path}")
def put_contents(ctx: Context) -> Response:
    """Create or replace a file on the branch as it is; replacing needs the current blob ``sha``.

    As on GitHub (measured, https://github.com/pome-sh/digital-twins/pull/400): an existing file without ``sha``
    is a 422, with another ``sha`` a 409 ``<path> does not match <sha>``; a new file ignores ``sha``. The commit
    is built on the branch head of the moment, outside the store's lock, and the branch moves only if it is
    still there: a concurrent write in between is a 409 ``refs/heads/<branch> expected to be at <sha>``
    (https://github.com/jcabi/jcabi-github/issues/665; GitHub's documentation warns that parallel contents
    writes conflict).
    """
    repo = ctx.repo("write")
    body = ctx.body()
    path = ctx.params["path"].strip("/")
    message, content = body.get("message"), body.get("content")
    if not isinstance(message, str) or not isinstance(content, str):
        raise validation_failed('Invalid request.\n\n"message" and "content" are required.')
    try:
        data = base64.b64decode(content, validate=True)
    except binascii.Error as exc:
        raise validation_failed("content is not valid Base64") from exc
    branch = str(body.get("branch") or repo.default_branch)
    head = repo.git.ref(f"refs/heads/{branch}")
    if head is None and branch != repo.default_branch:
        raise ApiError(404, f"Branch {branch} not found")
    existing = entry_at(repo, head, path) if head else None
    given = body.get("sha")
    if existing is not None and given is None:
        raise validation_failed('Invalid request.\n\n"sha" wasn\'t supplied.')
    if existing is not None and given != existing.sha:
        raise ApiError(409, f"{path} does not match {given}")
    try:
        sha = commit_files(repo, branch, {path: data}, message, ctx.need_login(), expect=head)
    except ApiError as exc:
        if exc.status != 409:
            raise
        raise ApiError(409, f"refs/heads/{branch} expected to be at {head}") from exc
    return Response(status=200 if existing else 201, body=_file_commit(ctx, repo, path, sha, branch, False))


@router.add("DELETE", "/repos/{owner}/{repo}/contents/{path}")
def delete_contents(ctx: Context) -> Response:
    """Delete a file; needs its current blob ``sha`` (422 if missing, 409 if stale, 404 if absent)."""
    repo = ctx.repo("write")
    body = ctx.body()
    path = ctx.params["path"].strip("/")
    message = body.get("message")
    if not isinstance(message, str) or not isinstance(body.get("sha"), str):
        raise validation_failed('Invalid request.\n\n"message" and "sha" are required.')
    branch = str(body.get("branch") or repo.default_branch)
    with ctx.store.lock:
        head = repo.git.ref(f"refs/heads/{branch}")
        existing = entry_at(repo, head, path) if head else None
        if existing is None:
            raise not_found()
        if body["sha"] != existing.sha:
            raise ApiError(409, f"{path} does not match {body['sha']}")
        sha = commit_files(repo, branch, {path: None}, message, ctx.need_login(), expect=head)
    return Response(body=_file_commit(ctx, repo, path, sha, branch, True))


@router.add("GET", "/repos/{owner}/{repo}/commits")
def list_commits(ctx: Context) -> Response:
    """Commits reachable from ``sha`` (default branch), newest first; ``path`` filters."""
    repo = ctx.repo()
    head = resolve_rev(repo, ctx.request.query.get("sha"))
    shas = repo.git.rev_list(head)
    path = ctx.request.query.get("path")
    if path:
        shas = repo.git.run("rev-list", head, "--", path).decode().split()
    page, links = paginate(ctx.request, shas)
    return Response(
        body=[views.commit(ctx.base, ctx.store, repo, repo.git.read_commit(s)) for s in page], headers=links
    )


def files_between(ctx: Context, repo: Repo, old: str | None, new: str) -> list[dict[str, Any]]:
    """``diff-entry`` items from ``old`` to ``new`` with patches."""
    return [
        views.diff_entry(ctx.base, repo, change, new, repo.git.patch(old, new, change.path))
        for change in repo.git.diff(old, new)
    ]


@router.add("GET", "/repos/{owner}/{repo}/commits/{ref}")
def get_commit(ctx: Context) -> Response:
    """One commit with its files (diffed against the first parent) and stats."""
    repo = ctx.repo()
    sha = resolve_rev(repo, ctx.params["ref"])
    info = repo.git.read_commit(sha)
    files = files_between(ctx, repo, info.parents[0] if info.parents else None, sha)
    return Response(body=views.commit(ctx.base, ctx.store, repo, info, files))


@router.add("GET", "/repos/{owner}/{repo}/compare/{basehead}")
def compare(ctx: Context) -> Response:
    """``base...head``: commits on head since the merge base, and the files changed since it."""
    repo = ctx.repo()
    base_rev, sep, head_rev = ctx.params["basehead"].partition("...")
    if not sep:
        raise not_found()
    base = resolve_rev(repo, base_rev.split(":")[-1])
    head = resolve_rev(repo, head_rev.split(":")[-1])
    merge_base = repo.git.merge_base(base, head)
    if merge_base is None:
        raise ApiError(404, f"No common ancestor between {base_rev} and {head_rev}.")
    ahead = repo.git.rev_list(head, merge_base)
    behind = repo.git.rev_list(base, merge_base)
    status = (
        "identical" if not ahead and not behind else "ahead" if not behind else "behind" if not ahead else "diverged"
    )
    html = f"{ctx.base}/{repo.full_name}/compare/{ctx.params['basehead']}"
    body = {
        "url": f"{api(ctx.base, repo)}/compare/{ctx.params['basehead']}",
        "html_url": html,
        "permalink_url": html,
        "diff_url": f"{html}.diff",
        "patch_url": f"{html}.patch",
        "base_commit": views.commit(ctx.base, ctx.store, repo, repo.git.read_commit(base)),
        "merge_base_commit": views.commit(ctx.base, ctx.store, repo, repo.git.read_commit(merge_base)),
        "status": status,
        "ahead_by": len(ahead),
        "behind_by": len(behind),
        "total_commits": len(ahead),
        "commits": [views.commit(ctx.base, ctx.store, repo, repo.git.read_commit(s)) for s in reversed(ahead)],
        "files": files_between(ctx, repo, merge_base, head),
    }
    return Response(body=body)
