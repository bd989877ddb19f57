"""Gauntlet review JSON: severities, locations, CWE, and untrusted ``rules_consulted``."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path

import pytest

from gauntlet.errors import InputError
from gauntlet.ingest.limits import DEFAULT_LIMITS
from gauntlet.ingest.review import parse_review, read_review

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "review" / "gauntlet" / "broken-calc" / "review.json"


def test_review_fixture() -> None:
    with FIXTURE.open("rb") as stream:
        findings = list(read_review(stream, "review.json", DEFAULT_LIMITS))
    assert [(f.tool, f.severity, f.kind, f.path, f.line, f.end_line, f.rule) for f in findings] == [
        ("security-reviewer", "critical", "security", "src/app/calc.py", 11, None, "CWE-78"),
        ("correctness-reviewer", "major", "review", "src/app/calc.py", 5, 6, None),
        ("style-reviewer", "nitpick", "review", "src/app/calc.py", 15, None, None),
        ("style-reviewer", "minor", "review", None, None, None, None),
    ]
    assert findings[0].rule_learned == "Never call subprocess with shell=True on untrusted input."
    assert findings[0].category == "security"


def test_unknown_consulted_rules_are_dropped_and_reported(caplog: pytest.LogCaptureFixture) -> None:
    with FIXTURE.open("rb") as stream, caplog.at_level(logging.WARNING, logger="gauntlet.ingest"):
        document = parse_review(stream, "review.json", DEFAULT_LIMITS, known_rules={"no-shell-true", "other"})
    assert document.rules_consulted == ("no-shell-true",)
    assert document.unknown_rules == ("made-up-rule", "tests-for-arithmetic")
    assert "dropped 2 unknown rule id(s): made-up-rule, tests-for-arithmetic" in caplog.text


@pytest.mark.parametrize(
    ("cwe", "expected"), [("CWE-89", "CWE-89"), ("cwe-89", "CWE-89"), ("89", "CWE-89"), (89, "CWE-89")]
)
def test_cwe_forms(cwe: object, expected: str) -> None:
    body = json.dumps([{"severity": "major", "description": "d", "cwe": cwe}]).encode()
    [finding] = read_review(io.BytesIO(body), "r.json", DEFAULT_LIMITS)
    assert finding.rule == expected and finding.kind == "security"


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (b"{", "not valid JSON"),
        (b'{"issues": 3}', "expected a list"),
        (b'[{"description": "d"}]', "item 0: severity: Field required"),
        (b'[{"severity": "apocalyptic", "description": "d"}]', "item 0: severity"),
        (b"[" * 100_000, "nested deeper"),
    ],
)
def test_bad_reviews_are_input_errors(body: bytes, error: str) -> None:
    with pytest.raises(InputError, match=error):
        list(read_review(io.BytesIO(body), "r.json", DEFAULT_LIMITS))
