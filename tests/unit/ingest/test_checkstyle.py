"""Checkstyle XML: real eslint output and the source-to-tool mapping."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from gauntlet.errors import InputError
from gauntlet.ingest.checkstyle import read_checkstyle, split_source
from gauntlet.ingest.limits import DEFAULT_LIMITS
from gauntlet.models import Finding

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "checkstyle"


def _parse(body: bytes, root: str | None = None) -> list[Finding]:
    return list(read_checkstyle(io.BytesIO(body), "checkstyle.xml", DEFAULT_LIMITS, root=root))


def test_eslint_checkstyle_output() -> None:
    findings = _parse((FIXTURES / "eslint/broken-sum/eslint-checkstyle.xml").read_bytes(), root="/tmp/fx/node")
    assert [(f.tool, f.rule, f.path, f.line, f.column, f.severity) for f in findings] == [
        ("eslint", "no-unused-vars", "src/sum.js", 1, 7, "major"),
        ("eslint", "no-eval", "src/sum.js", 8, 10, "major"),
        ("eslint", "no-undef", "src/sum.js", 8, 24, "major"),
    ]
    assert findings[0].message == "'unused' is assigned a value but never used."  # the "(rule)" suffix is dropped
    assert {(f.source, f.kind) for f in findings} == {("checkstyle", "lint")}


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("eslint.rules.no-eval", ("eslint", "no-eval")),
        ("ShellCheck.SC2086", ("shellcheck", "SC2086")),
        ("com.puppycrawl.tools.checkstyle.checks.whitespace.FileTabCharacterCheck", ("checkstyle", "FileTabCharacter")),
        ("errcheck", (None, "errcheck")),
        (None, (None, None)),
    ],
)
def test_split_source(source: str | None, expected: tuple[str | None, str | None]) -> None:
    assert split_source(source) == expected


def test_severities_and_ignore() -> None:
    body = b"""<checkstyle><file name="a.go"><error line="1" severity="warning" message="w" source="x"/>
    <error line="2" severity="info" message="i" source="x"/>
    <error line="3" severity="ignore" message="no" source="x"/></file></checkstyle>"""
    assert [(f.severity, f.line) for f in _parse(body)] == [("minor", 1), ("nitpick", 2)]


def test_hostile_checkstyle_is_an_input_error() -> None:
    with pytest.raises(InputError, match="refused XML"):
        _parse(b'<!DOCTYPE c [<!ENTITY e "x">]><checkstyle><file name="&e;"/></checkstyle>')
    with pytest.raises(InputError, match="nested deeper"):
        _parse(b"<checkstyle>" + b"<file>" * 300)
