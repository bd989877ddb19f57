"""Which handler serves which GitHub event: a table of ``(event, action)`` like gidgethub's ``routing.Router``.

The command line (``gauntlet run --event-name``) and the Action route by this one table.

An event with no row is reported as ignored (never an error): a workflow may
trigger Gauntlet on more events than it acts on.

| event | action | handler |
|---|---|---|
| ``pull_request`` (and ``pull_request_target``) | opened, synchronize, reopened, ready_for_review | ``iteration`` |
| ``pull_request`` | closed | ``close_pr``: compact that PR's record |
| ``push`` | (any) | ``iteration`` on the branch; a deleted branch or tag (``after`` all zeros): ignored |
| ``workflow_run`` | completed | ``iteration`` (the PR from the payload, else ``commits/{sha}/pulls``) |
| ``merge_group`` | checks_requested | ``iteration`` on the group's head, judged against the queue's base branch |
| ``pull_request_review`` | submitted, edited, dismissed | ``iteration`` on the PR's head: its review findings again |
| ``pull_request_review_comment`` | created, edited, deleted | ``iteration`` on the PR's head, the same way |
| ``issue_comment`` | created | ``comment``: ``/gauntlet`` commands |
| ``schedule``, ``workflow_dispatch`` | (any) | ``scan`` |
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from gauntlet.observe.payload import Delivery

__all__ = ["DELETED_SHA", "ROUTES", "Route", "deletes_its_ref", "route", "route_of"]

Route = Literal["iteration", "close_pr", "comment", "scan"]

#: ``(event, action)``; an action of ``None`` matches every action of the event.
ROUTES: dict[tuple[str, str | None], Route] = {
    ("pull_request", "opened"): "iteration",
    ("pull_request", "synchronize"): "iteration",
    ("pull_request", "reopened"): "iteration",
    ("pull_request", "ready_for_review"): "iteration",
    ("pull_request", "closed"): "close_pr",
    ("pull_request_target", "opened"): "iteration",
    ("pull_request_target", "synchronize"): "iteration",
    ("pull_request_target", "reopened"): "iteration",
    ("pull_request_target", "closed"): "close_pr",
    ("push", None): "iteration",
    ("workflow_run", "completed"): "iteration",
    ("merge_group", "checks_requested"): "iteration",
    ("pull_request_review", "submitted"): "iteration",
    ("pull_request_review", "edited"): "iteration",
    ("pull_request_review", "dismissed"): "iteration",
    ("pull_request_review_comment", "created"): "iteration",
    ("pull_request_review_comment", "edited"): "iteration",
    ("pull_request_review_comment", "deleted"): "iteration",
    ("issue_comment", "created"): "comment",
    ("schedule", None): "scan",
    ("workflow_dispatch", None): "scan",
}


def route(event: str | None, action: str | None) -> Route | None:
    """The handler for ``event`` and its payload's ``action``; ``None`` when the event is ignored.

    A ``pull_request`` delivered without an action (a CI step running on the PR's
    workflow, with a hand-made payload) is an iteration.
    """
    if event is None:
        return None
    if (event, action) in ROUTES:
        return ROUTES[(event, action)]
    if (event, None) in ROUTES:
        return ROUTES[(event, None)]
    if action is None and event in ("pull_request", "pull_request_target"):
        return "iteration"
    return None


#: The SHA GitHub gives a ref that no longer exists (``after`` of a push that deleted a branch or tag).
DELETED_SHA = "0" * 40


def deletes_its_ref(delivery: Delivery) -> bool:
    """True for a push that deleted its branch or tag: there is no commit to check, nothing to plan."""
    data = delivery.data
    return delivery.name == "push" and (data.get("deleted") is True or data.get("after") == DELETED_SHA)


def route_of(delivery: Delivery) -> Route | None:
    """The handler for a delivered event: the one table the command line and the Action both route by.

    A push that deleted its ref routes nowhere (it is reported as ignored).
    """
    if deletes_its_ref(delivery):
        return None
    return route(delivery.name, delivery.action)
