"""Unpacking artifacts: bounded, and no member name can write outside the target folder."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from gauntlet.action.downloads import _unpack


def archive(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        for name, data in members.items():
            zipped.writestr(name, data)
    return buffer.getvalue()


def test_members_stay_inside_the_target(tmp_path: Path) -> None:
    target = tmp_path / "out" / "findings"
    data = archive({"../../escape.txt": b"x", "/abs/path.sarif": b"{}", "ok/review.json": b"[]"})

    written = _unpack(data, target)

    assert sorted(p.relative_to(target).as_posix() for p in written) == [
        "abs/path.sarif",
        "escape.txt",
        "ok/review.json",
    ]
    assert not (tmp_path / "escape.txt").exists()


def test_garbage_is_no_archive(tmp_path: Path) -> None:
    assert _unpack(b"not a zip", tmp_path) == []
