"""A branch's ruleset rules: one stored list, served by REST and by GraphQL so that the two agree.

GitHub answers "all active rules that apply to the specified branch" at ``GET /repos/{owner}/{repo}/rules/branches/
{branch}`` (https://docs.github.com/rest/repos/rules#get-rules-for-a-branch), each a ``repository-rule-detailed``:
``type`` (``merge_queue``, ``required_status_checks``, ...), ``parameters`` and the ruleset it comes from; and in
GraphQL as ``Ref.rules`` (https://docs.github.com/graphql/reference/objects#repositoryrule): ``type`` in upper case
and ``parameters`` a union (``RequiredStatusChecksParameters { requiredStatusChecks { context integrationId } }``,
``MergeQueueParameters``, ...).

The sandbox keeps each rule as REST's ``{type, parameters}`` (``Repo.rules``, by exact branch name: no patterns),
set by a test or the demo (:func:`gauntlet.sandbox.seed.set_rules`, ``PUT /_sandbox/repos/{owner}/{repo}/rules/
{branch}``). GraphQL's parameters are modelled for the two types above; any other type's are null.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gauntlet.sandbox.store import Repo

__all__ = ["RULE_TYPES", "graph_rule", "normalised", "rest_rules"]

Node = dict[str, Any]  # a GraphQL node, as ``graph/scope.py`` builds them

#: The rule types GitHub's REST description and GraphQL's ``RepositoryRuleType`` both list (upper-cased there).
RULE_TYPES = (
    "creation",
    "update",
    "deletion",
    "required_linear_history",
    "merge_queue",
    "required_deployments",
    "required_signatures",
    "pull_request",
    "required_status_checks",
    "non_fast_forward",
    "commit_message_pattern",
    "commit_author_email_pattern",
    "committer_email_pattern",
    "branch_name_pattern",
    "tag_name_pattern",
    "workflows",
    "code_scanning",
    "file_path_restriction",
    "max_file_path_length",
    "file_extension_restriction",
    "max_file_size",
)

#: What GitHub fills in for a merge queue rule created without settings (its ruleset form's defaults).
MERGE_QUEUE_DEFAULTS: dict[str, Any] = {
    "check_response_timeout_minutes": 60,
    "grouping_strategy": "ALLGREEN",
    "max_entries_to_build": 5,
    "max_entries_to_merge": 5,
    "merge_method": "MERGE",
    "min_entries_to_merge": 1,
    "min_entries_to_merge_wait_minutes": 5,
}


def normalised(rules: Sequence[Mapping[str, Any]]) -> tuple[dict[str, Any], ...]:
    """The rules as stored: REST's shape, with the parameters GitHub always sends filled in.

    :raises ValueError: a rule without a known ``type``, or a ``required_status_checks`` rule whose checks are not
        a list of ``{context, integration_id?}``.
    """
    stored = []
    for rule in rules:
        kind = rule.get("type") if isinstance(rule, Mapping) else None
        if kind not in RULE_TYPES:
            raise ValueError(f"unknown rule type {kind!r}")
        parameters = dict(rule.get("parameters") or {})
        if kind == "merge_queue":
            parameters = {**MERGE_QUEUE_DEFAULTS, **parameters}
        if kind == "required_status_checks":
            checks = parameters.get("required_status_checks", [])
            if not isinstance(checks, list) or not all(
                isinstance(c, Mapping) and isinstance(c.get("context"), str) for c in checks
            ):
                raise ValueError("required_status_checks needs a list of {context, integration_id}")
            parameters = {"strict_required_status_checks_policy": False, **parameters}
        stored.append({"type": kind, "parameters": parameters} if parameters else {"type": kind})
    return tuple(stored)


def rest_rules(repo: Repo, branch: str) -> list[dict[str, Any]]:
    """``GET rules/branches/{branch}``: every rule, with the repository ruleset it comes from."""
    source = {"ruleset_source_type": "Repository", "ruleset_source": repo.full_name, "ruleset_id": repo.id}
    return [{**rule, **source} for rule in repo.rules.get(branch, ())]


def graph_rule(repo: Repo, index: int, rule: Mapping[str, Any]) -> Node:
    """A ``RepositoryRule`` node from the stored rule (its REST view, field by field)."""
    parameters = rule.get("parameters") or {}
    return {
        "id": f"RR_{repo.id}_{index}",
        "type": str(rule["type"]).upper(),
        "parameters": _parameters(str(rule["type"]), parameters),
    }


def _parameters(kind: str, parameters: Mapping[str, Any]) -> Node | None:
    if kind == "required_status_checks":
        checks = [
            {"context": c["context"], "integrationId": c.get("integration_id")}
            for c in parameters.get("required_status_checks", [])
        ]
        return {
            "__typename": "RequiredStatusChecksParameters",
            "requiredStatusChecks": checks,
            "strictRequiredStatusChecksPolicy": bool(parameters.get("strict_required_status_checks_policy")),
            "doNotEnforceOnCreate": bool(parameters.get("do_not_enforce_on_create")),
        }
    if kind == "merge_queue":
        return {"__typename": "MergeQueueParameters", **{_camel(k): v for k, v in parameters.items()}}
    return None


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)
