"""The Git Data API through PyGithub: blobs, trees, commits and compare-and-swap refs."""

from __future__ import annotations

import github
import pytest
from github import InputGitTreeElement

from gauntlet.sandbox import Sandbox


def test_blob_tree_commit_ref_round_trip(sandbox: Sandbox, gh: github.Github, repo_name: str) -> None:
    repo = gh.get_repo(repo_name)
    head = repo.get_git_ref("heads/main")
    base = repo.get_git_commit(head.object.sha)
    blob = repo.create_git_blob("binary\x00ish", "utf-8")
    assert repo.get_git_blob(blob.sha).content
    tree = repo.create_git_tree(
        [
            InputGitTreeElement("state/v1/index.json", "100644", "blob", content='{"a": 1}\n'),
            InputGitTreeElement("data.bin", "100644", "blob", sha=blob.sha),
            InputGitTreeElement("src/util.py", "100644", "blob", sha=None),
        ],
        base_tree=base.tree,
    )
    paths = {e.path for e in repo.get_git_tree(tree.sha, recursive=True).tree}
    assert {"README.md", "src/app.py", "state/v1/index.json", "data.bin", "state", "state/v1"} <= paths
    assert "src/util.py" not in paths
    commit = repo.create_git_commit("Write state", tree, [base])
    assert [p.sha for p in commit.parents] == [base.sha]
    head.edit(commit.sha)
    assert repo.get_branch("main").commit.sha == commit.sha
    assert repo.get_contents("state/v1/index.json").decoded_content == b'{"a": 1}\n'


def test_fast_forward_only_and_duplicates(sandbox: Sandbox, gh: github.Github, repo_name: str) -> None:
    repo = gh.get_repo(repo_name)
    main = repo.get_git_ref("heads/main")
    first = main.object.sha
    ref = repo.create_git_ref("refs/heads/gauntlet-state", first)
    with pytest.raises(github.GithubException) as dup:
        repo.create_git_ref("refs/heads/gauntlet-state", first)
    assert dup.value.status == 422 and dup.value.data["message"] == "Reference already exists"
    # A commit that does not descend from the ref's head is not a fast forward.
    tree = repo.create_git_tree([InputGitTreeElement("x", "100644", "blob", content="x")])
    orphan = repo.create_git_commit("orphan", tree, [])
    with pytest.raises(github.GithubException) as nff:
        ref.edit(orphan.sha)
    assert nff.value.status == 422 and nff.value.data["message"] == "Update is not a fast forward"
    ref.edit(orphan.sha, force=True)
    assert repo.get_git_ref("heads/gauntlet-state").object.sha == orphan.sha
    matching = repo.get_git_matching_refs("heads/gaunt")
    assert [r.ref for r in matching] == ["refs/heads/gauntlet-state"]
    assert [r.ref for r in repo.get_git_refs()] == ["refs/heads/gauntlet-state", "refs/heads/main"]
    ref.delete()
    with pytest.raises(github.UnknownObjectException):
        repo.get_git_ref("heads/gauntlet-state")


def test_racing_writers_one_wins(sandbox: Sandbox, gh: github.Github, repo_name: str) -> None:
    repo = gh.get_repo(repo_name)
    base = repo.get_git_commit(repo.get_git_ref("heads/main").object.sha)
    mine, theirs = (
        repo.create_git_commit(
            name, repo.create_git_tree([InputGitTreeElement(name, "100644", "blob", content=name)], base.tree), [base]
        )
        for name in ("mine", "theirs")
    )
    repo.get_git_ref("heads/main").edit(mine.sha)
    with pytest.raises(github.GithubException) as lost:
        repo.get_git_ref("heads/main").edit(theirs.sha)
    assert lost.value.data["message"] == "Update is not a fast forward"


def test_bad_input_is_422(sandbox: Sandbox, gh: github.Github, repo_name: str) -> None:
    repo = gh.get_repo(repo_name)
    with pytest.raises(github.GithubException) as info:
        repo.create_git_ref("heads/no-prefix", "0" * 40)
    assert info.value.status == 422
    with pytest.raises(github.UnknownObjectException):
        repo.get_git_commit("f" * 40)
