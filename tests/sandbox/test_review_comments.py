"""Review comments through PyGithub: replies, edits, deletes, outdated after a push, dismissed reviews."""

from __future__ import annotations

from collections.abc import Callable

import github
import pytest

from gauntlet.sandbox import Sandbox
from gauntlet.sandbox.anchors import diff_positions, follow_line

APP = "def main():\n    return 1\n"


def _pull(sandbox: Sandbox, gh: github.Github, repo_name: str) -> github.PullRequest.PullRequest:
    changed = "import os\n\ndef main():\n    return os.environ['X']\n\n\ndef helper():\n    return 2\n"
    sandbox.commit(repo_name, {"src/app.py": changed}, "Read X", branch="feature")
    return gh.get_repo(repo_name).create_pull(title="Read X", body="", base="main", head="feature")


def test_positions_count_lines_below_the_first_hunk_header() -> None:
    patch = "@@ -1,2 +1,3 @@\n a\n-b\n+c\n+d\n@@ -10,1 +11,1 @@\n-x\n+y"
    assert diff_positions(patch) == {1: 1, 2: 3, 3: 4, 11: 7}
    assert follow_line("a\nb\nc\n", "new\na\nb\nc\n", 2) == 3
    assert follow_line("a\nb\nc\n", "a\nB\nc\n", 2) is None


def test_reply_edit_delete_and_outdated(
    sandbox: Sandbox, gh: github.Github, client: Callable[..., github.Github], repo_name: str
) -> None:
    pull = _pull(sandbox, gh, repo_name)
    sandbox.set_permission(repo_name, "reviewer", "write")
    reviewer = client("reviewer").get_repo(repo_name).get_pull(pull.number)
    head = gh.get_repo(repo_name).get_commit(pull.head.sha)
    crash = reviewer.create_review_comment("issue: crashes when X is unset", head, "src/app.py", line=4)
    keep = reviewer.create_review_comment("nit: name it read_x", head, "src/app.py", line=7)
    assert (crash.line, crash.original_line, crash.position, crash.user.type) == (4, 4, 5, "User")
    assert crash.diff_hunk.startswith("@@") and crash.diff_hunk.endswith("return os.environ['X']")
    assert crash.raw_data["author_association"] == "COLLABORATOR"
    with pytest.raises(github.GithubException) as off_diff:
        reviewer.create_review_comment("not in the diff", head, "README.md", line=1)
    assert off_diff.value.status == 422

    reply = pull.create_review_comment_reply(crash.id, "fixed")
    assert reply.in_reply_to_id == crash.id and reply.path == "src/app.py"
    again = pull.create_review_comment_reply(reply.id, "really")  # a reply to a reply joins the thread
    assert again.in_reply_to_id == crash.id

    crash.edit("issue (blocking): crashes when X is unset")
    assert gh.get_repo(repo_name).get_pull(pull.number).get_review_comment(crash.id).body.startswith("issue (blocking)")
    with pytest.raises(github.GithubException) as stranger:
        client("stranger").get_repo(repo_name).get_pull(pull.number).get_review_comment(keep.id).delete()
    assert stranger.value.status == 403

    fixed = "import os\n\ndef main():\n    return os.environ.get('X', '')\n\n\ndef helper():\n    return 2\n"
    sandbox.commit(repo_name, {"src/app.py": fixed}, "Default X", branch="feature")
    by_id = {c.id: c for c in gh.get_repo(repo_name).get_pull(pull.number).get_review_comments()}
    outdated, current = by_id[crash.id], by_id[keep.id]
    assert (outdated.position, outdated.line, outdated.original_line) == (None, None, 4)
    assert outdated.original_commit_id == outdated.commit_id == head.sha
    assert (current.position, current.line, current.commit_id) == (8, 7, sandbox.head(repo_name, "feature"))

    keep.delete()
    assert keep.id not in {c.id for c in pull.get_review_comments()}
    with pytest.raises(github.GithubException) as gone:
        pull.get_review_comment(keep.id)
    assert gone.value.status == 404


def test_dismissed_review_and_bot_author(
    sandbox: Sandbox, gh: github.Github, client: Callable[..., github.Github], repo_name: str
) -> None:
    pull = _pull(sandbox, gh, repo_name)
    sandbox.set_permission(repo_name, "reviewer", "write")
    sandbox.set_permission(repo_name, "coderabbitai[bot]", "write")
    reviewer = client("reviewer").get_repo(repo_name).get_pull(pull.number)
    review = reviewer.create_review(body="please handle X", event="REQUEST_CHANGES")
    commented = reviewer.create_review(body="one more thing", event="COMMENT")
    bot = client("coderabbitai[bot]").get_repo(repo_name).get_pull(pull.number)
    bot_review = bot.create_review(
        body="**Actionable comments posted: 1**",
        event="COMMENT",
        comments=[{"path": "src/app.py", "position": 5, "body": "_⚠️ Potential issue_ | _🟠 Major_\n\nUnset X."}],
    )
    assert bot_review.user.type == "Bot"
    (bot_comment,) = [c for c in pull.get_review_comments() if c.user.login == "coderabbitai[bot]"]
    assert (bot_comment.line, bot_comment.pull_request_review_id) == (4, bot_review.id)
    with pytest.raises(github.GithubException) as not_dismissable:
        commented.dismiss("no")
    assert not_dismissable.value.status == 422
    review.dismiss("addressed in a call")
    states = {r.id: r.state for r in pull.get_reviews()}
    assert states[review.id] == "DISMISSED" and states[commented.id] == "COMMENTED"
