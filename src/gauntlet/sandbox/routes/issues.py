"""Issues, issue comments, labels, assignees and reactions.

See https://docs.github.com/rest/issues and https://docs.github.com/rest/reactions.
"""

from __future__ import annotations

from typing import Any

from gauntlet.sandbox.app import Context
from gauntlet.sandbox.http import (
    ApiError,
    Response,
    Router,
    created,
    found,
    paginate,
    required_text,
    validation_failed,
)
from gauntlet.sandbox.store import (
    Comment,
    Issue,
    Label,
    PullData,
    Reaction,
    Repo,
    ReviewComment,
    now_iso,
    permission_at_least,
)
from gauntlet.sandbox.views import issues as views

router = Router()
_REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")


def get_issue(ctx: Context, repo: Repo) -> Issue:
    """The issue (or pull request) in the path."""
    return ctx.numbered(repo.issues, "issue_number")


def get_comment(ctx: Context, repo: Repo) -> Comment:
    """The issue comment in the path."""
    return ctx.numbered(repo.comments, "comment_id")


def ensure_labels(ctx: Context, repo: Repo, names: list[Any]) -> list[str]:
    """Label names as stored; unknown labels are created, as GitHub does when labelling an issue."""
    result = []
    for given in names:
        name = given.get("name") if isinstance(given, dict) else given
        if not isinstance(name, str) or not name:
            raise validation_failed(resource="Label", code="invalid", field="name")
        key = name.lower()
        if key not in repo.labels:
            repo.labels[key] = Label(id=ctx.store.next_id(), name=name, color="ededed", description=None)
        result.append(repo.labels[key].name)
    return result


@router.add("GET", "/repos/{owner}/{repo}/issues")
def list_issues(ctx: Context) -> Response:
    """Issues and pull requests, newest first; ``state``, ``labels``, ``creator``, ``assignee`` filter."""
    repo = ctx.repo()
    query = ctx.request.query
    state = query.get("state", "open")
    wanted = [n.strip().lower() for n in query.get("labels", "").split(",") if n.strip()]
    with ctx.store.lock:
        items = [
            i
            for i in sorted(repo.issues.values(), key=lambda i: -i.number)
            if (state in ("all", i.state))
            and all(w in [n.lower() for n in i.labels] for w in wanted)
            and (not query.get("creator") or i.user.lower() == query["creator"].lower())
            and (not query.get("assignee") or query["assignee"].lower() in [a.lower() for a in i.assignees])
        ]
        if query.get("direction") == "asc":
            items.reverse()
        page, links = paginate(ctx.request, items)
        body = [views.issue(ctx.base, ctx.store, repo, i) for i in page]
    return Response(body=body, headers=links)


def open_issue(
    ctx: Context,
    repo: Repo,
    *,
    title: str,
    body: str | None,
    user: str,
    labels: list[str] | None = None,
    assignees: list[str] | None = None,
    pull: PullData | None = None,
) -> Issue:
    """Open an issue, or a pull request when ``pull`` is given, on the repository's next number.

    Issues and pull requests share one number sequence on GitHub, so both are opened here. Callers hold the
    store lock.
    """
    stamp = now_iso()
    issue = Issue(
        id=ctx.store.next_id(),
        number=repo.take_number(),
        title=title,
        body=body,
        user=user,
        labels=labels or [],
        assignees=assignees or [],
        created_at=stamp,
        updated_at=stamp,
        pull=pull,
    )
    repo.issues[issue.number] = issue
    return issue


@router.add("POST", "/repos/{owner}/{repo}/issues")
def create_issue(ctx: Context) -> Response:
    """Open an issue; labels and assignees need push access, as on GitHub (they are dropped silently otherwise)."""
    repo = ctx.repo("write", users_need="read")
    body = ctx.body()
    title = required_text(body, "title", "Issue")
    login = ctx.need_login()
    can_push = permission_at_least(repo.permission(login), "triage")
    with ctx.store.lock:
        issue = open_issue(
            ctx,
            repo,
            title=title,
            body=body.get("body"),
            user=login,
            labels=ensure_labels(ctx, repo, body.get("labels") or []) if can_push else [],
            assignees=[ctx.store.user(a).login for a in body.get("assignees") or []] if can_push else [],
        )
        view = views.issue(ctx.base, ctx.store, repo, issue)
    return created(view)


@router.add("GET", "/repos/{owner}/{repo}/issues/{issue_number}")
def read_issue(ctx: Context) -> Response:
    """One issue (pull requests too, as on GitHub)."""
    repo = ctx.repo()
    with ctx.store.lock:
        return Response(body=views.issue(ctx.base, ctx.store, repo, get_issue(ctx, repo)))


