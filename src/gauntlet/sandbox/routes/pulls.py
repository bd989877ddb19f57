"""Pull requests: create, list, update, files, commits, merge, requested reviewers (reviews: ``reviews.py``).

See https://docs.github.com/rest/pulls. A pull request is an issue with ``pull`` set, as on GitHub.
"""

from __future__ import annotations

from typing import Any

from gauntlet.sandbox.app import Context
from gauntlet.sandbox.git import GitError
from gauntlet.sandbox.http import ApiError, Response, Router, created, not_found, paginate, validation_failed
from gauntlet.sandbox.routes.contents import files_between, resolve_rev
from gauntlet.sandbox.routes.issues import open_issue, update_issue_fields
from gauntlet.sandbox.store import Issue, PullData, Repo, now_iso
from gauntlet.sandbox.views import git as git_views
from gauntlet.sandbox.views import issues as views
from gauntlet.sandbox.views.repos import user
from gauntlet.sandbox.writes import move_branch, signature

router = Router()


def refresh(repo: Repo, issue: Issue) -> None:
    """Follow the branches of an open pull request (pushes move them behind the API's back)."""
    data = issue.pull
    if data is None or issue.state != "open":
        return
    head = repo.git.ref(f"refs/heads/{data.head_ref}")
    base = repo.git.ref(f"refs/heads/{data.base_ref}")
    if head:
        data.head_sha = head
    else:
        # GitHub closes a pull request whose head branch was deleted.
        issue.state, issue.closed_at, issue.updated_at = "closed", now_iso(), now_iso()
    if base:
        data.base_sha = base


def _stats(repo: Repo, issue: Issue) -> dict[str, int]:
    data = issue.pull
    assert data is not None
    key = (data.base_sha, data.head_sha)
    if key not in repo.diff_stats:
        repo.diff_stats[key] = _compute_stats(repo, issue)
    known = repo.diff_stats[key]
    return dict(known, mergeable=known["mergeable"] or int(data.merged))


def _compute_stats(repo: Repo, issue: Issue) -> dict[str, int]:
    data = issue.pull
    assert data is not None
    merge_base = repo.git.merge_base(data.base_sha, data.head_sha) or data.base_sha
    changes = repo.git.diff(merge_base, data.head_sha)
    mergeable = repo.git.merge_trees(data.base_sha, data.head_sha) is not None
    return {
        "commits": len(repo.git.rev_list(data.head_sha, merge_base)),
        "additions": sum(c.additions for c in changes),
        "deletions": sum(c.deletions for c in changes),
        "changed_files": len(changes),
        "mergeable": int(mergeable),
    }


def pull_view(ctx: Context, repo: Repo, issue: Issue, *, full: bool = False) -> dict[str, Any]:
    """The pull request as JSON (``full`` adds the diff stats a single-PR read has)."""
    stats = _stats(repo, issue) if full else {}
    return views.pull(ctx.base, ctx.store, repo, issue, ctx.login, stats)


def get_pull(ctx: Context, repo: Repo) -> Issue:
    """The pull request in the path."""
    issue = repo.issues.get(ctx.number("pull_number"))
    if issue is None or issue.pull is None:
        raise not_found()
    refresh(repo, issue)
    return issue


@router.add("POST", "/repos/{owner}/{repo}/pulls")
def create_pull(ctx: Context) -> Response:
    """Open a pull request; 422 when one is already open for the same head and base."""
    repo = ctx.repo("write", users_need="read")
    body = ctx.body()
    title, head, base = body.get("title"), body.get("head"), body.get("base")
    if not isinstance(title, str) or not isinstance(head, str) or not isinstance(base, str):
        raise validation_failed(resource="PullRequest", code="missing_field", field="title")
    head_owner, _, head_ref = head.rpartition(":")
    head_owner = head_owner or repo.owner
    with ctx.store.lock:
        head_sha = repo.git.ref(f"refs/heads/{head_ref}")
        base_sha = repo.git.ref(f"refs/heads/{base}")
        if head_sha is None:
            raise validation_failed(resource="PullRequest", code="invalid", field="head")
        if base_sha is None:
            raise validation_failed(resource="PullRequest", code="invalid", field="base")
        for other in repo.issues.values():
            if other.pull and other.state == "open" and other.pull.head_ref == head_ref and other.pull.base_ref == base:
                raise validation_failed(
                    resource="PullRequest",
                    code="custom",
                    message=f"A pull request already exists for {head_owner}:{head_ref}.",
                )
        if repo.git.merge_base(base_sha, head_sha) is None or not repo.git.rev_list(head_sha, base_sha):
            raise validation_failed(
                resource="PullRequest", code="custom", message=f"No commits between {base} and {head_ref}"
            )
        issue = open_issue(
            ctx,
            repo,
            title=title,
            body=body.get("body"),
            user=ctx.need_login(),
            pull=PullData(
                head_ref=head_ref,
                head_repo=repo.full_name,
                head_sha=head_sha,
                base_ref=base,
                base_sha=base_sha,
                draft=bool(body.get("draft", False)),
            ),
        )
        view = pull_view(ctx, repo, issue, full=True)
    return created(view)


