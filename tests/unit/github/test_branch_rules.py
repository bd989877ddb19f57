"""``github/branch_rules.py``: the rules of both APIs read alike, and any other shape leniently."""

from __future__ import annotations

from typing import Any

import pytest

from gauntlet.github.branch_rules import MAX_RULES, BranchRules, from_graphql, from_rest

NONE = BranchRules(merge_queue=False, required=frozenset())


def test_graphql_and_rest_read_alike() -> None:
    graph = {
        "nodes": [
            {"type": "MERGE_QUEUE", "parameters": {"__typename": "MergeQueueParameters"}},
            {"type": "REQUIRED_STATUS_CHECKS", "parameters": {"requiredStatusChecks": [{"context": "Gauntlet"}]}},
        ]
    }
    rest = [
        {"type": "merge_queue", "parameters": {"merge_method": "MERGE"}},
        {"type": "required_status_checks", "parameters": {"required_status_checks": [{"context": "Gauntlet"}]}},
    ]
    expected = BranchRules(merge_queue=True, required=frozenset({"Gauntlet"}))
    assert from_graphql(graph) == from_rest(rest) == expected


@pytest.mark.parametrize("answer", [None, [], "rules", {"nodes": None}, {"nodes": "x"}, {"edges": []}])
def test_no_list_of_rules_is_not_known(answer: Any) -> None:
    assert from_graphql(answer) is None


@pytest.mark.parametrize(
    "nodes",
    [
        [None, 1, "MERGE_QUEUE", []],
        [{"type": None}, {"type": 5, "parameters": {"requiredStatusChecks": [{"context": "Gauntlet"}]}}],
        [{"type": "REQUIRED_STATUS_CHECKS", "parameters": None}],
        [{"type": "REQUIRED_STATUS_CHECKS", "parameters": {"requiredStatusChecks": "Gauntlet"}}],
        [{"type": "REQUIRED_STATUS_CHECKS", "parameters": {"requiredStatusChecks": [None, {"context": 1}, "x"]}}],
        [{"type": "SOMETHING_NEW", "parameters": {"requiredStatusChecks": [{"context": "Gauntlet"}]}}],
    ],
)
def test_rules_of_other_shapes_are_skipped(nodes: list[Any]) -> None:
    assert from_graphql({"nodes": nodes}) == NONE


def test_at_most_one_page_of_rules_is_read() -> None:
    rest = [{"type": "deletion"}] * MAX_RULES + [{"type": "merge_queue"}]
    assert from_rest(rest) == NONE
    assert from_rest("not a list") is None
