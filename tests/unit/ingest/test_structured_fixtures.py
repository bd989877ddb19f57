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

from gauntlet.ingest.formats import Format, detect_format, reader_for
from gauntlet.ingest.limits import DEFAULT_LIMITS

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
FORMAT_DIRS = ("sarif", "junit", "rdjson", "checkstyle", "review", "comments")
INPUTS = sorted(
    path
    for folder in FORMAT_DIRS
    for path in (FIXTURES / folder).glob("*/*/*")
    if path.suffix in (".sarif", ".xml", ".rdjson", ".json")
)


def _root(case: Path) -> str | None:
    """The folder the tool ran in, as its generate.sh records it (absolute paths in the output start there)."""
    match = re.search(r"generated in (/\S+?)[,.]?\s", (case / "generate.sh").read_text(encoding="utf-8"))
    return match.group(1) if match else None


def _read(path: Path) -> list[str]:
    fmt: Format = detect_format(path.read_bytes()[: 64 * 1024])
    reader = reader_for(fmt, root=_root(path.parent))
    with path.open("rb") as stream:
        findings = list(reader(stream, path.name, DEFAULT_LIMITS))
    return [finding.model_dump_json() for finding in findings]


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fixture_reads_to_its_expected_findings(path: Path) -> None:
    assert (path.parent / "generate.sh").exists(), "every fixture records how it was made"
    expected = path.with_name(path.stem + ".expected.jsonl")
    lines = _read(path)
    if os.environ.get("GAUNTLET_UPDATE_EXPECTED") == "1":
        expected.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    assert lines, "a fixture of broken code has findings"
    assert [json.loads(line) for line in lines] == [
        json.loads(line) for line in expected.read_text(encoding="utf-8").splitlines()
    ]
