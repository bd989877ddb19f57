"""Input globs -> files: sorted, each once, files only, relative to the workspace."""

from __future__ import annotations

from pathlib import Path

from gauntlet.observe.files import expand


def test_globs_expand_sorted_once_and_files_only(tmp_path: Path) -> None:
    for name in ("b.log", "a.log", "sub/c.log"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n")
    (tmp_path / "dir.log").mkdir()
    found, problems = expand("logs", ["*.log", "**/*.log", "missing/*.log"], tmp_path)
    assert found == [tmp_path / "a.log", tmp_path / "b.log", tmp_path / "sub/c.log"]
    assert [(p.path, p.misconfigured) for p in problems] == [("missing/*.log", True)]
    assert "input `logs`: the pattern `missing/*.log` matches no file" in problems[0].message


def test_a_glob_that_leaves_the_workspace_reads_nothing_and_says_so(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (tmp_path / "secret.log").write_text("x\n")
    (workspace / "link.log").symlink_to(tmp_path / "secret.log")
    for pattern in ("../secret.log", str(tmp_path / "secret.log"), "link.log"):
        found, [problem] = expand("logs", [pattern], workspace)
        assert found == [] and "outside the workspace" in problem.message, pattern
    found, problems = expand("logs", ["../secret.log"], workspace, confined=False)
    assert found == [workspace / "../secret.log"] and problems == []
