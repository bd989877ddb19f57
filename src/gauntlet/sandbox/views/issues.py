"""JSON views of issues, comments, labels, reactions, pull requests and reviews."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from gauntlet.sandbox.anchors import Anchor
from gauntlet.sandbox.store import Comment, Issue, Label, Reaction, Repo, Review, ReviewComment, Store
from gauntlet.sandbox.views.repos import api, node_id, repository, user


def association(repo: Repo, login: str) -> str:
    """``author_association`` as GitHub derives it."""
    if login.lower() == repo.owner.lower():
        return "OWNER"
    if login.lower() in repo.collaborators:
        return "COLLABORATOR"
    return "NONE"


def rollup(url: str, reactions: list[Reaction]) -> dict[str, Any]:
    """A ``reaction-rollup``."""
    counts = dict.fromkeys(("+1", "-1", "laugh", "confused", "heart", "hooray", "eyes", "rocket"), 0)
    for reaction in reactions:
        counts[reaction.content] = counts.get(reaction.content, 0) + 1
    return {"url": url, "total_count": len(reactions), **counts}


def reaction(base: str, store: Store, item: Reaction) -> dict[str, Any]:
    """A ``reaction``."""
    return {
        "id": item.id,
        "node_id": node_id("REA", item.id),
        "user": user(base, store.user(item.user)),
        "content": item.content,
        "created_at": item.created_at,
    }


def label(base: str, repo: Repo, item: Label) -> dict[str, Any]:
    """A ``label``."""
    return {
        "id": item.id,
        "node_id": node_id("LA", item.id),
        "url": f"{api(base, repo)}/labels/{quote(item.name)}",
        "name": item.name,
        "color": item.color,
        "default": False,
        "description": item.description,
        # Newer than the pinned description, required by githubkit's 2022-11-28 models.
        "archived_at": None,
        "archived_by": None,
    }


def issue(base: str, store: Store, repo: Repo, item: Issue) -> dict[str, Any]:
    """An ``issue``; a pull request's issue carries ``pull_request``."""
    url = f"{api(base, repo)}/issues/{item.number}"
    comments = sum(1 for c in repo.comments.values() if c.issue_number == item.number)
    assignees = [user(base, store.user(a)) for a in item.assignees]
    body: dict[str, Any] = {
        "id": item.id,
        "node_id": node_id("I", item.id),
        "number": item.number,
        "url": url,
        "repository_url": api(base, repo),
        "labels_url": f"{url}/labels{{/name}}",
        "comments_url": f"{url}/comments",
        "events_url": f"{url}/events",
        "html_url": f"{base}/{repo.full_name}/{'pull' if item.pull else 'issues'}/{item.number}",
        "title": item.title,
        "body": item.body,
        "user": user(base, store.user(item.user)),
        "labels": [label(base, repo, repo.labels[n.lower()]) for n in item.labels if n.lower() in repo.labels],
        "state": item.state,
        "state_reason": item.state_reason,
        "locked": False,
        "active_lock_reason": None,
        "assignee": assignees[0] if assignees else None,
        "assignees": assignees,
        "milestone": None,
        "comments": comments,
        "created_at": item.created_at,
        "updated_at": item.updated_at,
        "closed_at": item.closed_at,
        "closed_by": user(base, store.user(item.closed_by)) if item.closed_by else None,
        "author_association": association(repo, item.user),
        "reactions": rollup(f"{url}/reactions", item.reactions),
    }
    if item.pull is not None:
        pull_url = f"{api(base, repo)}/pulls/{item.number}"
        html = f"{base}/{repo.full_name}/pull/{item.number}"
        body["pull_request"] = {
            "url": pull_url,
            "html_url": html,
            "diff_url": f"{html}.diff",
            "patch_url": f"{html}.patch",
            "merged_at": item.pull.merged_at,
        }
    return body


def comment(base: str, store: Store, repo: Repo, item: Comment) -> dict[str, Any]:
    """An ``issue-comment``."""
    url = f"{api(base, repo)}/issues/comments/{item.id}"
    kind = "pull" if repo.issues[item.issue_number].pull else "issues"
    return {
        "id": item.id,
        "node_id": node_id("IC", item.id),
        "url": url,
        "html_url": f"{base}/{repo.full_name}/{kind}/{item.issue_number}#issuecomment-{item.id}",
        "issue_url": f"{api(base, repo)}/issues/{item.issue_number}",
        "body": item.body,
        "user": user(base, store.user(item.user)),
        "created_at": item.created_at,
        "updated_at": item.updated_at,
        "author_association": association(repo, item.user),
        "reactions": rollup(f"{url}/reactions", item.reactions),
    }