def update_issue_fields(ctx: Context, repo: Repo, issue: Issue, body: dict[str, Any]) -> None:
    """Apply the PATCH fields shared by issues and pull requests."""
    if "title" in body:
        issue.title = str(body["title"])
    if "body" in body:
        issue.body = body["body"]
    if "state" in body:
        state = body["state"]
        if state not in ("open", "closed"):
            raise validation_failed(resource="Issue", code="invalid", field="state")
        if state != issue.state:
            issue.state = state
            issue.closed_at = now_iso() if state == "closed" else None
            issue.closed_by = ctx.login if state == "closed" else issue.closed_by
            issue.state_reason = (body.get("state_reason") or "completed") if state == "closed" else "reopened"
    if "labels" in body:
        issue.labels = ensure_labels(ctx, repo, body["labels"] or [])
    if "assignees" in body:
        issue.assignees = [ctx.store.user(a).login for a in body["assignees"] or []]
    issue.updated_at = now_iso()


@router.add("PATCH", "/repos/{owner}/{repo}/issues/{issue_number}")
def patch_issue(ctx: Context) -> Response:
    """Edit or close an issue (its author may edit title, body and state)."""
    repo = ctx.repo("read")
    with ctx.store.lock:
        issue = get_issue(ctx, repo)
        author = ctx.login is not None and ctx.login.lower() == issue.user.lower()
        if not permission_at_least(repo.permission(ctx.login), "triage") and not author:
            raise ApiError(403, "Resource not accessible by integration")
        update_issue_fields(ctx, repo, issue, ctx.body())
        return Response(body=views.issue(ctx.base, ctx.store, repo, issue))


@router.add("GET", "/repos/{owner}/{repo}/issues/{issue_number}/comments")
def list_comments(ctx: Context) -> Response:
    """Comments on an issue, oldest first, paginated with ``Link`` headers."""
    repo = ctx.repo()
    with ctx.store.lock:
        issue = get_issue(ctx, repo)
        items = [c for c in repo.comments.values() if c.issue_number == issue.number]
        page, links = paginate(ctx.request, items)
        body = [views.comment(ctx.base, ctx.store, repo, c) for c in page]
    return Response(body=body, headers=links)


@router.add("POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments")
def create_comment(ctx: Context) -> Response:
    """Comment on an issue or pull request."""
    repo = ctx.repo("write", users_need="read")
    text = required_text(ctx.body(), "body", "IssueComment")
    if len(text) > 65536:
        raise validation_failed(
            resource="IssueComment",
            code="custom",
            field="body",
            message="Body is too long (maximum is 65536 characters)",
        )
    with ctx.store.lock:
        issue = get_issue(ctx, repo)
        stamp = now_iso()
        comment = Comment(
            id=ctx.store.next_id(),
            issue_number=issue.number,
            user=ctx.need_login(),
            body=text,
            created_at=stamp,
            updated_at=stamp,
        )
        repo.comments[comment.id] = comment
        view = views.comment(ctx.base, ctx.store, repo, comment)
    return created(view)


@router.add("GET", "/repos/{owner}/{repo}/issues/comments/{comment_id}")
def read_comment(ctx: Context) -> Response:
    """One issue comment."""
    repo = ctx.repo()
    with ctx.store.lock:
        return Response(body=views.comment(ctx.base, ctx.store, repo, get_comment(ctx, repo)))


def own_or_write(ctx: Context, repo: Repo, comment: Comment | ReviewComment) -> None:
    """403 unless the requester wrote ``comment`` or may write to the repository (editing and deleting)."""
    author = ctx.login is not None and ctx.login.lower() == comment.user.lower()
    if not author and not permission_at_least(repo.permission(ctx.login), "write"):
        raise ApiError(403, "Resource not accessible by integration")


@router.add("PATCH", "/repos/{owner}/{repo}/issues/comments/{comment_id}")
def edit_comment(ctx: Context) -> Response:
    """Edit a comment (its author, or anyone with write)."""
    repo = ctx.repo("read")
    text = required_text(ctx.body(), "body", "IssueComment")
    with ctx.store.lock:
        comment = get_comment(ctx, repo)
        own_or_write(ctx, repo, comment)
        comment.body = text
        comment.updated_at = now_iso()
        return Response(body=views.comment(ctx.base, ctx.store, repo, comment))


@router.add("DELETE", "/repos/{owner}/{repo}/issues/comments/{comment_id}")
def delete_comment(ctx: Context) -> Response:
    """Delete a comment (its author, or anyone with write)."""
    repo = ctx.repo("read")
    with ctx.store.lock:
        comment = get_comment(ctx, repo)
        own_or_write(ctx, repo, comment)
        del repo.comments[comment.id]
    return Response(status=204)


@router.add("GET", "/repos/{owner}/{repo}/labels")
def list_labels(ctx: Context) -> Response:
    """Repository labels."""
    repo = ctx.repo()
    with ctx.store.lock:
        page, links = paginate(ctx.request, list(repo.labels.values()))
        return Response(body=[views.label(ctx.base, repo, label) for label in page], headers=links)


@router.add("POST", "/repos/{owner}/{repo}/labels")
def create_label(ctx: Context) -> Response:
    """Create a label; 422 ``already_exists`` on a duplicate name (case-insensitive)."""
    repo = ctx.repo("write")
    body = ctx.body()
    name = required_text(body, "name", "Label")
    with ctx.store.lock:
        if name.lower() in repo.labels:
            raise validation_failed(resource="Label", code="already_exists", field="name")
        label = Label(
            id=ctx.store.next_id(),
            name=name,
            color=str(body.get("color", "ededed")).lstrip("#"),
            description=body.get("description"),
        )
        repo.labels[name.lower()] = label
        return Response(status=201, body=views.label(ctx.base, repo, label))


