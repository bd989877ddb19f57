"""Event payloads -> EventFacts: what each event says, and untrusted payloads refused clearly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gauntlet.errors import InputError
from gauntlet.models import EventFacts
from gauntlet.observe.payload import Delivery, event_facts, read_delivery


def facts(name: str, payload: object) -> EventFacts:
    return event_facts(Delivery.of(name, json.dumps(payload).encode()))


def test_a_pull_request_names_its_number_head_base_and_author() -> None:
    got = facts(
        "pull_request",
        {
            "action": "synchronize",
            "number": 7,
            "pull_request": {
                "number": 7,
                "user": {"login": "pat"},
                "head": {"sha": "h", "ref": "topic"},
                "base": {"sha": "b"},
            },
            "repository": {"full_name": "o/r", "default_branch": "trunk"},
        },
    )
    assert (got.event, got.action, got.pr, got.pr_author, got.head_sha, got.base_sha, got.branch) == (
        "pull_request",
        "synchronize",
        7,
        "pat",
        "h",
        "b",
        "topic",
    )
    assert (got.repository, got.default_branch) == ("o/r", "trunk")


def test_a_push_names_its_branch_and_commits() -> None:
    got = facts("push", {"ref": "refs/heads/main", "after": "a1", "before": "b1"})
    assert (got.branch, got.head_sha, got.base_sha, got.pr) == ("main", "a1", "b1", None)


def test_a_workflow_run_names_the_run_it_reports_on() -> None:
    run = {"id": 42, "run_attempt": 2, "head_sha": "s", "head_branch": "topic", "name": "CI"}
    run["pull_requests"] = [{"number": 3}]
    got = facts("workflow_run", {"action": "completed", "workflow_run": run})
    assert (got.run_id, got.run_attempt, got.head_sha, got.pr, got.workflow) == ("42", "2", "s", 3, "CI")


def test_a_workflow_run_says_what_started_it_and_how_it_ended_or_nothing() -> None:
    run = {"id": 42, "head_sha": "s", "head_branch": "main", "event": "push", "conclusion": "success"}
    got = facts("workflow_run", {"action": "completed", "workflow_run": run})
    assert (got.trigger, got.conclusion) == ("push", "success")
    odd = facts("workflow_run", {"action": "completed", "workflow_run": {**run, "event": 5, "conclusion": ["x"]}})
    assert (odd.trigger, odd.conclusion) == (None, None)


def test_an_unnamed_event_with_a_payload_is_a_pull_request() -> None:
    assert event_facts(Delivery.of(None, b'{"pull_request": {"number": 1}}')).pr == 1


@pytest.mark.parametrize(
    "payload",
    [
        {"pull_request": {"number": "7"}},
        {"pull_request": {"number": True}},
        {"pull_request": {"head": {"sha": 5}}},
        {"pull_request": {"user": {"login": ["x"]}}},
    ],
)
def test_wrong_types_are_input_errors(payload: object) -> None:
    with pytest.raises(InputError, match="unexpected types"):
        facts("pull_request", payload)


def test_an_unreadable_event_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read the event payload"):
        read_delivery("push", tmp_path / "missing.json")
    assert read_delivery("push", None).data == {}
