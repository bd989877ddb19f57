"""Locations are repository-relative or dropped."""

from __future__ import annotations

import pytest

from gauntlet.ingest.paths import repo_relative


@pytest.mark.parametrize(
    ("raw", "root", "expected"),
    [
        ("src/a.py", None, "src/a.py"),
        ("./src//a.py", None, "src/a.py"),
        ("src\\win\\a.py", None, "src/win/a.py"),
        ("file:///tmp/r/src/a%20b.py", "/tmp/r", "src/a b.py"),
        ("/tmp/r/src/a.py", "/tmp/r/", "src/a.py"),
        ("/home/runner/work/app/app/src/a.py", None, "src/a.py"),
        ("/__w/app/app/lib/x.ts", None, "lib/x.ts"),
        ("/github/workspace/x.go", None, "x.go"),
        ("D:\\a\\app\\app\\src\\x.cs", None, "src/x.cs"),
        ("file:///D:/a/app/app/src/x.cs", None, "src/x.cs"),
        ("src/../lib/a.py", None, "lib/a.py"),
        ("../a.py", None, None),
        ("src/../../a.py", None, None),
        ("/tmp/r/../etc/passwd", "/tmp/r", None),
        ("/etc/passwd", None, None),
        ("/etc/passwd", "/tmp/r", None),
        ("C:\\Windows\\system32", None, None),
        ("file://host/share/a.py", None, None),
        ("a\x00b.py", None, None),
        ("", None, None),
        (None, None, None),
        (".", None, None),
        ("x" * 2000, None, None),
    ],
)
def test_repo_relative(raw: str | None, root: str | None, expected: str | None) -> None:
    assert repo_relative(raw, root=root) == expected
