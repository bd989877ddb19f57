"""The contract-coverage check itself (the check runs when the session ends: see conftest.py)."""

from __future__ import annotations

from contract_coverage import served_operations, uncovered


def test_every_operation_is_uncovered_before_anything_ran() -> None:
    assert uncovered([]) == sorted(served_operations())
    assert len(served_operations()) > 20


def test_a_validated_response_covers_its_operation_and_an_error_does_not() -> None:
    method, template = sorted(served_operations())[0]
    assert (method, template) not in uncovered([(method, template, 200)])
    assert (method, template) in uncovered([(method, template, 404)])


def test_everything_seen_covers_everything() -> None:
    assert uncovered([(m, t, 200) for m, t in served_operations()]) == []
