"""Every real fixture reads to its recorded ``expected.jsonl`` (one Finding per line).

After a deliberate change to a reader, rewrite them with
``GAUNTLET_UPDATE_EXPECTED=1 .venv/bin/pytest tests/unit/ingest/test_structured_fixtures.py`` and review the diff.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from gauntlet.ingest.formats import detect_format, reader_for
from gauntlet.ingest.limits import DEFAULT_LIMITS

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
FORMAT_DIRS = (
    "sarif",
    "junit",
    "rdjson",
    "checkstyle",
    "review",
    "comments",
    "nunit",
    "xunit",
    "trx",
    "ctrf",
    "tap",
    "go-json",
    "mocha-json",
    "jest-json",
    "dart-json",
)
INPUTS = sorted(
    path
    for folder in FORMAT_DIRS
    for path in (FIXTURES / folder).glob("*/*/*")
    if path.suffix in (".sarif", ".xml", ".rdjson", ".json", ".trx", ".tap", ".jsonl")
    and not path.name.endswith(".expected.jsonl")
)


def _origin(case: Path) -> Path:
    """How the fixture was made: its generate.sh, or a PROVENANCE note for a tool's published example."""
    script = case / "generate.sh"
    return script if script.exists() else case / "PROVENANCE"


def _root(case: Path) -> str | None:
    """The folder the tool ran in, as the fixture records it (absolute paths in the output start there)."""
    text = _origin(case).read_text(encoding="utf-8")
    match = re.search(r"[Gg]enerated in\s+(/\S+?|[A-Za-z]:[\\/]\S*?)[,.]?\s", text)
    return match.group(1) if match else None


def _read(path: Path) -> list[str]:
    fmt = detect_format(path.read_bytes()[: 64 * 1024]).format
    assert fmt is not None, "every fixture is of a format Gauntlet reads"
    reader = reader_for(fmt, root=_root(path.parent))
    with path.open("rb") as stream:
        findings = list(reader(stream, path.name, DEFAULT_LIMITS))
    return [finding.model_dump_json() for finding in findings]


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fixture_reads_to_its_expected_findings(path: Path) -> None:
    assert _origin(path.parent).exists(), "every fixture records how it was made or where it came from"
    expected = path.with_name(path.stem + ".expected.jsonl")
    lines = _read(path)
    if os.environ.get("GAUNTLET_UPDATE_EXPECTED") == "1":
        expected.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    assert lines, "a fixture of broken code has findings"
    assert [json.loads(line) for line in lines] == [
        json.loads(line) for line in expected.read_text(encoding="utf-8").splitlines()
    ]
