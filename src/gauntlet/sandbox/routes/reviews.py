"""Pull request reviews and review comments: submit, dismiss; comment, reply, edit, delete.

See https://docs.github.com/rest/pulls/reviews and https://docs.github.com/rest/pulls/comments. A review
comment is stored as written (line and commit); where it sits on today's head, or that it is outdated, is
worked out on every read (``anchors.py``), as GitHub carries comments forward when the branch moves.
"""

from __future__ import annotations

from typing import Any

from gauntlet.sandbox.anchors import Anchor, anchor, diff_positions
from gauntlet.sandbox.app import Context
from gauntlet.sandbox.http import (
    ApiError,
    Response,
    Router,
    found,
    not_found,
    paginate,
    required_text,
    validation_failed,
)
from gauntlet.sandbox.routes.issues import own_or_write
from gauntlet.sandbox.routes.pulls import get_pull, refresh
from gauntlet.sandbox.store import Issue, Repo, Review, ReviewComment, now_iso
from gauntlet.sandbox.views import issues as views

router = Router()

_EVENTS = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "COMMENT": "COMMENTED"}


def anchor_now(repo: Repo, comment: ReviewComment) -> Anchor:
    """Where ``comment`` sits in its pull request's diff today (``None`` line and position: outdated)."""
    issue = repo.issues[comment.pull_number]
    data = issue.pull
    assert data is not None
    refresh(repo, issue)
    return anchor(
        repo.git,
        merge_base=repo.git.merge_base(data.base_sha, data.head_sha),
        head=data.head_sha,
        path=comment.path,
        commit=comment.commit_id,
        line=comment.line,
    )


def _view(ctx: Context, repo: Repo, comment: ReviewComment) -> dict[str, Any]:
    return views.review_comment(ctx.base, ctx.store, repo, comment, anchor_now(repo, comment))


def _get_comment(ctx: Context, repo: Repo) -> ReviewComment:
    return ctx.numbered(repo.review_comments, "comment_id")


def visible_reviews(repo: Repo, number: int, login: str | None) -> list[Review]:
    """The reviews of pull request ``number`` that ``login`` sees, oldest first: a pending one only for its author."""
    return [
        r
        for r in repo.reviews.values()
        if r.pull_number == number and (r.state != "PENDING" or r.user.lower() == (login or "").lower())
    ]


def review_comments(repo: Repo, number: int) -> list[ReviewComment]:
    """The review comments of pull request ``number``, oldest first."""
    return [c for c in repo.review_comments.values() if c.pull_number == number]


@router.add("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews")
def list_reviews(ctx: Context) -> Response:
    """Reviews, oldest first (a pending review only for its author, as on GitHub)."""
    repo = ctx.repo()
    with ctx.store.lock:
        items = visible_reviews(repo, get_pull(ctx, repo).number, ctx.login)
        page, links = paginate(ctx.request, items)
        return Response(body=[views.review(ctx.base, ctx.store, repo, r) for r in page], headers=links)