@router.add("GET", "/repos/{owner}/{repo}/labels/{name}")
def read_label(ctx: Context) -> Response:
    """One label by name."""
    repo = ctx.repo()
    label = found(repo.labels.get(ctx.params["name"].lower()))
    return Response(body=views.label(ctx.base, repo, label))


def _issue_labels(ctx: Context, repo: Repo, issue: Issue) -> list[dict[str, Any]]:
    return [views.label(ctx.base, repo, repo.labels[n.lower()]) for n in issue.labels]


@router.add("GET", "/repos/{owner}/{repo}/issues/{issue_number}/labels")
def list_issue_labels(ctx: Context) -> Response:
    """Labels on an issue."""
    repo = ctx.repo()
    with ctx.store.lock:
        return Response(body=_issue_labels(ctx, repo, get_issue(ctx, repo)))


@router.add("POST", "/repos/{owner}/{repo}/issues/{issue_number}/labels")
def add_labels(ctx: Context) -> Response:
    """Add labels (``{"labels": [...]}`` or a bare list)."""
    repo = ctx.repo("triage")
    raw = ctx.request.body
    import json

    parsed = json.loads(raw) if raw.strip() else {}
    names = parsed if isinstance(parsed, list) else parsed.get("labels", [])
    with ctx.store.lock:
        issue = get_issue(ctx, repo)
        for name in ensure_labels(ctx, repo, names):
            if name.lower() not in [n.lower() for n in issue.labels]:
                issue.labels.append(name)
        issue.updated_at = now_iso()
        return Response(body=_issue_labels(ctx, repo, issue))


@router.add("DELETE", "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}")
def remove_label(ctx: Context) -> Response:
    """Remove one label; 404 "Label does not exist" when it is not on the issue."""
    repo = ctx.repo("triage")
    with ctx.store.lock:
        issue = get_issue(ctx, repo)
        kept = [n for n in issue.labels if n.lower() != ctx.params["name"].lower()]
        if len(kept) == len(issue.labels):
            raise ApiError(404, "Label does not exist")
        issue.labels = kept
        return Response(body=_issue_labels(ctx, repo, issue))


@router.add("POST", "/repos/{owner}/{repo}/issues/{issue_number}/assignees")
def add_assignees(ctx: Context) -> Response:
    """Add assignees."""
    repo = ctx.repo("triage")
    with ctx.store.lock:
        issue = get_issue(ctx, repo)
        for login in ctx.body().get("assignees") or []:
            name = ctx.store.user(str(login)).login
            if name not in issue.assignees:
                issue.assignees.append(name)
        return Response(status=201, body=views.issue(ctx.base, ctx.store, repo, issue))


def _react(ctx: Context, reactions: list[Reaction]) -> Response:
    content = ctx.body().get("content")
    if content not in _REACTIONS:
        raise validation_failed(resource="Reaction", code="invalid", field="content")
    login = ctx.need_login()
    for existing in reactions:
        # GitHub answers 200 with the existing reaction when the same user reacts the same way again.
        if existing.user.lower() == login.lower() and existing.content == content:
            return Response(status=200, body=views.reaction(ctx.base, ctx.store, existing))
    reaction = Reaction(id=ctx.store.next_id(), user=login, content=str(content), created_at=now_iso())
    reactions.append(reaction)
    return Response(status=201, body=views.reaction(ctx.base, ctx.store, reaction))


def _list_reactions(ctx: Context, reactions: list[Reaction]) -> Response:
    wanted = ctx.request.query.get("content")
    items = [r for r in reactions if wanted is None or r.content == wanted]
    page, links = paginate(ctx.request, items)
    return Response(body=[views.reaction(ctx.base, ctx.store, r) for r in page], headers=links)


@router.add("GET", "/repos/{owner}/{repo}/issues/{issue_number}/reactions")
def list_issue_reactions(ctx: Context) -> Response:
    """Reactions on an issue."""
    repo = ctx.repo()
    with ctx.store.lock:
        return _list_reactions(ctx, get_issue(ctx, repo).reactions)


@router.add("POST", "/repos/{owner}/{repo}/issues/{issue_number}/reactions")
def react_issue(ctx: Context) -> Response:
    """React to an issue."""
    repo = ctx.repo("write", users_need="read")
    with ctx.store.lock:
        return _react(ctx, get_issue(ctx, repo).reactions)


@router.add("GET", "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions")
def list_comment_reactions(ctx: Context) -> Response:
    """Reactions on an issue comment."""
    repo = ctx.repo()
    with ctx.store.lock:
        return _list_reactions(ctx, get_comment(ctx, repo).reactions)


@router.add("POST", "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions")
def react_comment(ctx: Context) -> Response:
    """React to an issue comment."""
    repo = ctx.repo("write", users_need="read")
    with ctx.store.lock:
        return _react(ctx, get_comment(ctx, repo).reactions)