def pull(base: str, store: Store, repo: Repo, item: Issue, login: str | None, stats: dict[str, int]) -> dict[str, Any]:
    """A ``pull-request`` (and, trimmed by the schema, a ``pull-request-simple``)."""
    assert item.pull is not None
    data = item.pull
    url = f"{api(base, repo)}/pulls/{item.number}"
    html = f"{base}/{repo.full_name}/pull/{item.number}"
    head_owner, _, head_name = data.head_repo.partition("/")
    head_repo = store.repo(head_owner, head_name) or repo
    issue_view = issue(base, store, repo, item)

    def end(ref: str, sha: str, where: Repo) -> dict[str, Any]:
        who = store.user(where.owner)
        return {
            "label": f"{where.owner}:{ref}",
            "ref": ref,
            "sha": sha,
            "user": user(base, who),
            "repo": repository(base, where, who, login),
        }

    return {
        "url": url,
        "id": item.id,
        "node_id": node_id("PR", item.id),
        "html_url": html,
        "diff_url": f"{html}.diff",
        "patch_url": f"{html}.patch",
        "issue_url": f"{api(base, repo)}/issues/{item.number}",
        "commits_url": f"{url}/commits",
        "review_comments_url": f"{url}/comments",
        "review_comment_url": f"{api(base, repo)}/pulls/comments{{/number}}",
        "comments_url": f"{api(base, repo)}/issues/{item.number}/comments",
        "statuses_url": f"{api(base, repo)}/statuses/{data.head_sha}",
        "number": item.number,
        "state": item.state,
        "locked": False,
        "title": item.title,
        "user": issue_view["user"],
        "body": item.body,
        "labels": issue_view["labels"],
        "milestone": None,
        "active_lock_reason": None,
        "created_at": item.created_at,
        "updated_at": item.updated_at,
        "closed_at": item.closed_at,
        "merged_at": data.merged_at,
        "merge_commit_sha": data.merge_commit_sha,
        "assignee": issue_view["assignee"],
        "assignees": issue_view["assignees"],
        "requested_reviewers": [user(base, store.user(r)) for r in data.requested_reviewers],
        "requested_teams": [],
        "head": end(data.head_ref, data.head_sha, head_repo),
        "base": end(data.base_ref, data.base_sha, repo),
        "_links": {
            name: {"href": href}
            for name, href in {
                "self": url,
                "html": html,
                "issue": issue_view["url"],
                "comments": issue_view["comments_url"],
                "review_comments": f"{url}/comments",
                "review_comment": f"{api(base, repo)}/pulls/comments{{/number}}",
                "commits": f"{url}/commits",
                "statuses": f"{api(base, repo)}/statuses/{data.head_sha}",
            }.items()
        },
        "author_association": issue_view["author_association"],
        "auto_merge": None,
        "draft": data.draft,
        "merged": data.merged,
        "mergeable": None if data.merged or item.state == "closed" else stats.get("mergeable", 1) == 1,
        "rebaseable": False,
        "mergeable_state": "clean" if stats.get("mergeable", 1) == 1 else "dirty",
        "merged_by": user(base, store.user(data.merged_by)) if data.merged_by else None,
        "comments": issue_view["comments"],
        "review_comments": sum(1 for c in repo.review_comments.values() if c.pull_number == item.number),
        "maintainer_can_modify": False,
        "commits": stats.get("commits", 0),
        "additions": stats.get("additions", 0),
        "deletions": stats.get("deletions", 0),
        "changed_files": stats.get("changed_files", 0),
    }


def review(base: str, store: Store, repo: Repo, item: Review) -> dict[str, Any]:
    """A ``pull-request-review``."""
    html = f"{base}/{repo.full_name}/pull/{item.pull_number}#pullrequestreview-{item.id}"
    pull_url = f"{api(base, repo)}/pulls/{item.pull_number}"
    return {
        "id": item.id,
        "node_id": node_id("PRR", item.id),
        "user": user(base, store.user(item.user)),
        "body": item.body,
        "state": item.state,
        "html_url": html,
        "pull_request_url": pull_url,
        "_links": {"html": {"href": html}, "pull_request": {"href": pull_url}},
        "submitted_at": item.submitted_at,
        "commit_id": item.commit_id,
        "author_association": association(repo, item.user),
    }


def review_comment(base: str, store: Store, repo: Repo, item: ReviewComment, now: Anchor) -> dict[str, Any]:
    """A ``pull-request-review-comment``; ``now`` is where it sits in today's diff (``None`` fields: outdated)."""
    url = f"{api(base, repo)}/pulls/comments/{item.id}"
    html = f"{base}/{repo.full_name}/pull/{item.pull_number}#discussion_r{item.id}"
    pull_url = f"{api(base, repo)}/pulls/{item.pull_number}"
    head = repo.issues[item.pull_number].pull
    return {
        "url": url,
        "id": item.id,
        "node_id": node_id("PRRC", item.id),
        "pull_request_review_id": item.review_id,
        "diff_hunk": now.diff_hunk,
        "path": item.path,
        "position": now.position,
        "original_position": item.position,
        # commit_id follows the comment to the head while it is current; an outdated one stays where it was.
        "commit_id": head.head_sha if head is not None and now.line is not None else item.commit_id,
        "original_commit_id": item.commit_id,
        **({"in_reply_to_id": item.in_reply_to} if item.in_reply_to is not None else {}),
        "user": user(base, store.user(item.user)),
        "body": item.body,
        "created_at": item.created_at,
        "updated_at": item.updated_at,
        "html_url": html,
        "pull_request_url": pull_url,
        "author_association": association(repo, item.user),
        "_links": {"self": {"href": url}, "html": {"href": html}, "pull_request": {"href": pull_url}},
        "start_line": None,
        "original_start_line": None,
        "start_side": None,
        "line": now.line,
        "original_line": item.line,
        "side": item.side,
        "subject_type": "line",
    }
