"""engine/ and classify/ are pure: no module there imports I/O, clocks or randomness."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[3] / "src" / "gauntlet"
FORBIDDEN = {"os", "io", "time", "random", "socket", "subprocess", "shutil", "pathlib", "github", "requests", "urllib"}
PURE_MODULES = sorted([*(SRC / "engine").rglob("*.py"), *(SRC / "classify").rglob("*.py")])


def imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def clock_reads(path: Path) -> list[str]:
    text = path.read_text()
    return [call for call in ("datetime.now", "datetime.utcnow", "date.today", "open(") if call in text]


@pytest.mark.parametrize("path", PURE_MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_pure_modules_do_no_io(path: Path) -> None:
    assert not imported_roots(path) & FORBIDDEN
    assert clock_reads(path) == []
