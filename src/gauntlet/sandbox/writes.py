"""Writing commits onto branches: shared by the contents API, pull request merges and the seeding helpers."""

from __future__ import annotations

from gauntlet.sandbox.git import ZERO_SHA, GitError, Signature
from gauntlet.sandbox.http import ApiError
from gauntlet.sandbox.store import Repo, now_iso
from gauntlet.sandbox.trees import PathEdit, build_tree

NOREPLY_DOMAIN = "users.noreply.sandbox.local"


def signature(login: str, date: str | None = None) -> Signature:
    """The git identity the sandbox writes for ``login`` (the commit views map it back to the account)."""
    return Signature(name=login, email=f"{login}@{NOREPLY_DOMAIN}", date=date or now_iso())


def commit_files(
    repo: Repo,
    branch: str,
    files: dict[str, bytes | None],
    message: str,
    login: str,
    *,
    expect: str | None = None,
    start: str | None = None,
) -> str:
    """Commit file writes (``None`` deletes) on top of ``branch`` (created when missing) and move the branch.

    :param expect: the branch head the caller based its edit on; the ref moves only if it is still there.
    :param start: where a missing branch starts (``None``: a root commit).
    :returns: the new commit sha.
    :raises ApiError: 409 when the branch moved meanwhile.
    """
    ref = f"refs/heads/{branch}"
    head = repo.git.ref(ref)
    if expect is not None and head != expect:
        raise ApiError(409, f"{branch} is at {head} but expected {expect}")
    parent = head or start
    base_tree = repo.git.read_commit(parent).tree if parent else None
    edits = [
        PathEdit(path=path, mode="100644", type="blob", sha=None if data is None else repo.git.hash_blob(data))
        for path, data in files.items()
    ]
    tree = build_tree(repo.git, base_tree, edits)
    who = signature(login)
    sha = repo.git.commit_tree(tree, [parent] if parent else [], message, author=who, committer=who)
    move_branch(repo, ref, sha, head)
    return sha


def move_branch(repo: Repo, ref: str, new: str, old: str | None) -> None:
    """Compare-and-swap a ref (``old is None``: it must not exist yet).

    :raises ApiError: 409 when someone else moved it first.
    """
    try:
        repo.git.update_ref(ref, new, old or ZERO_SHA)
    except GitError as exc:
        raise ApiError(409, f"Reference {ref} was updated concurrently") from exc