@router.add("POST", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews")
def create_review(ctx: Context) -> Response:
    """Submit a review (``event`` APPROVE/REQUEST_CHANGES/COMMENT; none leaves it PENDING) with comments."""
    repo = ctx.repo("write", users_need="read")
    body = ctx.body()
    login = ctx.need_login()
    with ctx.store.lock:
        issue = get_pull(ctx, repo)
        assert issue.pull is not None
        state = _EVENTS.get(str(body.get("event")), "PENDING")
        if state in ("APPROVED", "CHANGES_REQUESTED") and login.lower() == issue.user.lower():
            verb = "approve" if state == "APPROVED" else "request changes on"
            raise validation_failed(f"Unprocessable Entity: Can not {verb} your own pull request")
        if state == "CHANGES_REQUESTED" and not body.get("body"):
            raise validation_failed("Unprocessable Entity: Review body is required for REQUEST_CHANGES")
        review = Review(
            id=ctx.store.next_id(),
            pull_number=issue.number,
            user=login,
            body=str(body.get("body") or ""),
            state=state,
            commit_id=str(body.get("commit_id") or issue.pull.head_sha),
            submitted_at=now_iso(),
        )
        comments = [_new_comment(ctx, repo, issue, raw, review.id) for raw in body.get("comments") or []]
        repo.reviews[review.id] = review
        for comment in comments:
            repo.review_comments[comment.id] = comment
        return Response(body=views.review(ctx.base, ctx.store, repo, review))


@router.add("PUT", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/dismissals")
def dismiss_review(ctx: Context) -> Response:
    """Dismiss an approval or a change request (write permission); 422 for any other state."""
    repo = ctx.repo("write")
    message = ctx.body().get("message")
    if not isinstance(message, str) or not message.strip():
        # This operation's 422 is a "validation-error-simple": its errors are strings.
        raise ApiError(422, "Validation Failed", errors=["message wasn't supplied."])
    with ctx.store.lock:
        number = get_pull(ctx, repo).number
        review = ctx.numbered(repo.reviews, "review_id")
        if review.pull_number != number:
            raise not_found()
        if review.state not in ("APPROVED", "CHANGES_REQUESTED"):
            raise validation_failed(f"Can not dismiss a {review.state.lower()} pull request review")
        review.state = "DISMISSED"
        return Response(body=views.review(ctx.base, ctx.store, repo, review))


def _new_comment(ctx: Context, repo: Repo, issue: Issue, raw: dict[str, Any], review_id: int | None) -> ReviewComment:
    """A comment on a line of the head's diff (``line``, or the deprecated diff ``position``); 422 off the diff."""
    data = issue.pull
    assert data is not None
    if not isinstance(raw.get("body"), str) or not isinstance(raw.get("path"), str):
        raise validation_failed(resource="PullRequestReviewComment", code="missing_field", field="body")
    merge_base = repo.git.merge_base(data.base_sha, data.head_sha)
    positions = diff_positions(repo.git.patch(merge_base, data.head_sha, raw["path"]))
    line, position = raw.get("line"), raw.get("position")
    if line is None and isinstance(position, int):
        line = next((n for n, p in positions.items() if p == position), None)
    if not isinstance(line, int) or line not in positions:
        raise validation_failed(
            resource="PullRequestReviewComment",
            code="custom",
            field="pull_request_review_thread.line",
            message="could not be resolved",
        )
    stamp = now_iso()
    return ReviewComment(
        id=ctx.store.next_id(),
        pull_number=issue.number,
        user=ctx.need_login(),
        body=raw["body"],
        path=raw["path"],
        line=line,
        position=positions[line],
        side=str(raw.get("side", "RIGHT")),
        commit_id=data.head_sha,
        created_at=stamp,
        updated_at=stamp,
        review_id=review_id,
    )


def _reply(ctx: Context, repo: Repo, issue: Issue, parent: ReviewComment, text: str) -> ReviewComment:
    """A reply in ``parent``'s thread: same place, pointing at the thread's first comment."""
    if parent.pull_number != issue.number:
        raise not_found()
    stamp = now_iso()
    reply = ReviewComment(
        id=ctx.store.next_id(),
        pull_number=issue.number,
        user=ctx.need_login(),
        body=text,
        path=parent.path,
        line=parent.line,
        position=parent.position,
        side=parent.side,
        commit_id=parent.commit_id,
        created_at=stamp,
        updated_at=stamp,
        in_reply_to=parent.in_reply_to or parent.id,
    )
    repo.review_comments[reply.id] = reply
    return reply


@router.add("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/comments")
def list_review_comments(ctx: Context) -> Response:
    """Review comments, oldest first, each anchored in today's diff (outdated ones with ``position: null``)."""
    repo = ctx.repo()
    with ctx.store.lock:
        items = review_comments(repo, get_pull(ctx, repo).number)
        page, links = paginate(ctx.request, items)
        return Response(body=[_view(ctx, repo, c) for c in page], headers=links)


@router.add("POST", "/repos/{owner}/{repo}/pulls/{pull_number}/comments")
def create_review_comment(ctx: Context) -> Response:
    """Comment on a line of the diff, or reply with ``in_reply_to`` (then only ``body`` counts)."""
    repo = ctx.repo("write", users_need="read")
    body = ctx.body()
    with ctx.store.lock:
        issue = get_pull(ctx, repo)
        parent = body.get("in_reply_to")
        if isinstance(parent, int):
            text = required_text(body, "body", "PullRequestReviewComment")
            comment = _reply(ctx, repo, issue, found(repo.review_comments.get(parent)), text)
        else:
            comment = _new_comment(ctx, repo, issue, body, None)
            repo.review_comments[comment.id] = comment
        return Response(status=201, body=_view(ctx, repo, comment))


@router.add("POST", "/repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies")
def reply_to_comment(ctx: Context) -> Response:
    """Reply to a review comment of this pull request (404 for another one's)."""
    repo = ctx.repo("write", users_need="read")
    text = required_text(ctx.body(), "body", "PullRequestReviewComment")
    with ctx.store.lock:
        issue = get_pull(ctx, repo)
        comment = _reply(ctx, repo, issue, _get_comment(ctx, repo), text)
        return Response(status=201, body=_view(ctx, repo, comment))


@router.add("GET", "/repos/{owner}/{repo}/pulls/comments/{comment_id}")
def read_review_comment(ctx: Context) -> Response:
    """One review comment."""
    repo = ctx.repo()
    with ctx.store.lock:
        return Response(body=_view(ctx, repo, _get_comment(ctx, repo)))


@router.add("PATCH", "/repos/{owner}/{repo}/pulls/comments/{comment_id}")
def edit_review_comment(ctx: Context) -> Response:
    """Edit a review comment's body (its author, or anyone with write)."""
    repo = ctx.repo("read")
    text = required_text(ctx.body(), "body", "PullRequestReviewComment")
    with ctx.store.lock:
        comment = _get_comment(ctx, repo)
        own_or_write(ctx, repo, comment)
        comment.body, comment.updated_at = text, now_iso()
        return Response(body=_view(ctx, repo, comment))


@router.add("DELETE", "/repos/{owner}/{repo}/pulls/comments/{comment_id}")
def delete_review_comment(ctx: Context) -> Response:
    """Delete a review comment (its author, or anyone with write); its replies stay, as on GitHub."""
    repo = ctx.repo("read")
    with ctx.store.lock:
        comment = _get_comment(ctx, repo)
        own_or_write(ctx, repo, comment)
        del repo.review_comments[comment.id]
    return Response(status=204)
