"""The event payloads GitHub would deliver to the action for each step of the demo (the fields Gauntlet reads).

See https://docs.github.com/webhooks/webhook-events-and-payloads
"""

from __future__ import annotations

from typing import Any

from github.IssueComment import IssueComment
from github.PullRequest import PullRequest
from github.WorkflowRun import WorkflowRun

__all__ = ["comment_event", "pull_request_event", "schedule_event", "workflow_run_event"]


def _repository(full_name: str) -> dict[str, Any]:
    return {"full_name": full_name, "default_branch": "main"}


def pull_request_event(pull: PullRequest, action: str) -> dict[str, Any]:
    """``pull_request`` with ``action`` (``opened``, ``synchronize``) for the PR as it is now."""
    return {
        "action": action,
        "number": pull.number,
        "pull_request": pull.raw_data,
        "repository": _repository(pull.base.repo.full_name),
    }


def workflow_run_event(run: WorkflowRun, full_name: str) -> dict[str, Any]:
    """``workflow_run`` ``completed`` for a CI run."""
    return {"action": "completed", "workflow_run": run.raw_data, "repository": _repository(full_name)}


def comment_event(comment: IssueComment, pull: PullRequest) -> dict[str, Any]:
    """``issue_comment`` ``created`` for a comment on a PR (GitHub sends the PR as an issue)."""
    issue = pull.as_issue()
    return {
        "action": "created",
        "comment": comment.raw_data,
        "issue": issue.raw_data,
        "repository": _repository(pull.base.repo.full_name),
    }


def schedule_event(full_name: str, cron: str = "17 3 * * *") -> dict[str, Any]:
    """``schedule``: the nightly run."""
    return {"schedule": cron, "repository": _repository(full_name)}
