"""Git plumbing over a bare repository: the single source of truth for code in the sandbox.

Every operation shells out to ``git`` (``hash-object``, ``mktree``, ``commit-tree``, ``update-ref``, ...), so what
the Git Data API writes is exactly what ``git clone`` sees, and the other way round.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

ZERO_SHA = "0" * 40
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


class GitError(Exception):
    """A git command failed; ``stderr`` holds git's own words."""

    def __init__(self, args: list[str], stderr: str) -> None:
        super().__init__(f"git {' '.join(args)}: {stderr.strip()}")
        self.stderr = stderr


@dataclass(frozen=True, kw_only=True)
class TreeEntry:
    """One entry of a tree object; ``path`` is relative to the tree that was listed."""

    mode: str
    type: str
    sha: str
    path: str
    size: int | None = None


@dataclass(frozen=True, kw_only=True)
class Signature:
    """An author or committer line."""

    name: str
    email: str
    date: str  # ISO 8601, UTC, e.g. 2026-01-01T00:00:00Z


@dataclass(frozen=True, kw_only=True)
class CommitInfo:
    """A parsed commit object."""

    sha: str
    tree: str
    parents: tuple[str, ...]
    author: Signature
    committer: Signature
    message: str


@dataclass(frozen=True, kw_only=True)
class FileChange:
    """One file changed between two commits, as ``diff-tree`` reports it."""

    path: str
    status: str  # added | modified | removed | renamed
    additions: int
    deletions: int
    sha: str  # blob sha after the change (before it, for removals)
    previous_path: str | None = None


_STATUS = {"A": "added", "M": "modified", "D": "removed", "T": "changed", "R": "renamed"}


