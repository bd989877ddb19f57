"""Severity overrides and context flags from the configuration."""

from __future__ import annotations

from typing import Any

from gauntlet.classify import classify, component_of
from gauntlet.config import Config, parse_config
from gauntlet.models import Finding


def _finding(**fields: Any) -> Finding:
    base: dict[str, Any] = {"fingerprint": "f", "source": "sarif", "kind": "lint", "severity": "major", "message": "m"}
    return Finding(**{**base, **fields})


CONFIG = parse_config(
    """
severity:
  - kind: lint
    severity: minor
  - tool: ruff
    rule: E5*
    severity: nitpick
  - path: "tests/**"
    kind: security
    severity: nitpick
  - rule: py/sql-injection
    severity: critical
components:
  payments: ["src/pay/**"]
  web: ["src/web/", "*.tsx"]
context:
  - name: payments are production money
    components: [payments]
    priority: P0
  - name: majors in the API
    paths: ["src/api/**"]
    min_severity: major
    priority: P1
  - name: anything red on main
    default_branch_only: true
    kinds: [lint]
    priority: P1
"""
)


def _one(finding: Finding, *, main: bool = False, config: Config = CONFIG) -> Finding:
    [classified] = classify([finding], config, on_default_branch=main)
    return classified


def test_the_most_specific_override_wins() -> None:
    assert _one(_finding(tool="eslint", rule="no-eval")).severity == "minor"
    assert _one(_finding(tool="ruff", rule="E501")).severity == "nitpick"
    assert _one(_finding(tool="RUFF", rule="e501")).severity == "nitpick"
    assert _one(_finding(kind="security", path="tests/test_a.py", severity="critical")).severity == "nitpick"
    assert (
        _one(_finding(kind="security", path="src/a.py", severity="minor", rule="py/sql-injection")).severity
        == "critical"
    )


def test_context_raises_priority() -> None:
    assert _one(_finding(path="src/pay/card.py", severity="nitpick", kind="review")).priority == "P0"
    assert _one(_finding(path="src/api/x.py", kind="review", severity="major")).priority == "P1"
    assert _one(_finding(path="src/api/x.py", kind="review", severity="minor")).priority == "P2"
    assert _one(_finding(path="src/x.py", tool="eslint"), main=True).priority == "P1"


def test_context_never_lowers_priority() -> None:
    lowering = parse_config("context:\n  - name: docs\n    paths: ['docs/**']\n    priority: P1\n")
    security = _finding(path="docs/a.md", kind="security", severity="nitpick")
    assert _one(security, config=lowering).priority == "P0"


def test_default_priorities_without_configuration() -> None:
    config = Config()
    assert _one(_finding(kind="test_failure", severity="critical"), config=config).priority == "P1"
    assert _one(_finding(kind="test_failure", severity="critical"), main=True, config=config).priority == "P0"
    assert _one(_finding(severity="minor"), config=config).priority == "P2"
    assert _one(_finding(kind="security", severity="nitpick"), config=config).priority == "P0"


def test_components() -> None:
    assert component_of("src/pay/card.py", CONFIG.components) == "payments"
    assert component_of("src/web/app.ts", CONFIG.components) == "web"
    assert component_of("lib/ui/Button.tsx", CONFIG.components) == "web"
    assert component_of("src/other.py", CONFIG.components) == "other"
    assert component_of(None, CONFIG.components) == "other"
