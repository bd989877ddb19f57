"""``evolve``: the checked copy every state change goes through."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from gauntlet.models import Finding, evolve
from gauntlet.state.pr import PRRecord


def _finding() -> Finding:
    return Finding(fingerprint="f1", source="log", kind="test_failure", severity="critical", priority="P1", message="x")


def test_a_change_is_applied_and_the_original_kept() -> None:
    finding = _finding()
    changed = evolve(finding, severity="minor", line=3)
    assert (changed.severity, changed.line) == ("minor", 3)
    assert (finding.severity, finding.line) == ("critical", None)


def test_a_misspelt_field_is_refused() -> None:
    record = PRRecord(number=7)
    with pytest.raises(TypeError, match="PRRecord has no field closd"):
        evolve(record, closd=True)


def test_the_result_is_validated() -> None:
    with pytest.raises(ValidationError):
        evolve(_finding(), severity="catastrophic")


def test_no_change_gives_an_equal_model() -> None:
    record = PRRecord(number=7)
    assert evolve(record) == record
