"""Default severities and priorities (DESIGN §4, contract).

Pure tables: parsers ask for the default severity of a kind when the source
says nothing; :mod:`gauntlet.classify` applies configuration on top.
"""

from __future__ import annotations

from gauntlet.models import SEVERITY_ORDER, Kind, Priority, Severity

__all__ = ["LOG_SEVERITY", "default_priority", "default_severity"]

#: What a failure found in a CI log is worth when nothing else is known.
LOG_SEVERITY: dict[Kind, Severity] = {
    "test_failure": "critical",
    "build_error": "critical",
    "type_error": "critical",
    "crash": "critical",
    "lint": "major",
    "timeout": "major",
    "dependency": "major",
    "unknown": "major",
    # Infra is major, but recovery retries it and it never counts toward fix_criticals.
    "infra": "major",
    "security": "major",
    "review": "minor",
}


def default_severity(kind: Kind, *, warning: bool = False) -> Severity:
    """Severity of a log finding of ``kind``; warnings are at most ``minor``."""
    severity = LOG_SEVERITY[kind]
    if warning and SEVERITY_ORDER[severity] > SEVERITY_ORDER["minor"]:
        return "minor"
    return severity


def default_priority(severity: Severity, kind: Kind, *, on_default_branch: bool) -> Priority:
    """Priority for self-healing: critical on the default branch or security is P0 (DESIGN §4)."""
    if kind == "security" or (severity == "critical" and on_default_branch):
        return "P0"
    if severity in ("critical", "major"):
        return "P1"
    return "P2"