@router.add("GET", "/repos/{owner}/{repo}/pulls")
def list_pulls(ctx: Context) -> Response:
    """Pull requests, newest first; ``state``, ``head`` (``owner:branch``) and ``base`` filter."""
    repo = ctx.repo()
    query = ctx.request.query
    state = query.get("state", "open")
    head = query.get("head", "")
    head_owner, _, head_ref = head.rpartition(":")
    with ctx.store.lock:
        items = []
        for issue in sorted(repo.issues.values(), key=lambda i: -i.number):
            data = issue.pull
            if data is None:
                continue
            if head and (data.head_ref != head_ref or (head_owner and head_owner.lower() != repo.owner.lower())):
                continue
            if query.get("base") and data.base_ref != query["base"]:
                continue
            refresh(repo, issue)  # before the state filter: a deleted head branch closes it
            if state in ("all", issue.state):
                items.append(issue)
        page, links = paginate(ctx.request, items)
        body = [pull_view(ctx, repo, i) for i in page]
    return Response(body=body, headers=links)


@router.add("GET", "/repos/{owner}/{repo}/pulls/{pull_number}")
def read_pull(ctx: Context) -> Response:
    """One pull request with mergeability and diff stats."""
    repo = ctx.repo()
    with ctx.store.lock:
        return Response(body=pull_view(ctx, repo, get_pull(ctx, repo), full=True))


@router.add("PATCH", "/repos/{owner}/{repo}/pulls/{pull_number}")
def patch_pull(ctx: Context) -> Response:
    """Edit title, body, base or state."""
    repo = ctx.repo("write")
    body = ctx.body()
    with ctx.store.lock:
        issue = get_pull(ctx, repo)
        assert issue.pull is not None
        if issue.pull.merged and body.get("state") == "open":
            raise validation_failed("Cannot reopen a merged pull request")
        if isinstance(body.get("base"), str):
            issue.pull.base_ref = body["base"]
        update_issue_fields(ctx, repo, issue, {k: v for k, v in body.items() if k in ("title", "body", "state")})
        refresh(repo, issue)
        return Response(body=pull_view(ctx, repo, issue, full=True))


@router.add("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/files")
def pull_files(ctx: Context) -> Response:
    """Files changed by the pull request (head against the merge base)."""
    repo = ctx.repo()
    with ctx.store.lock:
        data = get_pull(ctx, repo).pull
        assert data is not None
        merge_base = repo.git.merge_base(data.base_sha, data.head_sha)
        page, links = paginate(ctx.request, files_between(ctx, repo, merge_base, data.head_sha))
    return Response(body=page, headers=links)


@router.add("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/commits")
def pull_commits(ctx: Context) -> Response:
    """Commits of the pull request, oldest first."""
    repo = ctx.repo()
    with ctx.store.lock:
        data = get_pull(ctx, repo).pull
        assert data is not None
        merge_base = repo.git.merge_base(data.base_sha, data.head_sha)
        shas = list(reversed(repo.git.rev_list(data.head_sha, merge_base)))
        page, links = paginate(ctx.request, shas)
        body = [git_views.commit(ctx.base, ctx.store, repo, repo.git.read_commit(s)) for s in page]
    return Response(body=body, headers=links)


