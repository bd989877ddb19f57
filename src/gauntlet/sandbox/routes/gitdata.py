"""The Git Data API: blobs, trees, commits and refs, all through git plumbing.

See https://docs.github.com/rest/git. Ref updates are compare-and-swap on the bare repository, so they race
correctly with pushes over ``git http-backend``.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from gauntlet.sandbox.app import Context
from gauntlet.sandbox.git import ZERO_SHA, GitError, Signature
from gauntlet.sandbox.http import Response, Router, found, not_found, validation_failed
from gauntlet.sandbox.store import Repo, now_iso
from gauntlet.sandbox.trees import PathEdit, build_tree
from gauntlet.sandbox.views import git as views
from gauntlet.sandbox.views.repos import api
from gauntlet.sandbox.writes import signature

router = Router()
_SHA = re.compile(r"^[0-9a-f]{40}$")


def _sha(value: Any, field: str) -> str:
    if not isinstance(value, str) or not _SHA.match(value):
        raise validation_failed(resource="Git", code="invalid", field=field)
    return value


def _object_in_path(ctx: Context, param: str, kind: str) -> tuple[Repo, str]:
    """The readable repository and the SHA in path parameter ``param``; 404 unless it names a ``kind`` object."""
    repo = ctx.repo()
    sha = ctx.params[param]
    if repo.git.object_type(sha) != kind:
        raise not_found()
    return repo, sha


@router.add("POST", "/repos/{owner}/{repo}/git/blobs")
def create_blob(ctx: Context) -> Response:
    """Store a blob (``encoding`` utf-8 or base64)."""
    repo = ctx.repo("write")
    body = ctx.body()
    content = body.get("content")
    if not isinstance(content, str):
        raise validation_failed(resource="Blob", code="missing_field", field="content")
    try:
        data = base64.b64decode(content) if body.get("encoding") == "base64" else content.encode()
    except binascii.Error as exc:
        raise validation_failed(resource="Blob", code="invalid", field="content") from exc
    sha = repo.git.hash_blob(data)
    return Response(status=201, body={"sha": sha, "url": f"{api(ctx.base, repo)}/git/blobs/{sha}"})


@router.add("GET", "/repos/{owner}/{repo}/git/blobs/{file_sha}")
def get_blob(ctx: Context) -> Response:
    """A blob, base64-encoded."""
    repo, sha = _object_in_path(ctx, "file_sha", "blob")
    data = repo.git.read_blob(sha)
    body = {
        "sha": sha,
        "node_id": f"B_{sha[:12]}",
        "size": len(data),
        "url": f"{api(ctx.base, repo)}/git/blobs/{sha}",
        "content": base64.b64encode(data).decode(),
        "encoding": "base64",
    }
    return Response(body=body)


@router.add("POST", "/repos/{owner}/{repo}/git/trees")
def create_tree(ctx: Context) -> Response:
    """A tree from ``base_tree`` plus entries: ``sha`` or inline ``content``; ``sha: null`` deletes."""
    repo = ctx.repo("write")
    body = ctx.body()
    base_tree = body.get("base_tree")
    if base_tree is not None and repo.git.object_type(_sha(base_tree, "base_tree")) != "tree":
        raise validation_failed("base_tree is not a valid tree oid", resource="Tree", code="invalid", field="base_tree")
    entries = body.get("tree")
    if not isinstance(entries, list):
        raise validation_failed(resource="Tree", code="missing_field", field="tree")
    edits = []
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
            raise validation_failed(resource="Tree", code="invalid", field="tree")
        kind = str(entry.get("type", "blob"))
        mode = str(entry.get("mode", "100644"))
        if "content" in entry and entry["content"] is not None:
            sha: str | None = repo.git.hash_blob(str(entry["content"]).encode())
        elif "sha" in entry and entry["sha"] is None:
            sha = None
        else:
            sha = _sha(entry.get("sha"), "tree.sha")
            if repo.git.object_type(sha) is None:
                raise validation_failed(f"tree.sha {sha} is not a valid {kind}", resource="Tree", code="invalid")
        edits.append(PathEdit(path=entry["path"], mode=mode, type=kind, sha=sha))
    tree = build_tree(repo.git, base_tree, edits)
    return Response(status=201, body=views.tree(ctx.base, repo, tree, repo.git.ls_tree(tree)))


@router.add("GET", "/repos/{owner}/{repo}/git/trees/{tree_sha}")
def get_tree(ctx: Context) -> Response:
    """A tree (a commit or branch name is accepted, as on GitHub); ``recursive`` lists every blob."""
    repo = ctx.repo()
    rev = ctx.params["tree_sha"]
    sha = rev if repo.git.object_type(rev) == "tree" else None
    if sha is None:
        sha = repo.git.read_commit(found(repo.git.resolve_commit(rev))).tree
    recursive = ctx.request.query.get("recursive", "") not in ("", "0", "false")
    if recursive:
        entries = repo.git.ls_tree(sha, recursive=True)
        entries = sorted(entries + repo.git.subtrees(sha), key=lambda e: e.path)
    else:
        entries = repo.git.ls_tree(sha)
    return Response(body=views.tree(ctx.base, repo, sha, entries))


def _person(value: Any, fallback: Signature) -> Signature:
    if not isinstance(value, dict):
        return fallback
    return Signature(
        name=str(value.get("name", fallback.name)),
        email=str(value.get("email", fallback.email)),
        date=str(value.get("date", fallback.date)),
    )


@router.add("POST", "/repos/{owner}/{repo}/git/commits")
def create_commit(ctx: Context) -> Response:
    """A commit object (no ref moves)."""
    repo = ctx.repo("write")
    body = ctx.body()
    tree = _sha(body.get("tree"), "tree")
    if repo.git.object_type(tree) != "tree":
        raise validation_failed("Tree SHA does not exist", resource="Commit", code="invalid", field="tree")
    parents = body.get("parents", [])
    if not isinstance(parents, list):
        raise validation_failed(resource="Commit", code="invalid", field="parents")
    for parent in parents:
        if repo.git.object_type(_sha(parent, "parents")) != "commit":
            raise validation_failed("Parent SHA does not exist or is not a commit object", resource="Commit")
    message = body.get("message")
    if not isinstance(message, str):
        raise validation_failed(resource="Commit", code="missing_field", field="message")
    default = signature(ctx.need_login(), now_iso())
    author = _person(body.get("author"), default)
    committer = _person(body.get("committer"), author)
    sha = repo.git.commit_tree(tree, list(parents), message, author=author, committer=committer)
    return Response(status=201, body=views.git_commit(ctx.base, repo, repo.git.read_commit(sha)))


@router.add("GET", "/repos/{owner}/{repo}/git/commits/{commit_sha}")
def get_commit(ctx: Context) -> Response:
    """A commit object."""
    repo, sha = _object_in_path(ctx, "commit_sha", "commit")
    return Response(body=views.git_commit(ctx.base, repo, repo.git.read_commit(sha)))


@router.add("GET", "/repos/{owner}/{repo}/git/ref/{ref}")
def get_ref(ctx: Context) -> Response:
    """One ref, by its name without ``refs/`` (``heads/main``)."""
    repo = ctx.repo()
    name = "refs/" + ctx.params["ref"]
    sha = found(repo.git.ref(name))
    return Response(body=views.ref(ctx.base, repo, name, sha))


@router.add("GET", "/repos/{owner}/{repo}/git/matching-refs/{ref}")
def matching_refs(ctx: Context) -> Response:
    """Refs whose names start with ``refs/{ref}``."""
    repo = ctx.repo()
    prefix = "refs/" + ctx.params["ref"]
    items = [views.ref(ctx.base, repo, n, s) for n, s in repo.git.refs("refs/") if n.startswith(prefix)]
    return Response(body=items)


@router.add("GET", "/repos/{owner}/{repo}/git/refs", documented_as="/repos/{owner}/{repo}/git/matching-refs/{ref}")
def list_refs(ctx: Context) -> Response:
    """Every ref (PyGithub's ``get_git_refs`` calls this undocumented listing, which GitHub serves)."""
    repo = ctx.repo()
    return Response(body=[views.ref(ctx.base, repo, n, s) for n, s in repo.git.refs("refs/")])


@router.add("POST", "/repos/{owner}/{repo}/git/refs")
def create_ref(ctx: Context) -> Response:
    """Create a ref; 422 "Reference already exists" when it does."""
    repo = ctx.repo("write")
    body = ctx.body()
    name = body.get("ref")
    if not isinstance(name, str) or not name.startswith("refs/") or name.count("/") < 2:
        raise validation_failed("Reference name must start with 'refs/' and have at least two slashes.")
    sha = _sha(body.get("sha"), "sha")
    if repo.git.object_type(sha) is None:
        raise validation_failed("Object does not exist")
    try:
        repo.git.update_ref(name, sha, ZERO_SHA)
    except GitError as exc:
        raise validation_failed("Reference already exists") from exc
    return Response(status=201, body=views.ref(ctx.base, repo, name, sha))


@router.add("PATCH", "/repos/{owner}/{repo}/git/refs/{ref}")
def update_ref(ctx: Context) -> Response:
    """Move a ref; without ``force`` only a fast-forward is allowed (422 "Update is not a fast forward")."""
    repo = ctx.repo("write")
    name = "refs/" + ctx.params["ref"]
    body = ctx.body()
    sha = _sha(body.get("sha"), "sha")
    if repo.git.object_type(sha) != "commit":
        raise validation_failed("Object does not exist")
    current = repo.git.ref(name)
    if current is None:
        raise validation_failed("Reference does not exist")
    if not body.get("force") and not repo.git.is_ancestor(current, sha):
        raise validation_failed("Update is not a fast forward")
    try:
        repo.git.update_ref(name, sha, current)
    except GitError as exc:
        # Someone moved it between our check and our write: exactly what a racing client needs to hear.
        raise validation_failed("Update is not a fast forward") from exc
    return Response(body=views.ref(ctx.base, repo, name, sha))


@router.add("DELETE", "/repos/{owner}/{repo}/git/refs/{ref}")
def delete_ref(ctx: Context) -> Response:
    """Delete a ref (422 "Reference does not exist" when missing)."""
    repo = ctx.repo("write")
    name = "refs/" + ctx.params["ref"]
    if repo.git.ref(name) is None:
        raise validation_failed("Reference does not exist")
    repo.git.delete_ref(name)
    return Response(status=204)
