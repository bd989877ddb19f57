"""The contents API, commits, compare and the pull requests of a commit."""

from __future__ import annotations

import github
import pytest

from gauntlet.sandbox import Sandbox


def test_contents_crud_with_sha_precondition(sandbox: Sandbox, gh: github.Github, repo_name: str) -> None:
    repo = gh.get_repo(repo_name)
    created = repo.create_file("docs/a.md", "add a", "hello\n")
    assert created["commit"].sha == sandbox.head(repo_name)
    current = repo.get_contents("docs/a.md")
    with pytest.raises(github.GithubException) as stale:
        repo.update_file("docs/a.md", "edit", "new\n", "0" * 40)
    assert stale.value.status == 409
    updated = repo.update_file("docs/a.md", "edit", "new\n", current.sha)
    assert repo.get_contents("docs/a.md").decoded_content == b"new\n"
    listing = repo.get_contents("src")
    assert sorted(c.path for c in listing) == ["src/app.py", "src/util.py"]
    assert sorted(c.path for c in repo.get_contents("")) == ["README.md", "docs", "src"]
    repo.delete_file("docs/a.md", "remove", updated["content"].sha)
    with pytest.raises(github.UnknownObjectException):
        repo.get_contents("docs/a.md")
    assert repo.get_contents("README.md", ref="main").decoded_content == b"# app\n"


def test_put_existing_without_sha_is_422(sandbox: Sandbox, gh: github.Github, repo_name: str) -> None:
    repo = gh.get_repo(repo_name)
    with pytest.raises(github.GithubException) as info:
        repo.create_file("README.md", "clobber", "x")
    assert info.value.status == 422


def test_commit_files_parents_and_compare(sandbox: Sandbox, gh: github.Github, repo_name: str) -> None:
    base = sandbox.head(repo_name)
    sandbox.commit(repo_name, {"src/app.py": "def main():\n    return 2\n", "new.txt": "n\n"}, "Change", branch="topic")
    sandbox.commit(repo_name, {"src/util.py": None}, "Drop util", branch="topic")
    repo = gh.get_repo(repo_name)
    head = repo.get_commit("topic")
    assert head.parents[0].sha != base
    assert [(f.filename, f.status) for f in head.files] == [("src/util.py", "removed")]
    assert head.author.login == "octo"  # the sandbox's own commits map back to their account
    first = repo.get_commit(head.parents[0].sha)
    assert {f.filename: f.additions for f in first.files} == {"new.txt": 1, "src/app.py": 1}
    assert "+    return 2" in next(f.patch for f in first.files if f.filename == "src/app.py")
    comparison = repo.compare("main", "topic")
    assert (comparison.status, comparison.ahead_by, comparison.behind_by) == ("ahead", 2, 0)
    assert comparison.merge_base_commit.sha == base
    assert sorted(f.filename for f in comparison.files) == ["new.txt", "src/app.py", "src/util.py"]
    history = [c.sha for c in repo.get_commits(sha="topic")]
    assert history[-1] == base and len(history) == 3


def test_commit_pulls(sandbox: Sandbox, gh: github.Github, repo_name: str) -> None:
    sha = sandbox.commit(repo_name, {"f.txt": "f"}, "Feature", branch="feature")
    repo = gh.get_repo(repo_name)
    pull = repo.create_pull(title="Feature", body="", base="main", head="feature")
    assert [p.number for p in repo.get_commit(sha).get_pulls()] == [pull.number]
    merged = pull.merge()
    assert [p.number for p in repo.get_commit(merged.sha).get_pulls()] == [pull.number]


def test_put_of_a_new_file_ignores_a_sha_as_github_does(sandbox: Sandbox, gh: github.Github, repo_name: str) -> None:
    # Measured on GitHub (https://github.com/pome-sh/digital-twins/pull/400): a path that does not exist is created.
    body = {"message": "add", "content": "bmV3Cg==", "sha": "0" * 40}
    status, _, _ = gh.requester.requestJson("PUT", f"/repos/{repo_name}/contents/fresh.txt", input=body)
    assert status == 201
    assert gh.get_repo(repo_name).get_contents("fresh.txt").decoded_content == b"new\n"
