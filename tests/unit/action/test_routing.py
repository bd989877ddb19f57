"""The (event, action) table: what Gauntlet serves, and what it reports as ignored."""

from __future__ import annotations

import pytest

from gauntlet.action.routing import payload_action, route


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


def test_payload_action_reads_untrusted_json() -> None:
    assert payload_action(b'{"action": "closed"}') == "closed"
    assert payload_action(b'{"action": 3}') is None
    assert payload_action(b"[1, 2]") is None
    assert payload_action(b"not json") is None
