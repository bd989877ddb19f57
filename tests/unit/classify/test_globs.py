"""Path globs in the configuration follow .gitignore/CODEOWNERS conventions."""

from __future__ import annotations

import pytest

from gauntlet.classify.globs import glob_matches


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("src/api/**", "src/api/a/b.py", True),
        ("src/api/**", "src/apix/a.py", False),
        ("src/api/", "src/api/a.py", True),
        ("src/api", "src/api/a.py", True),
        ("*.py", "a/b/c.py", True),
        ("*.py", "a/b/c.pyc", False),
        ("docs", "a/docs/x.md", True),
        ("src/*.py", "src/b.py", True),
        ("src/*.py", "lib/src/b.py", False),
        ("**/test_*.py", "test_a.py", True),
        ("**/test_*.py", "tests/unit/test_a.py", True),
        ("src/?.py", "src/ab.py", False),
        ("a+b/(x)", "a+b/(x)/y", True),
    ],
)
def test_glob_matches(pattern: str, path: str, expected: bool) -> None:
    assert glob_matches(pattern, path) is expected