@router.add("PUT", "/repos/{owner}/{repo}/pulls/{pull_number}/merge")
def merge_pull(ctx: Context) -> Response:
    """Merge with a real merge commit on the base branch (``squash``: one parent, same tree; no ``rebase``)."""
    repo = ctx.repo("write")
    body = ctx.body()
    login = ctx.need_login()
    with ctx.store.lock:
        issue = get_pull(ctx, repo)
        data = issue.pull
        assert data is not None
        if data.merged or issue.state != "open":
            raise ApiError(405, "Pull Request is not mergeable")
        if body.get("sha") and body["sha"] != data.head_sha:
            raise ApiError(409, "Head branch was modified. Review and try the merge again.")
        tree = repo.git.merge_trees(data.base_sha, data.head_sha)
        if tree is None:
            raise ApiError(405, "Pull Request is not mergeable")
        method = body.get("merge_method", "merge")
        if method not in ("merge", "squash"):
            # The sandbox's repositories say allow_rebase_merge: false, and GitHub refuses what is not allowed.
            raise ApiError(405, "Rebase merges are not allowed on this repository.")
        title = body.get("commit_title") or (
            f"{issue.title} (#{issue.number})"
            if method == "squash"
            else f"Merge pull request #{issue.number} from {repo.owner}/{data.head_ref}"
        )
        message = f"{title}\n\n{body.get('commit_message') or issue.title}\n"
        parents = [data.base_sha] if method == "squash" else [data.base_sha, data.head_sha]
        who = signature(login)
        sha = repo.git.commit_tree(tree, parents, message, author=who, committer=who)
        move_branch(repo, f"refs/heads/{data.base_ref}", sha, data.base_sha)
        stamp = now_iso()
        data.merged, data.merged_at, data.merged_by, data.merge_commit_sha = True, stamp, login, sha
        issue.state, issue.closed_at, issue.updated_at, issue.closed_by = "closed", stamp, stamp, login
    return Response(body={"sha": sha, "merged": True, "message": "Pull Request successfully merged"})


@router.add("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers")
def list_requested(ctx: Context) -> Response:
    """Users whose review is requested (teams do not exist in the sandbox)."""
    repo = ctx.repo()
    with ctx.store.lock:
        data = get_pull(ctx, repo).pull
        assert data is not None
        users = [user(ctx.base, ctx.store.user(login)) for login in data.requested_reviewers]
    return Response(body={"users": users, "teams": []})


@router.add("POST", "/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers")
def request_reviewers(ctx: Context) -> Response:
    """Request reviews; 422 for the author or for someone who is not a collaborator, as on GitHub."""
    repo = ctx.repo("write")
    wanted = ctx.body().get("reviewers") or []
    with ctx.store.lock:
        issue = get_pull(ctx, repo)
        assert issue.pull is not None
        for login in wanted:
            name = ctx.store.user(str(login)).login
            if name.lower() == issue.user.lower():
                raise validation_failed("Review cannot be requested from pull request author.")
            if name.lower() != repo.owner.lower() and name.lower() not in repo.collaborators:
                raise validation_failed(
                    "Reviews may only be requested from collaborators. One or more of the users or teams you "
                    f"specified is not a collaborator of the {repo.full_name} repository."
                )
            if name not in issue.pull.requested_reviewers:
                issue.pull.requested_reviewers.append(name)
        return Response(status=201, body=pull_view(ctx, repo, issue))


@router.add("GET", "/repos/{owner}/{repo}/commits/{commit_sha}/pulls")
def commit_pulls(ctx: Context) -> Response:
    """Pull requests whose head contains the commit, or that merged it."""
    repo = ctx.repo()
    sha = resolve_rev(repo, ctx.params["commit_sha"])
    found = []
    for issue in sorted(repo.issues.values(), key=lambda i: -i.number):
        if issue.pull is None:
            continue
        refresh(repo, issue)
        data = issue.pull
        try:
            in_head = data.head_sha == sha or (
                not data.merged
                and repo.git.is_ancestor(sha, data.head_sha)
                and not repo.git.is_ancestor(sha, data.base_sha)
            )
        except GitError:
            in_head = False
        if in_head or data.merge_commit_sha == sha:
            found.append(pull_view(ctx, repo, issue))
    page, links = paginate(ctx.request, found)
    return Response(body=page, headers=links)
