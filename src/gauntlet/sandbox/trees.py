"""Building trees from a base tree plus path edits, the way ``POST /repos/{o}/{r}/git/trees`` does.

GitHub takes flat, slash-separated paths with ``base_tree``; git's ``mktree`` writes one level at a time. The base
tree is flattened to ``path -> entry``, edited, then written back bottom-up.
"""

from __future__ import annotations

from dataclasses import dataclass

from gauntlet.sandbox.git import GitRepo, TreeEntry


@dataclass(frozen=True, kw_only=True)
class PathEdit:
    """Set ``path`` to ``sha`` (a blob or a tree), or delete it when ``sha`` is ``None``."""

    path: str
    mode: str
    type: str
    sha: str | None


def flatten(repo: GitRepo, tree: str | None) -> dict[str, TreeEntry]:
    """Every blob (and submodule) under ``tree`` by full path."""
    if tree is None:
        return {}
    return {e.path: e for e in repo.ls_tree(tree, recursive=True)}


def apply_edits(repo: GitRepo, files: dict[str, TreeEntry], edits: list[PathEdit]) -> dict[str, TreeEntry]:
    """Apply edits in order; a tree-typed edit replaces everything under its path."""
    result = dict(files)
    for edit in edits:
        path = edit.path.strip("/")
        prefix = path + "/"
        for existing in [p for p in result if p == path or p.startswith(prefix)]:
            del result[existing]
        if edit.sha is None:
            continue
        if edit.type == "tree":
            for entry in repo.ls_tree(edit.sha, recursive=True):
                full = f"{path}/{entry.path}"
                result[full] = TreeEntry(mode=entry.mode, type=entry.type, sha=entry.sha, path=full)
        else:
            result[path] = TreeEntry(mode=edit.mode, type=edit.type, sha=edit.sha, path=path)
    return result


def write_tree(repo: GitRepo, files: dict[str, TreeEntry]) -> str:
    """Write nested trees for a flat ``path -> entry`` map and return the root tree sha."""
    children: dict[str, list[TreeEntry]] = {"": []}
    dirs: set[str] = {""}
    for path, entry in files.items():
        parent, _, name = path.rpartition("/")
        children.setdefault(parent, []).append(TreeEntry(mode=entry.mode, type=entry.type, sha=entry.sha, path=name))
        while parent and parent not in dirs:
            dirs.add(parent)
            children.setdefault(parent, [])
            parent = parent.rpartition("/")[0]
            children.setdefault(parent, [])
    # Deepest directories first, so each parent sees its children's shas.
    for directory in sorted(dirs - {""}, key=lambda d: d.count("/"), reverse=True):
        sha = repo.mktree(children[directory])
        parent, _, name = directory.rpartition("/")
        children[parent].append(TreeEntry(mode="040000", type="tree", sha=sha, path=name))
    return repo.mktree(children[""])


def build_tree(repo: GitRepo, base_tree: str | None, edits: list[PathEdit]) -> str:
    """The tree ``base_tree`` becomes after ``edits``."""
    return write_tree(repo, apply_edits(repo, flatten(repo, base_tree), edits))
