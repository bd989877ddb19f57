"""The query a run starts with (``github/start.py``), as the Action asks it: what the run's event needs read.

A run with a record of its own on the state branch (a PR's, or a branch run's) sends it; a merge queue run and the
scan have none and read by REST. What it asks for depends on the event: the default branch's record and the PR's
review threads for a PR run, the effect index and Gauntlet's issues for a command, the known-failure issues for a
CI run, and the default branch's rules (with, maybe, a workflow file there) when the merge queue check
(``action/queue_setup.py``) needs them.
"""

from __future__ import annotations

from gauntlet.action.inputs import ActionSettings
from gauntlet.action.queue_setup import QueueCheck
from gauntlet.github.gitstore import BranchStore
from gauntlet.github.start import Start, read_start
from gauntlet.known import KNOWN_LABEL
from gauntlet.observe.github_facts import pr_unknown
from gauntlet.observe.payload import Delivery, event_facts
from gauntlet.observe.routing import Route
from gauntlet.state.store import StateStore
from gauntlet.vocabulary import BOT_LABEL, SHARED_FILES, branch_path, pr_path

__all__ = ["begin"]


def begin(
    store: StateStore, handler: Route, delivery: Delivery, settings: ActionSettings, *, queue: QueueCheck
) -> Start | None:
    """Send the start query when the run has a record of its own on the state branch, and preload that record.

    :param queue: what the merge queue check needs read (the rules, maybe a workflow file).
    :returns: the query's answer; ``None`` when not sent (``graphql: false``, no record) or failed: read by REST.
    """
    pr = _pr_of(handler, delivery)
    record = _record_of(handler, delivery, pr)
    start = None
    if isinstance(store, BranchStore) and record is not None:
        if settings.graphql:
            default_branch = event_facts(delivery).default_branch or "main"
            start = _start(
                store,
                handler,
                record,
                pr,
                default_branch=default_branch,
                review_comments=settings.run.review_comments,
                # An Enterprise Server may lack Ref.rules, which would fail the whole query: not asked there.
                queue=queue if not settings.api_url.rstrip("/").endswith("/api/v3") else QueueCheck(),
            )
        store.preload(record, start)  # its record's remembered answers make the reads below conditional
    return start


def _pr_of(handler: Route, delivery: Delivery) -> int | None:
    """The PR an iteration or a command is about, as its payload says (``None``: not known before observing)."""
    if handler == "iteration":
        number = event_facts(delivery).pr
    elif handler == "comment":
        issue = delivery.checked().get("issue")
        is_pull = isinstance(issue, dict) and isinstance(issue.get("pull_request"), dict)
        number = issue.get("number") if is_pull and isinstance(issue, dict) else None
    else:
        return None
    return number if isinstance(number, int) and not isinstance(number, bool) and number > 0 else None


def _record_of(handler: Route, delivery: Delivery, pr: int | None) -> str | None:
    """The record the run will write as its own, as its payload says: its PR's, or a branch run's branch's."""
    if pr is not None:
        return pr_path(pr)
    facts = event_facts(delivery)
    if facts.queue_base is not None:
        return None  # a merge queue run writes no record (engine/merge_queue.py)
    default = facts.default_branch or "main"
    branch = facts.branch or default
    unknown = pr_unknown(facts.event, trigger=facts.trigger, branch=facts.branch, default_branch=default)
    return branch_path(branch) if handler == "iteration" and facts.pr is None and not unknown else None


def _start(
    store: BranchStore,
    handler: Route,
    record: str,
    pr: int | None,
    *,
    default_branch: str,
    review_comments: bool,
    queue: QueueCheck,
) -> Start | None:
    """The run's start query (``github/start.py``): the state head and the run's own record, with the default
    branch's record and the PR's review threads (a PR run) or the effect index and the first page of Gauntlet's
    issues too (a command), and the open known-failure issues (a CI run); ``None``: read by REST."""
    command = handler == "comment"
    return read_start(
        store.client,
        store.repository,
        branch=store.branch,
        record=record,
        base=branch_path(default_branch) if pr is not None else None,
        pr=pr if handler == "iteration" and pr is not None and review_comments else None,
        index=SHARED_FILES["index"] if command else None,
        label=BOT_LABEL if command else None,
        known_label=KNOWN_LABEL if handler == "iteration" else None,
        rules=queue.asks and handler == "iteration",
        workflow=queue.remote,
    )
