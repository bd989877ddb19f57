"""The verdict that ends the check run's summary (DESIGN §5, contract): valid JSON, documented, within limits."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import jsonschema

from gauntlet.effects.bodies import body_of
from gauntlet.effects.models import SetCheck
from gauntlet.effects.verdict import CHECK_SUMMARY_CHARS, verdict_schema
from gauntlet.effects.views import Blamed, RunView
from gauntlet.state.pr import FindingRecord
from gauntlet.vocabulary import Decision

SCHEMA = Path(__file__).resolve().parents[3] / "schema" / "verdict.schema.json"
_BLOCK = re.compile(r"\n```json\n(.*)\n```\n\Z", re.S)


def verdict_in(summary: str) -> dict[str, Any]:
    """The fenced JSON block that ends a check summary, decoded and checked against the published schema."""
    found = _BLOCK.search(summary)
    assert found is not None, "the summary ends with a fenced json block"
    verdict = json.loads(found.group(1))
    jsonschema.validate(verdict, json.loads(SCHEMA.read_text(encoding="utf-8")))
    return dict(verdict)


def _record(n: int, severity: str = "critical", message: str = "assert 1 == 2") -> FindingRecord:
    return FindingRecord(
        fingerprint=f"fp{n:05d}", source="log", kind="test_failure", severity=severity,  # type: ignore[arg-type]
        message=message, path="tests/test_x.py", line=n + 1, test_id=f"tests/test_x.py::test_{n}",
    )  # fmt: skip


def _check(records: list[FindingRecord], blamed: tuple[Blamed, ...] = (), conclusion: str = "failure") -> SetCheck:
    decision = Decision(action="fix_criticals", iteration=1, criticals=len(records), majors=0, minors=0)
    view = RunView(repository="o/r", pr=7, head_sha="a" * 40, decision=decision, new=tuple(records), blamed=blamed)
    return SetCheck(head_sha="a" * 40, conclusion=conclusion, title="t", view=view)  # type: ignore[arg-type]


def test_the_schema_is_current() -> None:
    """Regenerate with ``GAUNTLET_UPDATE_SCHEMA=1 .venv/bin/pytest tests/unit/effects/test_verdict.py``."""
    current = json.dumps(verdict_schema(), indent=2, sort_keys=True) + "\n"
    if os.environ.get("GAUNTLET_UPDATE_SCHEMA") == "1":
        SCHEMA.write_text(current, encoding="utf-8")
    assert SCHEMA.read_text(encoding="utf-8") == current, "schema/verdict.schema.json is stale"


def test_each_failing_finding_is_listed_with_its_provenance_blocking_ones_first() -> None:
    new, flaky, lint = _record(1), _record(2), _record(3, "major")
    lint = lint.model_copy(update={"kind": "lint", "test_id": None})
    blamed = (
        Blamed(finding=new, provenance="new", why="w"),
        Blamed(finding=flaky, provenance="flaky", why="w", blocks=False),
    )
    verdict = verdict_in(body_of(_check([flaky, lint, new], blamed)))
    assert verdict["conclusion"] == "failure" and verdict["pr"] == 7 and verdict["trimmed"] == 0
    assert [(f["fingerprint"], f["provenance"], f["blocks"]) for f in verdict["findings"]] == [
        ("fp00001", "new", True),
        ("fp00002", "flaky", False),
        ("fp00003", None, False),  # a major does not fail a check that fails on criticals
    ]
    assert verdict["counts"] == {"new": 1, "flaky": 1, "none": 1}


def test_ten_thousand_findings_are_trimmed_to_githubs_limit_saying_so() -> None:
    records = [_record(n, message="x" * 2000) for n in range(10_000)]
    summary = body_of(_check(records))
    assert len(summary) <= CHECK_SUMMARY_CHARS
    verdict = verdict_in(summary)
    assert verdict["trimmed"] > 0 and len(verdict["findings"]) + verdict["trimmed"] == 10_000


def test_hostile_text_cannot_end_the_fence_or_ping_and_secrets_are_gone() -> None:
    message = "```\n@octocat <script>x</script> ghp_" + "a" * 36 + "\n```"
    summary = body_of(_check([_record(1, message=message)]))
    block = _BLOCK.search(summary)
    assert block is not None and "```" not in block.group(1) and "@octocat" not in block.group(1)
    [finding] = verdict_in(summary)["findings"]
    assert finding["message"].startswith("``` @octocat <script>x</script> [REDACTED]")
