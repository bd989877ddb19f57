"""What a branch's ruleset rules say about the merge queue: whether it has one, and which checks it requires.

GitHub gives the active rules of a branch in GraphQL as ``Ref.rules`` (``type`` in upper case, ``parameters`` a
union: https://docs.github.com/graphql/reference/objects#repositoryrule) and by REST at ``GET rules/branches/
{branch}`` (``type`` in lower case, ``parameters.required_status_checks[].context``:
https://docs.github.com/rest/repos/rules#get-rules-for-a-branch). The start query reads the first (``start.py``);
both are read here by the same code, and read leniently: an answer of another shape (a rule type or a field
this code does not know, a value of the wrong type) is skipped, never an error, since the rules only decide
whether to warn.

Rules of classic branch protection are not rules of a ruleset: they are readable only with admin rights
(``GET branches/{branch}/protection``), so a queue set up there is not seen.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["BranchRules", "from_graphql", "from_rest"]

#: At most this many rules are read (a page of either API); a longer list is read as far as that.
MAX_RULES = 100


@dataclass(frozen=True)
class BranchRules:
    """A branch's rules, as far as the merge queue goes.

    :param merge_queue: a ``merge_queue`` rule applies to the branch.
    :param required: the contexts of its required status checks (a check run's name is its context).
    """

    merge_queue: bool
    required: frozenset[str]


def from_graphql(connection: Any) -> BranchRules | None:
    """The rules from ``Ref.rules`` (``{nodes: [{type, parameters {requiredStatusChecks {context}}}]}``).

    :returns: ``None`` when the answer is no list of rules at all (the field missing, null or of another shape).
    """
    nodes = connection.get("nodes") if isinstance(connection, dict) else None
    if not isinstance(nodes, list):
        return None
    return _rules(_pair(node, "type", "parameters", "requiredStatusChecks") for node in nodes[:MAX_RULES])


def from_rest(items: Any) -> BranchRules | None:
    """The rules from ``GET rules/branches/{branch}`` (``[{type, parameters {required_status_checks}}]``).

    :returns: ``None`` when the answer is not a list.
    """
    if not isinstance(items, list):
        return None
    return _rules(_pair(item, "type", "parameters", "required_status_checks") for item in items[:MAX_RULES])


def _pair(rule: Any, kind: str, parameters: str, checks: str) -> tuple[str, list[Any]]:
    """A rule's type (lower case; ``""`` when absent) and its required checks (``[]`` when absent)."""
    if not isinstance(rule, dict):
        return "", []
    found = rule.get(kind)
    params = rule.get(parameters)
    listed = params.get(checks) if isinstance(params, dict) else None
    return (found.lower() if isinstance(found, str) else ""), (listed if isinstance(listed, list) else [])


def _rules(pairs: Iterable[tuple[str, list[Any]]]) -> BranchRules:
    queue = False
    required: set[str] = set()
    for kind, checks in pairs:
        queue = queue or kind == "merge_queue"
        if kind == "required_status_checks":
            required.update(c["context"] for c in checks if isinstance(c, dict) and isinstance(c.get("context"), str))
    return BranchRules(merge_queue=queue, required=frozenset(required))
