"""Pull requests: create, duplicates, filters, files, commits, a real merge, reviews and review comments."""

from __future__ import annotations

from collections.abc import Callable

import github
import pytest

from gauntlet.sandbox import Sandbox


def test_pull_request_lifecycle(sandbox: Sandbox, gh: github.Github, repo_name: str) -> None:
    base_before = sandbox.head(repo_name)
    sandbox.commit(repo_name, {"src/app.py": "def main():\n    return 3\n"}, "Return 3", branch="fix")
    sandbox.commit(repo_name, {"docs.md": "d\n"}, "Docs", branch="fix")
    repo = gh.get_repo(repo_name)
    pull = repo.create_pull(title="Fix", body="body", base="main", head="fix")
    assert (pull.number, pull.head.ref, pull.base.ref, pull.mergeable) == (1, "fix", "main", True)
    assert pull.head.sha == sandbox.head(repo_name, "fix")
    with pytest.raises(github.GithubException) as dup:
        repo.create_pull(title="Again", body="", base="main", head="fix")
    assert dup.value.status == 422
    assert dup.value.data["errors"][0]["message"] == "A pull request already exists for octo:fix."
    assert [p.number for p in repo.get_pulls(head="octo:fix")] == [1]
    assert list(repo.get_pulls(base="other")) == []
    assert [f.filename for f in pull.get_files()] == ["docs.md", "src/app.py"]
    assert [c.commit.message for c in pull.get_commits()] == ["Return 3", "Docs"]
    # A push to the head branch moves the pull request with it.
    sandbox.commit(repo_name, {"more.txt": "m"}, "More", branch="fix")
    assert repo.get_pull(1).head.sha == sandbox.head(repo_name, "fix")
    with pytest.raises(github.GithubException) as rebase:
        pull.merge(merge_method="rebase")
    assert rebase.value.status == 405
    status = pull.merge(commit_message="merge it")
    assert status.merged
    merge_commit = repo.get_commit(status.sha)
    assert [p.sha for p in merge_commit.parents] == [base_before, sandbox.head(repo_name, "fix")]
    assert sandbox.head(repo_name) == status.sha
    merged = repo.get_pull(1)
    assert merged.merged and merged.state == "closed" and merged.merge_commit_sha == status.sha
    assert [p.number for p in repo.get_pulls(state="closed")] == [1]
    assert repo.get_issue(1).pull_request is not None


def test_close_and_edit(sandbox: Sandbox, gh: github.Github, repo_name: str) -> None:
    sandbox.commit(repo_name, {"r.txt": "r"}, "Revert", branch="gauntlet/revert-abc")
    repo = gh.get_repo(repo_name)
    pull = repo.create_pull(
        title='Revert "x"', body="This reverts commit abc.", base="main", head="gauntlet/revert-abc"
    )
    pull.edit(title="Revert x", state="closed")
    again = repo.get_pull(pull.number)
    assert again.title == "Revert x" and again.state == "closed" and not again.merged
    # A closed pull request no longer blocks a new one for the same branch.
    again = repo.create_pull(title="Again", body="", base="main", head="gauntlet/revert-abc")
    assert again.number == pull.number + 1
    # Deleting the head branch closes the pull request, as on GitHub.
    repo.get_git_ref("heads/gauntlet/revert-abc").delete()
    assert [p.number for p in repo.get_pulls(state="open")] == []
    assert repo.get_pull(again.number).state == "closed"


def test_conflicting_merge_is_refused(sandbox: Sandbox, gh: github.Github, repo_name: str) -> None:
    sandbox.commit(repo_name, {"README.md": "theirs\n"}, "Theirs", branch="topic")
    sandbox.commit(repo_name, {"README.md": "ours\n"}, "Ours")
    pull = gh.get_repo(repo_name).create_pull(title="T", body="", base="main", head="topic")
    assert gh.get_repo(repo_name).get_pull(pull.number).mergeable is False
    with pytest.raises(github.GithubException) as info:
        pull.merge()
    assert info.value.status == 405


def test_reviews_and_review_comments(
    sandbox: Sandbox, gh: github.Github, client: Callable[..., github.Github], repo_name: str
) -> None:
    sandbox.commit(repo_name, {"src/app.py": "bad\n"}, "Bad", branch="review-me")
    repo = gh.get_repo(repo_name)
    pull = repo.create_pull(title="Review me", body="", base="main", head="review-me")
    head = repo.get_commit(pull.head.sha)
    with pytest.raises(github.GithubException) as own:
        pull.create_review(commit=head, body="mine", event="APPROVE")
    assert own.value.status == 422
    sandbox.set_permission(repo_name, "reviewer", "write")
    as_reviewer = client("reviewer").get_repo(repo_name).get_pull(pull.number)
    review = as_reviewer.create_review(
        commit=head,
        body="needs work",
        event="REQUEST_CHANGES",
        comments=[{"path": "src/app.py", "line": 1, "body": "why?"}],
    )
    assert review.state == "CHANGES_REQUESTED"
    pull.create_review_comment("and this", head, "src/app.py", line=1)
    assert [r.state for r in pull.get_reviews()] == ["CHANGES_REQUESTED"]
    with pytest.raises(github.GithubException) as outsider:
        pull.create_review_request(reviewers=["nobody"])
    assert outsider.value.status == 422
    pull.create_review_request(reviewers=["reviewer"])
    users, _ = pull.get_review_requests()
    assert [u.login for u in users] == ["reviewer"]
    assert [u.login for u in repo.get_pull(pull.number).requested_reviewers] == ["reviewer"]
    assert [c.body for c in pull.get_review_comments()] == ["why?", "and this"]
