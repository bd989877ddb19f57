"""reviewdog rdjson and rdjsonl: real ruff and eslint output."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from gauntlet.errors import InputError
from gauntlet.ingest.limits import DEFAULT_LIMITS, Limits
from gauntlet.ingest.rdjson import read_rdjson
from gauntlet.models import Finding

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "rdjson"


def _parse(body: bytes, root: str | None = None, limits: Limits = DEFAULT_LIMITS) -> list[Finding]:
    return list(read_rdjson(io.BytesIO(body), "x.rdjson", limits, root=root))


def test_ruff_rdjson_takes_the_document_severity() -> None:
    findings = _parse((FIXTURES / "ruff/broken-calc/ruff.rdjson").read_bytes(), root="/tmp/fx/py")
    assert [(f.tool, f.rule, f.path, f.line, f.column, f.severity) for f in findings] == [
        ("ruff", "F401", "src/app/calc.py", 1, 8, "minor"),  # ruff declares its diagnostics WARNING
        ("ruff", "F841", "src/app/calc.py", 10, 5, "minor"),
        ("ruff", "F821", "src/app/calc.py", 12, 24, "minor"),
    ]


def test_eslint_rdjson_and_the_same_diagnostics_as_rdjsonl() -> None:
    raw = (FIXTURES / "eslint/broken-sum/eslint.rdjson").read_bytes()
    findings = _parse(raw, root="/tmp/fx/node")
    assert [(f.rule, f.path, f.line, f.severity) for f in findings] == [
        ("no-unused-vars", "src/sum.js", 1, "major"),
        ("no-eval", "src/sum.js", 8, "major"),
        ("no-undef", "src/sum.js", 8, "major"),
    ]
    document = json.loads(raw)
    lines = "\n".join(json.dumps({**d, "source": document["source"]}) for d in document["diagnostics"])
    assert _parse(lines.encode(), root="/tmp/fx/node") == findings


@pytest.mark.parametrize(
    "body", [b"{", b'{"diagnostics": 3}', b'{"location": {}, "message": "m"}\n{oops', b"[1]", b"[" * 10_000]
)
def test_bad_input_is_an_input_error(body: bytes) -> None:
    with pytest.raises(InputError, match=r"^x\.rdjson: "):
        _parse(body)


def test_long_rdjsonl_lines_are_refused() -> None:
    line = json.dumps({"location": {"path": "a"}, "message": "x" * 5000}).encode()
    with pytest.raises(InputError, match="longer than"):
        _parse(b'{"location": {}, "message": "m"}\n' + line, limits=Limits(max_line_bytes=1000))


def test_findings_are_capped() -> None:
    diagnostic = json.dumps({"message": "m", "location": {"path": "a.py", "range": {"start": {"line": 1}}}})
    assert len(_parse(("\n".join([diagnostic] * 50)).encode(), limits=Limits(max_findings=7))) == 7
