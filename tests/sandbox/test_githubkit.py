"""githubkit, with pydantic models of API version 2022-11-28, as an independent second client.

githubkit parses each response into the model GitHub's own description generates, so any missing or mistyped
field fails here even where PyGithub would quietly read ``None``.
"""

from __future__ import annotations

from typing import Any

from githubkit import GitHub

from gauntlet.sandbox import JobSeed, Sandbox

API = "2022-11-28"


def test_repos_git_data_and_contents(sandbox: Sandbox, kit: GitHub[Any], repo_name: str) -> None:
    rest = kit.rest(API)
    assert rest.users.get_authenticated().parsed_data.login == "octo"
    assert rest.users.get_by_username("github-actions[bot]").parsed_data.type == "Bot"
    assert rest.rate_limit.get().parsed_data.resources.core.limit == 5000
    repo = rest.repos.get("octo", "app").parsed_data
    assert repo.default_branch == "main" and repo.permissions is not None and repo.permissions.admin
    created = rest.repos.create_for_authenticated_user(name="other", auto_init=True).parsed_data
    assert created.full_name == "octo/other"
    assert rest.repos.create_in_org("acme", name="svc").parsed_data.owner.login == "acme"
    assert [b.name for b in rest.repos.list_branches("octo", "app").parsed_data] == ["main"]
    assert rest.repos.get_branch("octo", "app", "main").parsed_data.commit.sha == sandbox.head(repo_name)

    head = rest.git.get_ref("octo", "app", "heads/main").parsed_data.object_.sha
    base_tree = rest.git.get_commit("octo", "app", head).parsed_data.tree.sha
    blob = rest.git.create_blob("octo", "app", content="aGk=", encoding="base64").parsed_data
    assert rest.git.get_blob("octo", "app", blob.sha).parsed_data.content == "aGk="
    tree = rest.git.create_tree(
        "octo",
        "app",
        base_tree=base_tree,
        tree=[
            {"path": "k.txt", "mode": "100644", "type": "blob", "content": "k"},
            {"path": "README.md", "mode": "100644", "type": "blob", "sha": None},
        ],
    ).parsed_data
    assert "README.md" not in [e.path for e in rest.git.get_tree("octo", "app", tree.sha).parsed_data.tree]
    commit = rest.git.create_commit("octo", "app", message="kit", tree=tree.sha, parents=[head]).parsed_data
    rest.git.create_ref("octo", "app", ref="refs/heads/kit", sha=commit.sha)
    rest.git.update_ref("octo", "app", "heads/kit", sha=commit.sha, force=False)
    assert [r.ref for r in rest.git.list_matching_refs("octo", "app", "heads/kit").parsed_data] == ["refs/heads/kit"]

    put = rest.repos.create_or_update_file_contents(
        "octo", "app", "docs/x.md", message="add", content="eAo=", branch="kit"
    ).parsed_data
    assert put.content is not None and put.content.sha
    got = rest.repos.get_content("octo", "app", "docs/x.md", ref="kit").parsed_data
    assert getattr(got, "content", "").strip() == "eAo="
    rest.repos.delete_file("octo", "app", "docs/x.md", message="rm", sha=put.content.sha, branch="kit")
    one = rest.repos.get_commit("octo", "app", "kit").parsed_data
    assert one.files is not None and [f.filename for f in one.files] == ["docs/x.md"]
    assert rest.repos.compare_commits("octo", "app", "main...kit").parsed_data.ahead_by == 3
    assert len(rest.repos.list_commits("octo", "app", sha="kit").parsed_data) == 4
    rest.git.delete_ref("octo", "app", "heads/kit")


