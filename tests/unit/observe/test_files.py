"""Input globs -> files: sorted, each once, files only, relative to the workspace."""

from __future__ import annotations

from pathlib import Path

from gauntlet.observe.files import expand


def test_globs_expand_sorted_once_and_files_only(tmp_path: Path) -> None:
    for name in ("b.log", "a.log", "sub/c.log"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n")
    (tmp_path / "dir.log").mkdir()
    found = expand(["*.log", "**/*.log", "missing/*.log"], tmp_path)
    assert found == [tmp_path / "a.log", tmp_path / "b.log", tmp_path / "sub/c.log"]
