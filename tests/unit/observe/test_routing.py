"""The (event, action) table: what Gauntlet serves, and what it reports as ignored."""

from __future__ import annotations

import pytest

from gauntlet.errors import InputError
from gauntlet.observe.payload import Delivery, event_facts
from gauntlet.observe.routing import route, route_of


@pytest.mark.parametrize(
    ("event", "action", "expected"),
    [
        ("pull_request", "opened", "iteration"),
        ("pull_request", "synchronize", "iteration"),
        ("pull_request", None, "iteration"),
        ("pull_request", "closed", "close_pr"),
        ("pull_request", "labeled", None),
        ("push", None, "iteration"),
        ("workflow_run", "completed", "iteration"),
        ("workflow_run", "requested", None),
        ("pull_request_review", "submitted", "iteration"),
        ("pull_request_review", "dismissed", "iteration"),
        ("pull_request_review_comment", "deleted", "iteration"),
        ("pull_request_review_comment", "edited", "iteration"),
        ("issue_comment", "created", "comment"),
        ("issue_comment", "edited", None),
        ("schedule", None, "scan"),
        ("workflow_dispatch", None, "scan"),
        ("release", "published", None),
        (None, None, None),
    ],
)
def test_routes(event: str | None, action: str | None, expected: str | None) -> None:
    assert route(event, action) == expected


def test_the_action_of_an_untrusted_payload() -> None:
    assert Delivery.of("pull_request", b'{"action": "closed"}').action == "closed"
    assert Delivery.of("pull_request", b'{"action": 3}').action is None
    assert Delivery.of("pull_request", b"[1, 2]").action is None
    assert Delivery.of("pull_request", b"not json").action is None


def test_a_payload_holding_lone_surrogates_decodes_to_encodable_text() -> None:
    delivery = Delivery.of("issue_comment", b'{"action": "created", "comment": {"body": "hi \\ud800 \\udfff"}}')
    body = delivery.data["comment"]["body"]
    assert body == "hi \ufffd \ufffd"
    body.encode("utf-8")  # a reply quoting it can be posted


def test_an_ignored_event_is_ignored_whatever_its_payload() -> None:
    assert route_of(Delivery.of("release", b"not json")) is None


def test_a_bad_payload_is_an_error_once_read() -> None:
    with pytest.raises(InputError, match="not valid JSON"):
        event_facts(Delivery.of("push", b"not json"))
