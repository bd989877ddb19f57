"""Issues, comments with pagination, labels, assignees and reactions through PyGithub."""

from __future__ import annotations

from collections.abc import Callable

import github
import pytest
import requests

from gauntlet.sandbox import Sandbox

Client = Callable[..., github.Github]


def test_issue_lifecycle_labels_assignees(sandbox: Sandbox, gh: github.Github, repo_name: str) -> None:
    repo = gh.get_repo(repo_name)
    repo.create_label("gauntlet:needs-human", "d73a4a", "filed by Gauntlet")
    with pytest.raises(github.GithubException) as dup:
        repo.create_label("Gauntlet:Needs-Human", "ffffff")
    assert dup.value.status == 422 and dup.value.data["errors"][0]["code"] == "already_exists"
    issue = repo.create_issue("Main is red", "<!-- gauntlet:key=needs-human:abc -->", labels=["gauntlet:needs-human"])
    issue.add_to_assignees("octo")
    issue.add_to_labels("extra")
    assert [label.name for label in repo.get_issue(issue.number).labels] == ["gauntlet:needs-human", "extra"]
    assert repo.get_issue(issue.number).assignees[0].login == "octo"
    found = repo.get_issues(labels=[repo.get_label("gauntlet:needs-human")])
    assert [i.number for i in found] == [issue.number]
    issue.remove_from_labels("extra")
    issue.edit(state="closed", body="done")
    closed = repo.get_issue(issue.number)
    assert closed.state == "closed" and closed.closed_at is not None and closed.body == "done"
    assert list(repo.get_issues(state="open")) == []
    assert [i.number for i in repo.get_issues(state="all")] == [issue.number]


def test_comments_paginate_with_link_headers(sandbox: Sandbox, gh: github.Github, repo_name: str) -> None:
    repo = gh.get_repo(repo_name)
    issue = repo.create_issue("Many comments")
    for n in range(7):
        issue.create_comment(f"comment {n}")
    response = requests.get(
        f"{sandbox.url}/repos/{repo_name}/issues/{issue.number}/comments?per_page=3",
        headers={"Authorization": "token octo"},
        timeout=5,
    )
    assert len(response.json()) == 3
    assert 'rel="next"' in response.headers["Link"] and 'rel="last"' in response.headers["Link"]
    assert response.headers["Link"].startswith(f"<{sandbox.url}/")
    small = github.Github(
        base_url=sandbox.url, auth=github.Auth.Token("octo"), per_page=2, retry=None, seconds_between_requests=0
    )
    bodies = [c.body for c in small.get_repo(repo_name).get_issue(issue.number).get_comments()]
    assert bodies == [f"comment {n}" for n in range(7)]


def test_comment_edit_delete_and_reactions(sandbox: Sandbox, gh: github.Github, repo_name: str) -> None:
    repo = gh.get_repo(repo_name)
    issue = repo.create_issue("Reactions")
    comment = issue.create_comment("sticky <!-- gauntlet:key=pr-comment:1 -->")
    comment.edit("sticky v2 <!-- gauntlet:key=pr-comment:1 -->")
    assert repo.get_issue(issue.number).get_comment(comment.id).body.startswith("sticky v2")
    comment.create_reaction("eyes")
    comment.create_reaction("eyes")  # the same reaction again is not a second one
    issue.create_reaction("rocket")
    assert [r.content for r in comment.get_reactions()] == ["eyes"]
    assert [r.content for r in issue.get_reactions()] == ["rocket"]
    comment.delete()
    assert list(issue.get_comments()) == []


def test_other_people_cannot_edit_my_comment(
    sandbox: Sandbox, client: Client, gh: github.Github, repo_name: str
) -> None:
    issue = gh.get_repo(repo_name).create_issue("Mine")
    comment = issue.create_comment("mine")
    stranger = client("mallory")
    theirs = stranger.get_repo(repo_name).get_issue(issue.number).get_comment(comment.id)
    with pytest.raises(github.GithubException) as info:
        theirs.edit("hijacked")
    assert info.value.status == 403
