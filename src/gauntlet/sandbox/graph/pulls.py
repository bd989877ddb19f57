"""``PullRequest`` with its ``reviews`` and ``reviewThreads``, built from the REST views so both APIs agree.

Each node is mapped field by field from what ``GET pulls/N/reviews`` and ``GET pulls/N/comments`` give for the
same item (``views/issues.py``): ids, bodies, URLs, association, and where a comment sits now (``anchors.py``).
GitHub's differences are kept: ``outdated`` is REST's ``position: null``, a bot's login loses ``[bot]``
(``scope.actor``), and comments come grouped in threads (a reply points at its thread's first comment).
"""

from __future__ import annotations

from typing import Any

from gauntlet.sandbox.graph import issues
from gauntlet.sandbox.graph.connections import connection
from gauntlet.sandbox.graph.scope import Node, NotFound, Scope, actor, authored
from gauntlet.sandbox.routes.pulls import refresh
from gauntlet.sandbox.routes.reviews import anchor_now, review_comments, visible_reviews
from gauntlet.sandbox.store import Repo, Review, ReviewComment
from gauntlet.sandbox.views import issues as views
from gauntlet.sandbox.views.repos import node_id

__all__ = ["pull_request"]


def pull_request(scope: Scope, repo: Repo, number: int) -> Node:
    """``Repository.pullRequest(number)``; an issue's number is not a pull request's.

    :raises NotFound: when there is no such pull request.
    """
    issue = repo.issues.get(number)
    if issue is None or issue.pull is None:
        raise NotFound(f"Could not resolve to a PullRequest with the number of {number}.")
    refresh(repo, issue)
    data = issue.pull
    state = "MERGED" if data.merged else issue.state.upper()

    def reviews(_info: Any, author: str | None = None, states: list[str] | None = None, **page: Any) -> Node:
        items = [
            r
            for r in visible_reviews(repo, number, scope.login)
            if (author is None or r.user.lower() == author.lower()) and (states is None or r.state in states)
        ]
        return connection(items, lambda r: _review(scope, repo, r), **page)

    def threads(_info: Any, **page: Any) -> Node:
        comments = review_comments(repo, number)
        roots = [c for c in comments if c.in_reply_to is None]
        replies: dict[int, list[ReviewComment]] = {}
        for comment in comments:
            if comment.in_reply_to is not None:
                replies.setdefault(comment.in_reply_to, []).append(comment)
        return connection(roots, lambda root: _thread(scope, repo, [root, *replies.get(root.id, [])]), **page)

    return {
        "__typename": "PullRequest",
        "id": node_id("PR", issue.id),
        "databaseId": issue.id,
        "number": number,
        "title": issue.title,
        "body": issue.body or "",
        "state": state,
        "url": f"{scope.base}/{repo.full_name}/pull/{number}",
        "author": actor(scope, issue.user),
        "baseRefName": data.base_ref,
        "headRefName": data.head_ref,
        "headRefOid": data.head_sha,
        "comments": lambda _info, **page: issues.comments(scope, repo, number, **page),
        "reviews": reviews,
        "reviewThreads": threads,
    }


def _review(scope: Scope, repo: Repo, item: Review) -> Node:
    rest = views.review(scope.base, scope.store, repo, item)
    return {
        **authored(scope, rest, item.user),
        "state": rest["state"],
        # A pending review has not been submitted yet.
        "submittedAt": rest["submitted_at"] if item.state != "PENDING" else None,
    }


def _rest_comment(scope: Scope, repo: Repo, item: ReviewComment) -> dict[str, Any]:
    """REST's view of a review comment; its place today is worked out once per query for a whole thread."""
    key = ("anchor", item.pull_number, item.commit_id, item.path, item.line)  # a reply's are its thread's
    if key not in scope.memo:
        scope.memo[key] = anchor_now(repo, item)
    return views.review_comment(scope.base, scope.store, repo, item, scope.memo[key])


def _comment(scope: Scope, repo: Repo, item: ReviewComment) -> Node:
    rest = _rest_comment(scope, repo, item)

    def reply_to(_info: Any) -> Node | None:
        parent = repo.review_comments.get(item.in_reply_to) if item.in_reply_to is not None else None
        return _comment(scope, repo, parent) if parent is not None else None

    def review(_info: Any) -> Node | None:
        found = repo.reviews.get(item.review_id) if item.review_id is not None else None
        return _review(scope, repo, found) if found is not None else None

    return {
        **authored(scope, rest, item.user),
        "path": rest["path"],
        "line": rest["line"],
        "originalLine": rest["original_line"],
        "position": rest["position"],
        "originalPosition": rest["original_position"],
        "outdated": rest["position"] is None,
        "diffHunk": rest["diff_hunk"],
        "createdAt": rest["created_at"],
        "updatedAt": rest["updated_at"],
        "subjectType": str(rest["subject_type"]).upper(),
        "replyTo": reply_to,
        "pullRequestReview": review,
    }


def _thread(scope: Scope, repo: Repo, comments: list[ReviewComment]) -> Node:
    root = _rest_comment(scope, repo, comments[0])
    return {
        "id": node_id("PRRT", comments[0].id),
        "path": root["path"],
        "line": root["line"],
        "originalLine": root["original_line"],
        "isOutdated": root["position"] is None,
        # The sandbox serves no way to resolve a thread (GitHub's resolveReviewThread mutation).
        "isResolved": False,
        "diffSide": root["side"],
        "subjectType": str(root["subject_type"]).upper(),
        "comments": lambda _info, skip=None, **page: connection(
            comments[skip or 0 :], lambda c: _comment(scope, repo, c), **page
        ),
    }