def test_issues_pulls_checks_actions(sandbox: Sandbox, kit: GitHub[Any], repo_name: str) -> None:
    rest = kit.rest(API)
    rest.issues.create_label("octo", "app", name="bug", color="ff0000")
    assert rest.issues.get_label("octo", "app", "bug").parsed_data.color == "ff0000"
    assert [x.name for x in rest.issues.list_labels_for_repo("octo", "app").parsed_data] == ["bug"]
    issue = rest.issues.create("octo", "app", title="t", body="b", labels=["bug"]).parsed_data
    rest.issues.add_assignees("octo", "app", issue.number, assignees=["octo"])
    rest.issues.add_labels("octo", "app", issue.number, labels=["more"])
    rest.issues.remove_label("octo", "app", issue.number, "more")
    assert [x.name for x in rest.issues.list_labels_on_issue("octo", "app", issue.number).parsed_data] == ["bug"]
    comment = rest.issues.create_comment("octo", "app", issue.number, body="c").parsed_data
    rest.issues.update_comment("octo", "app", comment.id, body="c2")
    assert rest.issues.get_comment("octo", "app", comment.id).parsed_data.body == "c2"
    rest.reactions.create_for_issue_comment("octo", "app", comment.id, content="+1")
    rest.reactions.create_for_issue("octo", "app", issue.number, content="heart")
    assert len(rest.reactions.list_for_issue_comment("octo", "app", comment.id).parsed_data) == 1
    assert len(rest.reactions.list_for_issue("octo", "app", issue.number).parsed_data) == 1
    assert len(rest.issues.list_comments("octo", "app", issue.number).parsed_data) == 1
    rest.issues.delete_comment("octo", "app", comment.id)
    rest.issues.update("octo", "app", issue.number, state="closed", state_reason="not_planned")
    assert rest.issues.get("octo", "app", issue.number).parsed_data.state == "closed"
    assert [i.number for i in rest.issues.list_for_repo("octo", "app", state="all").parsed_data] == [issue.number]

    sandbox.commit(repo_name, {"f.py": "x = 1\n"}, "F", branch="feat")
    pull = rest.pulls.create("octo", "app", title="F", head="feat", base="main").parsed_data
    assert rest.pulls.get("octo", "app", pull.number).parsed_data.mergeable
    assert [p.number for p in rest.pulls.list("octo", "app", head="octo:feat").parsed_data] == [pull.number]
    assert [f.filename for f in rest.pulls.list_files("octo", "app", pull.number).parsed_data] == ["f.py"]
    assert len(rest.pulls.list_commits("octo", "app", pull.number).parsed_data) == 1
    assert [
        p.number for p in rest.repos.list_pull_requests_associated_with_commit("octo", "app", pull.head.sha).parsed_data
    ] == [pull.number]
    rest.pulls.create_review("octo", "app", pull.number, body="ok", event="COMMENT")
    rest.pulls.create_review_comment(
        "octo", "app", pull.number, body="nit", commit_id=pull.head.sha, path="f.py", line=1
    )
    assert [r.state for r in rest.pulls.list_reviews("octo", "app", pull.number).parsed_data] == ["COMMENTED"]
    assert len(rest.pulls.list_review_comments("octo", "app", pull.number).parsed_data) == 1
    rest.pulls.update("octo", "app", pull.number, title="F2")
    merged = rest.pulls.merge("octo", "app", pull.number, merge_method="squash").parsed_data
    assert merged.merged and len(rest.git.get_commit("octo", "app", merged.sha).parsed_data.parents) == 1

    check = rest.checks.create(
        "octo",
        "app",
        name="gauntlet",
        head_sha=merged.sha,
        status="completed",
        conclusion="success",
        output={
            "title": "t",
            "summary": "s",
            "annotations": [
                {"path": "f.py", "start_line": 1, "end_line": 1, "annotation_level": "warning", "message": "m"}
            ],
        },
    ).parsed_data
    rest.checks.update("octo", "app", check.id, conclusion="neutral")
    assert rest.checks.get("octo", "app", check.id).parsed_data.conclusion == "neutral"
    assert len(rest.checks.list_annotations("octo", "app", check.id).parsed_data) == 1
    assert rest.checks.list_for_ref("octo", "app", merged.sha).parsed_data.total_count == 1
    rest.repos.create_commit_status("octo", "app", merged.sha, state="success", context="ci")
    assert rest.repos.get_combined_status_for_ref("octo", "app", merged.sha).parsed_data.state == "success"
    assert len(rest.repos.list_commit_statuses_for_ref("octo", "app", merged.sha).parsed_data) == 1

    run = sandbox.seed_run(
        repo_name, jobs=[JobSeed(name="t", conclusion="failure", log="boom\n")], artifacts={"a": {"x": b"y"}}
    )
    assert rest.actions.list_workflow_runs_for_repo("octo", "app").parsed_data.total_count == 1
    assert rest.actions.get_workflow_run("octo", "app", run.id).parsed_data.conclusion == "failure"
    (job,) = rest.actions.list_jobs_for_workflow_run("octo", "app", run.id).parsed_data.jobs
    assert rest.actions.get_job_for_workflow_run("octo", "app", job.id).parsed_data.name == "t"
    assert rest.actions.download_job_logs_for_workflow_run("octo", "app", job.id).text == "boom\n"
    (artifact,) = rest.actions.list_workflow_run_artifacts("octo", "app", run.id).parsed_data.artifacts
    assert rest.actions.download_artifact("octo", "app", artifact.id, "zip").content[:2] == b"PK"
    rest.actions.re_run_workflow_failed_jobs("octo", "app", run.id)
    rest.repos.add_collaborator("octo", "app", "helper", permission="triage")
    perm = rest.repos.get_collaborator_permission_level("octo", "app", "helper").parsed_data
    assert (perm.permission, perm.role_name) == ("read", "triage")


def test_default_http_cache_never_serves_stale_answers(sandbox: Sandbox, repo_name: str) -> None:
    with GitHub("octo", base_url=sandbox.url, auto_retry=False) as cached:  # hishel's cache is on by default
        rest = cached.rest(API)
        number = rest.issues.create("octo", "app", title="before").parsed_data.number
        assert rest.issues.get("octo", "app", number).parsed_data.title == "before"
        rest.issues.update("octo", "app", number, title="after")
        assert rest.issues.get("octo", "app", number).parsed_data.title == "after"
