"""The contract words: markers, ``v1/`` state paths and labels (DESIGN §4, §5)."""

from __future__ import annotations

import pytest

from gauntlet.vocabulary import (
    MARKER_PATTERN,
    branch_path,
    branch_slug,
    event_part_path,
    issue_labels,
    marker_text,
    pr_path,
)


@pytest.mark.parametrize("key", ["pr-comment:12", "risk:ab12cd", "revert:0123456789ab", "proposal:SH-1"])
def test_every_marker_gauntlet_writes_is_one_the_pattern_finds(key: str) -> None:
    marker = marker_text(key)
    assert marker == f"<!-- gauntlet:key={key} -->"
    found = MARKER_PATTERN.search(f"Some report\n\n{marker}\n")
    assert found is not None and found.group() == marker


@pytest.mark.parametrize(
    "body",
    [
        "<!-- gauntlet:key= -->",
        "<!-- gauntlet:key=pr-comment:1 x -->",
        "<!-- gauntlet:key=pr-comment:1",
        "gauntlet:key=risk:1",
    ],
)
def test_a_broken_marker_is_not_a_marker(body: str) -> None:
    assert MARKER_PATTERN.search(body) is None


@pytest.mark.parametrize(
    ("name", "slug"),
    [("main", "main"), ("release/2.x", "release--2.x"), ("feat/ü", "feat--%C3%BC"), ("a b", "a%20b")],
)
def test_branch_slugs_follow_the_contract(name: str, slug: str) -> None:
    assert branch_slug(name) == slug


def test_state_paths_follow_the_contract() -> None:
    assert pr_path(7) == "v1/prs/7.json"
    assert branch_path("release/2.x") == "v1/branches/release--2.x.json"
    # A branch name cannot climb out of v1/branches/.
    assert branch_path("../../x") == "v1/branches/..--..--x.json"
    assert event_part_path("2026-11", 3) == "v1/events/2026-11.3.jsonl"


def test_labels_are_the_bot_label_the_kind_and_the_severity_once() -> None:
    assert issue_labels("risk", "Major", ("gauntlet", "accepted-risk", "major", "security")) == (
        "gauntlet",
        "accepted-risk",
        "severity:major",
        "security",
    )
    assert issue_labels("needs-human", None) == ("gauntlet", "needs-human")
