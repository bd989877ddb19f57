"""Configuration on top of the defaults: severity overrides and context flags that raise priority.

Overrides set a severity (up or down: it is the maintainers' call); context flags
only ever raise a priority (DESIGN §4).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase

from gauntlet.classify.components import component_of
from gauntlet.classify.globs import glob_matches
from gauntlet.config import ContextRule, SeverityOverride
from gauntlet.models import SEVERITY_ORDER, Finding, Priority, Severity, evolve

__all__ = ["PRIORITY_RANK", "apply_overrides", "raise_priority"]

#: Lower is more urgent.
PRIORITY_RANK: dict[Priority, int] = {"P0": 0, "P1": 1, "P2": 2}


def apply_overrides(finding: Finding, overrides: Sequence[SeverityOverride]) -> Finding:
    """Return ``finding`` with the severity of the most specific matching override (later wins ties)."""
    chosen: SeverityOverride | None = None
    for override in overrides:
        if _override_matches(override, finding) and (chosen is None or override.specificity >= chosen.specificity):
            chosen = override
    if chosen is None or chosen.severity == finding.severity:
        return finding
    return evolve(finding, severity=chosen.severity)


def raise_priority(
    finding: Finding,
    priority: Priority,
    rules: Sequence[ContextRule],
    components: Mapping[str, Sequence[str]],
    *,
    on_default_branch: bool,
) -> Priority:
    """Return ``priority`` raised by every context rule the finding matches; never lowered."""
    for rule in rules:
        matches = _context_matches(rule, finding, components, on_default_branch=on_default_branch)
        if matches and PRIORITY_RANK[rule.priority] < PRIORITY_RANK[priority]:
            priority = rule.priority
    return priority


def _override_matches(override: SeverityOverride, finding: Finding) -> bool:
    return (
        (override.kind is None or override.kind == finding.kind)
        and (override.source is None or override.source == finding.source)
        and (override.tool is None or override.tool.lower() == (finding.tool or "").lower())
        and (override.rule is None or _rule_matches(override.rule, finding.rule))
        and (override.path is None or (finding.path is not None and glob_matches(override.path, finding.path)))
    )


def _context_matches(
    rule: ContextRule, finding: Finding, components: Mapping[str, Sequence[str]], *, on_default_branch: bool
) -> bool:
    if rule.default_branch_only and not on_default_branch:
        return False
    path = finding.path
    checks = [
        not rule.paths or (path is not None and any(glob_matches(g, path) for g in rule.paths)),
        not rule.components or component_of(path, components) in rule.components,
        not rule.kinds or finding.kind in rule.kinds,
        not rule.tools or (finding.tool or "").lower() in {t.lower() for t in rule.tools},
        not rule.rules or any(_rule_matches(r, finding.rule) for r in rule.rules),
        rule.min_severity is None or _at_least(finding.severity, rule.min_severity),
    ]
    return all(checks)


def _rule_matches(pattern: str, rule: str | None) -> bool:
    return rule is not None and fnmatchcase(rule.lower(), pattern.lower())


def _at_least(severity: Severity, floor: Severity) -> bool:
    return SEVERITY_ORDER[severity] >= SEVERITY_ORDER[floor]
