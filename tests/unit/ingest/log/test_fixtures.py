"""Every captured log in tests/fixtures/logs yields exactly its reviewed findings (expected.jsonl)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from gauntlet.ingest.limits import DEFAULT_LIMITS
from gauntlet.ingest.log import read_log

FIXTURES = Path(__file__).parents[4] / "tests" / "fixtures" / "logs"
FIELDS = ("tool", "kind", "severity", "path", "line", "test_id", "rule", "log_lines")
CASES = sorted(p.parent for p in FIXTURES.glob("*/*/expected.jsonl"))


def _findings(log: Path) -> list[dict[str, object]]:
    with log.open("rb") as stream:
        return [
            {key: value for key, value in finding.model_dump(mode="json").items() if key in FIELDS}
            for finding in read_log(stream, str(log), DEFAULT_LIMITS)
        ]


def test_there_are_fixtures() -> None:
    assert len(CASES) >= 20


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}/{c.name}" for c in CASES])
def test_fixture_findings(case: Path) -> None:
    expected = [json.loads(line) for line in (case / "expected.jsonl").read_text().splitlines() if line.strip()]
    assert _findings(case / "input.log") == expected


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}/{c.name}" for c in CASES])
def test_fixture_has_provenance(case: Path) -> None:
    script = (case / "generate.sh").read_text()
    assert "lib.sh" in script or "real" in script.lower()
    assert script.splitlines()[1].startswith("#")  # the tool, its version and why, under the shebang


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}/{c.name}" for c in CASES])
def test_fixture_findings_are_stable_under_line_shifts(case: Path) -> None:
    """Ten extra lines at the top move log_lines but change no fingerprint."""
    raw = (case / "input.log").read_bytes()
    with (case / "input.log").open("rb") as stream:
        before = [f.fingerprint for f in read_log(stream, "a", DEFAULT_LIMITS)]
    shifted = b"setting up\n" * 10 + raw
    after = [f.fingerprint for f in read_log(io.BytesIO(shifted), "b", DEFAULT_LIMITS)]
    assert before == after
