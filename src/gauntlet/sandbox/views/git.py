"""JSON views of git objects: refs, blobs, trees, commits, diffs and file contents."""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import quote

from gauntlet.sandbox.git import CommitInfo, FileChange, Signature, TreeEntry
from gauntlet.sandbox.store import Repo, Store
from gauntlet.sandbox.views.repos import api, user
from gauntlet.sandbox.writes import NOREPLY_DOMAIN

_UNSIGNED = {"verified": False, "reason": "unsigned", "signature": None, "payload": None, "verified_at": None}


def signature(who: Signature) -> dict[str, Any]:
    """A git author/committer block."""
    return {"name": who.name, "email": who.email, "date": who.date}


def ref(base: str, repo: Repo, name: str, sha: str) -> dict[str, Any]:
    """A ``git-ref``."""
    return {
        "ref": name,
        "node_id": f"REF_{sha[:12]}",
        "url": f"{api(base, repo)}/git/refs/{quote(name.removeprefix('refs/'))}",
        "object": {"type": "commit", "sha": sha, "url": f"{api(base, repo)}/git/commits/{sha}"},
    }


def tree(base: str, repo: Repo, sha: str, entries: list[TreeEntry], truncated: bool = False) -> dict[str, Any]:
    """A ``git-tree``."""
    items = []
    for entry in entries:
        item: dict[str, Any] = {
            "path": entry.path,
            "mode": entry.mode,
            "type": entry.type,
            "sha": entry.sha,
            "url": f"{api(base, repo)}/git/{'trees' if entry.type == 'tree' else 'blobs'}/{entry.sha}",
        }
        if entry.size is not None:
            item["size"] = entry.size
        items.append(item)
    return {"sha": sha, "url": f"{api(base, repo)}/git/trees/{sha}", "tree": items, "truncated": truncated}


def parents(base: str, repo: Repo, info: CommitInfo) -> list[dict[str, Any]]:
    """The ``parents`` list of a commit."""
    return [
        {"sha": p, "url": f"{api(base, repo)}/git/commits/{p}", "html_url": f"{base}/{repo.full_name}/commit/{p}"}
        for p in info.parents
    ]


def git_commit(base: str, repo: Repo, info: CommitInfo) -> dict[str, Any]:
    """A ``git-commit`` (Git Data API)."""
    return {
        "sha": info.sha,
        "node_id": f"C_{info.sha[:12]}",
        "url": f"{api(base, repo)}/git/commits/{info.sha}",
        "html_url": f"{base}/{repo.full_name}/commit/{info.sha}",
        "author": signature(info.author),
        "committer": signature(info.committer),
        "message": info.message,
        "tree": {"sha": info.tree, "url": f"{api(base, repo)}/git/trees/{info.tree}"},
        "parents": parents(base, repo, info),
        "verification": dict(_UNSIGNED),
    }


def diff_entry(base: str, repo: Repo, change: FileChange, commit: str, patch: str | None) -> dict[str, Any]:
    """A ``diff-entry`` (one file of a commit, comparison or pull request)."""
    entry: dict[str, Any] = {
        "sha": change.sha,
        "filename": change.path,
        "status": change.status,
        "additions": change.additions,
        "deletions": change.deletions,
        "changes": change.additions + change.deletions,
        "blob_url": f"{base}/{repo.full_name}/blob/{commit}/{quote(change.path)}",
        "raw_url": f"{base}/{repo.full_name}/raw/{commit}/{quote(change.path)}",
        "contents_url": f"{api(base, repo)}/contents/{quote(change.path)}?ref={commit}",
    }
    if patch is not None:
        entry["patch"] = patch
    return entry


def account(base: str, store: Store, who: Signature) -> dict[str, Any] | None:
    """The GitHub user behind a git identity, as GitHub maps commit e-mails to accounts.

    The sandbox writes ``<login>@users.noreply.sandbox.local`` for commits it makes (like GitHub's noreply
    addresses); any other e-mail belongs to nobody, and GitHub answers ``null``.
    """
    login, _, domain = who.email.partition("@")
    if domain != NOREPLY_DOMAIN or not login:
        return None
    return user(base, store.user(login))


def commit(
    base: str, store: Store, repo: Repo, info: CommitInfo, files: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """A ``commit`` (``GET /repos/{o}/{r}/commits/{ref}``); ``files`` only when asked for."""
    body: dict[str, Any] = {
        "sha": info.sha,
        "node_id": f"C_{info.sha[:12]}",
        "url": f"{api(base, repo)}/commits/{info.sha}",
        "html_url": f"{base}/{repo.full_name}/commit/{info.sha}",
        "comments_url": f"{api(base, repo)}/commits/{info.sha}/comments",
        "commit": {
            "url": f"{api(base, repo)}/git/commits/{info.sha}",
            "author": signature(info.author),
            "committer": signature(info.committer),
            "message": info.message.rstrip("\n"),
            "tree": {"sha": info.tree, "url": f"{api(base, repo)}/git/trees/{info.tree}"},
            "comment_count": 0,
            "verification": dict(_UNSIGNED),
        },
        "author": account(base, store, info.author),
        "committer": account(base, store, info.committer),
        "parents": parents(base, repo, info),
    }
    if files is not None:
        additions = sum(f["additions"] for f in files)
        deletions = sum(f["deletions"] for f in files)
        body["files"] = files
        body["stats"] = {"additions": additions, "deletions": deletions, "total": additions + deletions}
    return body


def content_item(base: str, repo: Repo, path: str, entry: TreeEntry, ref: str) -> dict[str, Any]:
    """One entry of the contents API without its bytes."""
    kind = {"blob": "file", "tree": "dir", "commit": "submodule"}.get(entry.type, "file")
    if entry.mode == "120000":
        kind = "symlink"
    self_url = f"{api(base, repo)}/contents/{quote(path)}?ref={quote(ref)}"
    git_url = f"{api(base, repo)}/git/{'trees' if entry.type == 'tree' else 'blobs'}/{entry.sha}"
    html_url = f"{base}/{repo.full_name}/blob/{ref}/{quote(path)}"
    return {
        "type": kind,
        "size": entry.size or 0,
        "name": path.rsplit("/", 1)[-1],
        "path": path,
        "sha": entry.sha,
        "url": self_url,
        "git_url": git_url,
        "html_url": html_url,
        "download_url": f"{base}/{repo.full_name}/raw/{ref}/{quote(path)}" if kind == "file" else None,
        "_links": {"self": self_url, "git": git_url, "html": html_url},
    }


def content_file(base: str, repo: Repo, path: str, entry: TreeEntry, ref: str, data: bytes) -> dict[str, Any]:
    """A ``content-file`` with its bytes, base64 in 60-column lines as GitHub sends them."""
    encoded = base64.b64encode(data).decode()
    lines = "\n".join(encoded[i : i + 60] for i in range(0, len(encoded), 60))
    return {**content_item(base, repo, path, entry, ref), "content": lines + "\n", "encoding": "base64"}