class GitRepo:
    """A bare repository on disk, driven through git plumbing."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def init(cls, path: Path, default_branch: str) -> GitRepo:
        """Create a bare repository whose HEAD points at ``default_branch``."""
        path.mkdir(parents=True, exist_ok=True)
        repo = cls(path)
        repo.run("init", "--bare", "--quiet", f"--initial-branch={default_branch}")
        # Pushes over http-backend need this; the sandbox authorises by token instead.
        repo.run("config", "http.receivepack", "true")
        # No automatic gc: past 6,700 loose objects git packs them in the background, and a request's `git
        # mktree` then found an object "unavailable" while it moved (a 500 GitHub never answers for that).
        repo.run("config", "gc.auto", "0")
        return repo

    def run(self, *args: str, data: bytes | None = None, env: dict[str, str] | None = None) -> bytes:
        """Run one git command in the repository and return its stdout.

        :raises GitError: when git exits non-zero.
        """
        if any("\x00" in arg for arg in args):
            # A NUL cannot be passed to a program; a name holding one names nothing in git.
            raise GitError(list(args), "argument holds a NUL byte")
        full_env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0", **(env or {})}
        proc = subprocess.run(
            ["git", f"--git-dir={self.path}", *args], input=data, capture_output=True, env=full_env, check=False
        )
        if proc.returncode != 0:
            raise GitError(list(args), proc.stderr.decode("utf-8", "replace"))
        return proc.stdout

    # objects -------------------------------------------------------------------------------------------------

    def hash_blob(self, data: bytes) -> str:
        """Store ``data`` as a blob and return its sha."""
        return self.run("hash-object", "-w", "--stdin", data=data).decode().strip()

    def object_type(self, sha: str) -> str | None:
        """Return ``blob``/``tree``/``commit``/``tag``, or ``None`` when there is no such object."""
        try:
            return self.run("cat-file", "-t", sha).decode().strip()
        except GitError:
            return None

    def read_blob(self, sha: str) -> bytes:
        """Return a blob's bytes."""
        return self.run("cat-file", "blob", sha)

    def mktree(self, entries: list[TreeEntry]) -> str:
        """Write one tree level from entries whose paths are plain names."""
        lines = b"".join(f"{e.mode} {e.type} {e.sha}\t{e.path}".encode() + b"\0" for e in entries)
        return self.run("mktree", "-z", data=lines).decode().strip()

    def ls_tree(self, treeish: str, *, recursive: bool = False, path: str | None = None) -> list[TreeEntry]:
        """List a tree (with blob sizes); ``recursive`` lists blobs only, with full paths."""
        args = ["ls-tree", "-z", "-l", "--full-tree"]
        if recursive:
            args.append("-r")
        args.append(treeish)
        if path is not None:
            args += ["--", path]
        out = self.run(*args).decode("utf-8", "surrogateescape")
        entries = []
        for record in filter(None, out.split("\0")):
            meta, name = record.split("\t", 1)
            mode, kind, sha, size = meta.split()
            entries.append(TreeEntry(mode=mode, type=kind, sha=sha, path=name, size=None if size == "-" else int(size)))
        return entries

    def subtrees(self, treeish: str) -> list[TreeEntry]:
        """Every tree below ``treeish``, with full paths."""
        out = self.run("ls-tree", "-r", "-t", "-d", "-z", treeish).decode("utf-8", "surrogateescape")
        entries = []
        for record in filter(None, out.split("\0")):
            meta, name = record.split("\t", 1)
            mode, kind, sha = meta.split()
            entries.append(TreeEntry(mode=mode, type=kind, sha=sha, path=name))
        return entries

    def commit_tree(
        self, tree: str, parents: list[str], message: str, *, author: Signature, committer: Signature
    ) -> str:
        """Write a commit object and return its sha."""
        args = ["commit-tree", tree]
        for parent in parents:
            args += ["-p", parent]
        env = {
            "GIT_AUTHOR_NAME": author.name,
            "GIT_AUTHOR_EMAIL": author.email,
            "GIT_AUTHOR_DATE": author.date,
            "GIT_COMMITTER_NAME": committer.name,
            "GIT_COMMITTER_EMAIL": committer.email,
            "GIT_COMMITTER_DATE": committer.date,
        }
        return self.run(*args, data=message.encode(), env=env).decode().strip()

    def read_commit(self, sha: str) -> CommitInfo:
        """Parse a commit object.

        :raises GitError: when ``sha`` is not a commit.
        """
        raw = self.run("cat-file", "commit", sha).decode("utf-8", "replace")
        header, _, message = raw.partition("\n\n")
        tree = ""
        parents: list[str] = []
        people: dict[str, Signature] = {}
        for line in header.splitlines():
            key, _, value = line.partition(" ")
            if key == "tree":
                tree = value
            elif key == "parent":
                parents.append(value)
            elif key in ("author", "committer"):
                people[key] = _parse_signature(value)
        return CommitInfo(
            sha=sha,
            tree=tree,
            parents=tuple(parents),
            author=people["author"],
            committer=people["committer"],
            message=message,
        )

    def resolve_commit(self, rev: str) -> str | None:
        """Resolve a branch, tag or (short) sha to a commit sha, or ``None``."""
        for candidate in (f"refs/heads/{rev}", f"refs/tags/{rev}", rev):
            try:
                return self.run("rev-parse", "--verify", "--quiet", f"{candidate}^{{commit}}").decode().strip()
            except GitError:
                continue
        return None

    # refs ----------------------------------------------------------------------------------------------------

    def refs(self, prefix: str = "refs/") -> list[tuple[str, str]]:
        """Return ``(refname, sha)`` pairs under ``prefix``, sorted by name."""
        out = self.run("for-each-ref", "--format=%(refname) %(objectname)", prefix).decode()
        return [(name, sha) for name, sha in (line.split(" ") for line in out.splitlines())]

    def ref(self, name: str) -> str | None:
        """Return the sha a full ref name points at, or ``None``."""
        for refname, sha in self.refs(name):
            if refname == name:
                return sha
        return None

    def update_ref(self, name: str, new: str, old: str | None) -> None:
        """Move ``name`` to ``new`` only if it still points at ``old`` (``ZERO_SHA``: must not exist).

        :raises GitError: when the ref moved in between (compare-and-swap failed).
        """
        args = ["update-ref", name, new]
        if old is not None:
            args.append(old)
        self.run(*args)

    def delete_ref(self, name: str) -> None:
        """Delete a ref."""
        self.run("update-ref", "-d", name)

    # history -------------------------------------------------------------------------------------------------

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        """True when ``ancestor`` is reachable from ``descendant``."""
        try:
            self.run("merge-base", "--is-ancestor", ancestor, descendant)
        except GitError:
            return False
        return True

    def merge_base(self, a: str, b: str) -> str | None:
        """The best common ancestor of two commits, or ``None``."""
        try:
            return self.run("merge-base", a, b).decode().strip() or None
        except GitError:
            return None

    def rev_list(self, head: str, exclude: str | None = None, *, first_parent: bool = False) -> list[str]:
        """Commits reachable from ``head`` but not ``exclude``, newest first."""
        args = ["rev-list"]
        if first_parent:
            args.append("--first-parent")
        args.append(head)
        if exclude:
            args.append(f"^{exclude}")
        return self.run(*args).decode().split()

    def diff(self, old: str | None, new: str) -> list[FileChange]:
        """Files changed from commit ``old`` (``None``: the empty tree) to commit ``new``."""
        base = old or EMPTY_TREE
        numstat: dict[str, tuple[int, int]] = {}
        out = self.run("diff-tree", "-r", "--numstat", "--no-renames", "-z", base, new).decode("utf-8", "replace")
        for record in filter(None, out.split("\0")):
            added, deleted, path = record.split("\t", 2)
            numstat[path] = (int(added) if added != "-" else 0, int(deleted) if deleted != "-" else 0)
        raw = self.run("diff-tree", "-r", "--no-renames", "-z", base, new).decode("utf-8", "replace")
        fields = raw.split("\0")
        changes = []
        for meta, path in zip(fields[0::2], fields[1::2], strict=False):
            if not meta.startswith(":"):
                continue
            _, _, old_sha, new_sha, status = meta[1:].split(" ")
            adds, dels = numstat.get(path, (0, 0))
            changes.append(
                FileChange(
                    path=path,
                    status=_STATUS.get(status[0], "modified"),
                    additions=adds,
                    deletions=dels,
                    sha=new_sha if status[0] != "D" else old_sha,
                )
            )
        return changes

    def patch(self, old: str | None, new: str, path: str) -> str:
        """The unified diff of one file, without the header lines."""
        out = self.run("diff", "--no-color", "--no-ext-diff", old or EMPTY_TREE, new, "--", path)
        text = out.decode("utf-8", "replace")
        start = text.find("\n@@")
        return text[start + 1 :] if start >= 0 else ""

    def merge_trees(self, ours: str, theirs: str) -> str | None:
        """Merge two commits and return the result tree, or ``None`` on conflict (``git merge-tree``)."""
        try:
            return self.run("merge-tree", "--write-tree", "--no-messages", ours, theirs).decode().split()[0]
        except GitError:
            return None


def _parse_signature(value: str) -> Signature:
    # "Name <email> 1700000000 +0000"
    name, _, rest = value.partition(" <")
    email, _, stamp = rest.partition("> ")
    seconds = int(stamp.split()[0]) if stamp else 0
    date = datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return Signature(name=name, email=email, date=date)
