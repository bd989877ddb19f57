"""Git objects: ``Ref``, ``Commit``, ``Tree``, ``TreeEntry`` and ``Blob``, read from the bare repository.

See https://docs.github.com/graphql/reference/objects#blob: ``Blob.text`` is UTF-8 text, null for a binary
blob, and cut at 512,000 bytes with ``isTruncated`` saying so (as the web and the API both limit it).
"""

from __future__ import annotations

import codecs
from functools import cache
from pathlib import PurePosixPath

from gauntlet.sandbox.git import GitError
from gauntlet.sandbox.graph.connections import connection
from gauntlet.sandbox.graph.scope import Node, Scope
from gauntlet.sandbox.routes.contents import entry_at
from gauntlet.sandbox.rules import graph_rule
from gauntlet.sandbox.store import Repo

__all__ = ["TEXT_LIMIT", "git_object", "ref", "resolve_object"]

TEXT_LIMIT = 512_000
# git's own test for binary content: a NUL within the first 8,000 bytes (xdiff's buffer_is_binary).
_BINARY_PROBE = 8000


def ref(scope: Scope, repo: Repo, qualified: str) -> Node | None:
    """``Repository.ref(qualifiedName)``: ``refs/heads/x`` as given, or ``x`` as a branch, then as a tag."""
    names = [qualified] if qualified.startswith("refs/") else [f"refs/heads/{qualified}", f"refs/tags/{qualified}"]
    for full in names:
        try:
            sha = repo.git.ref(full)
        except GitError:  # a name git cannot even look up (a NUL) names nothing
            return None
        if sha is not None:
            parts = full.split("/", 2)
            prefix, name = ("/".join(parts[:2]) + "/", parts[2]) if len(parts) == 3 else ("refs/", parts[-1])
            return {
                "__typename": "Ref",
                "id": f"REF_{sha[:12]}",
                "name": name,
                "prefix": prefix,
                "target": lambda _info, sha=sha: git_object(scope, repo, sha),
                "rules": lambda _info, branch=name if prefix == "refs/heads/" else None, **page: _rules(
                    repo, branch, page
                ),
            }
    return None


def _rules(repo: Repo, branch: str | None, page: dict[str, object]) -> Node:
    """``Ref.rules``: the branch's active rules (``sandbox/rules.py``); a tag (``None``) has none here."""
    stored = list(enumerate(repo.rules.get(branch, ()) if branch is not None else ()))
    return connection(stored, lambda item: graph_rule(repo, *item), **page)  # type: ignore[arg-type]


def resolve_object(scope: Scope, repo: Repo, expression: str | None, oid: str | None) -> Node | None:
    """``Repository.object(expression | oid)``: ``branch:path`` and the like, as ``git rev-parse`` reads them."""
    wanted = expression if expression is not None else oid
    if not wanted or wanted.startswith("-"):
        return None
    try:
        sha = repo.git.run("rev-parse", "--verify", "--quiet", wanted).decode().strip()
    except GitError:
        return None
    return git_object(scope, repo, sha)


def git_object(scope: Scope, repo: Repo, oid: str, path: str = "") -> Node | None:
    """The ``GitObject`` ``oid`` (``path``: where a tree sits, for its entries' paths); tags are peeled."""
    kind = repo.git.object_type(oid)
    if kind == "tag":
        oid = repo.git.run("rev-parse", f"{oid}^{{}}").decode().strip()
        kind = repo.git.object_type(oid)
    if kind == "commit":
        return _commit(scope, repo, oid)
    if kind == "tree":
        return _tree(scope, repo, oid, path)
    if kind == "blob":
        return _blob(repo, oid)
    return None


def _base(kind: str, oid: str, prefix: str) -> Node:
    return {"__typename": kind, "oid": oid, "abbreviatedOid": oid[:7], "id": f"{prefix}_{oid[:12]}"}


def _commit(scope: Scope, repo: Repo, oid: str) -> Node:
    read = cache(lambda: repo.git.read_commit(oid))
    # As the REST commit views give it: the message without git's final newline.
    message = cache(lambda: read().message.rstrip("\n"))
    return {
        **_base("Commit", oid, "C"),
        "message": lambda _info: message(),
        "messageHeadline": lambda _info: message().partition("\n")[0],
        "messageBody": lambda _info: message().partition("\n")[2].strip("\n"),
        "committedDate": lambda _info: read().committer.date,
        "tree": lambda _info: _tree(scope, repo, read().tree, ""),
        "parents": lambda _info, **page: connection(read().parents, lambda p: _commit(scope, repo, p), **page),
        "file": lambda _info, path: tree_entry(scope, repo, oid, path),
        "url": f"{scope.base}/{repo.full_name}/commit/{oid}",
    }


def tree_entry(scope: Scope, repo: Repo, commit: str, path: str) -> Node | None:
    """``Commit.file(path)``: the entry at ``path``, or null when there is none."""
    clean = path.strip("/")
    if not clean:
        return None
    try:
        found = entry_at(repo, commit, clean)
    except GitError:  # a path git refuses (a NUL, one outside the tree) is absent
        return None
    if found is None:
        return None
    return _entry(scope, repo, found.path, found.mode, found.type, found.sha, found.size)


def _entry(scope: Scope, repo: Repo, path: str, mode: str, kind: str, sha: str, size: int | None) -> Node:
    name = PurePosixPath(path).name
    suffix = PurePosixPath(name).suffix
    return {
        "name": name,
        "path": path,
        "oid": sha,
        "type": kind,
        "mode": int(mode, 8),
        "size": size or 0,
        "extension": suffix or None,
        # A submodule's commit lives in another repository: GitHub has no object for it either.
        "object": lambda _info: git_object(scope, repo, sha, path) if kind != "commit" else None,
    }


def _tree(scope: Scope, repo: Repo, oid: str, path: str) -> Node:
    def entries(_info: object) -> list[Node]:
        listed = repo.git.ls_tree(oid)
        return [
            _entry(scope, repo, f"{path}/{e.path}" if path else e.path, e.mode, e.type, e.sha, e.size) for e in listed
        ]

    return {**_base("Tree", oid, "T"), "entries": entries}


def _blob(repo: Repo, oid: str) -> Node:
    data = cache(lambda: repo.git.read_blob(oid))

    def binary() -> bool:
        return b"\0" in data()[:_BINARY_PROBE]

    def text(_info: object) -> str | None:
        if binary():
            return None
        # The cut may fall inside a character: an incremental decoder keeps such a tail out of the text.
        whole = len(data()) <= TEXT_LIMIT
        return codecs.getincrementaldecoder("utf-8")("replace").decode(data()[:TEXT_LIMIT], final=whole)

    return {
        **_base("Blob", oid, "B"),
        "byteSize": lambda _info: len(data()),
        "isBinary": lambda _info: binary(),
        "isTruncated": lambda _info: len(data()) > TEXT_LIMIT,
        "text": text,
    }
