"""Finding an earlier result on the sandbox: the indexed item first, else the listing, page by page, and only
items Gauntlet's own identity wrote count (DESIGN §5)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from gauntlet.github.client import GitHubClient
from gauntlet.github.hub import PAGE_SIZE, Hub, find_earlier, is_ours, marker_keys, paged
from gauntlet.sandbox import Sandbox
from gauntlet.vocabulary import marker_text

REPO = "octo/app"
BOT = "github-actions[bot]"
KEY = "pr-comment:1"


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    with Sandbox.start() as running:
        running.create_repo(REPO, {"README.md": "# app\n"})
        running.set_permission(REPO, BOT, "write")
        running.set_permission(REPO, "mallory", "write")
        yield running


def _hub(sandbox: Sandbox) -> Hub:
    client = GitHubClient(BOT, sandbox.url, throttle=False)
    return Hub(client=client, repo=client.repo(REPO), bot_login=BOT)


def _comment(sandbox: Sandbox, login: str, body: str) -> int:
    issue = sandbox.pygithub(login).get_repo(REPO).get_issue(1)
    return int(issue.create_comment(body).id)


def _find(hub: Hub, known: int | None) -> tuple[dict[str, Any], bool] | None:
    return find_earlier(
        hub,
        None if known is None else f"/repos/{REPO}/issues/comments/{known}",
        (f"/repos/{REPO}/issues/1/comments", {}),
        lambda item: is_ours(item["user"]["login"], BOT) and KEY in marker_keys(item["body"]),
    )


def test_the_indexed_item_is_read_first_and_a_marker_someone_else_typed_never_counts(sandbox: Sandbox) -> None:
    sandbox.pygithub("octo").get_repo(REPO).create_issue(title="x")
    forged = _comment(sandbox, "mallory", f"mine {marker_text(KEY)}")
    ours = _comment(sandbox, BOT, f"report {marker_text(KEY)}")
    hub = _hub(sandbox)
    found = _find(hub, ours)
    assert found is not None and found[0]["id"] == ours and found[1] is False
    # The index naming someone else's comment falls through to the listing, which skips it too.
    found = _find(hub, forged)
    assert found is not None and found[0]["id"] == ours and found[1] is True
    assert _find(hub, None) == found


def test_a_deleted_indexed_item_falls_through_and_nothing_found_is_none(sandbox: Sandbox) -> None:
    sandbox.pygithub("octo").get_repo(REPO).create_issue(title="x")
    gone = _comment(sandbox, BOT, f"report {marker_text(KEY)}")
    sandbox.pygithub(BOT).get_repo(REPO).get_issue(1).get_comment(gone).delete()
    assert _find(_hub(sandbox), gone) is None


def test_a_listing_ends_at_its_first_short_page(sandbox: Sandbox) -> None:
    repo = sandbox.pygithub("octo").get_repo(REPO)
    for i in range(3):
        repo.create_issue(title=f"issue {i}")
    hub = _hub(sandbox)
    before = len(sandbox.requests())
    assert [item["title"] for item in paged(hub, f"/repos/{REPO}/issues", {"state": "all"})] == [
        "issue 2",
        "issue 1",
        "issue 0",
    ]
    [listing] = sandbox.requests()[before:]
    assert f"per_page={PAGE_SIZE}" in listing["query"] and "page=1" in listing["query"]
