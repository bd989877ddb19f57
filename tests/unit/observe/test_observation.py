"""One observation per routed event, read once: the iteration's input files, a close, a comment, the rest.

Runs on files (no GitHub: ``remote=None``), the way ``gauntlet run`` on a laptop sees them, with the demo's
real pytest log.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gauntlet.config import Config
from gauntlet.errors import InputError
from gauntlet.observe.observation import Downloads, observe
from gauntlet.observe.payload import Delivery
from gauntlet.settings import Settings

DEMO = Path(__file__).resolve().parents[3] / "src" / "gauntlet" / "demo" / "data"
PR = {
    "action": "synchronize",
    "number": 7,
    "pull_request": {"number": 7, "head": {"sha": "a" * 40, "ref": "fix"}, "base": {"sha": "b" * 40, "ref": "main"}},
    "repository": {"full_name": "octo/app", "default_branch": "main"},
}


def _settings(workspace: Path, **changes: object) -> Settings:
    return Settings(workspace=workspace, repository="octo/app", run_id="41", job="test", **changes)  # type: ignore[arg-type]


def _delivery(name: str, data: dict[str, object]) -> Delivery:
    return Delivery.of(name, json.dumps(data).encode())


def test_an_iteration_reads_the_input_files_and_the_downloads_once(tmp_path: Path) -> None:
    shutil.copyfile(DEMO / "pytest-iteration-1.log", tmp_path / "pytest.log")
    downloaded = tmp_path / "downloaded" / "job.log"
    downloaded.parent.mkdir()
    shutil.copyfile(DEMO / "pytest-iteration-2.log", downloaded)
    settings = _settings(tmp_path, logs=("*.log",))
    only_globs = observe("iteration", _delivery("pull_request", PR), settings, Config())
    assert only_globs.pr == 7 and only_globs.head_sha == "a" * 40 and only_globs.id == f"{'a' * 40}:41:1:/test"
    assert only_globs.findings and all(f.kind == "test_failure" for f in only_globs.findings)
    both = observe(
        "iteration",
        _delivery("pull_request", PR),
        settings,
        Config(),
        downloads=Downloads(logs=(downloaded,), failed_jobs=("unit",)),
    )
    assert {f.fingerprint for f in only_globs.findings} <= {f.fingerprint for f in both.findings}
    assert both.failed_jobs == ("unit",)


def test_an_unreadable_file_is_a_problem_of_the_run_and_the_rest_is_read(tmp_path: Path) -> None:
    shutil.copyfile(DEMO / "pytest-iteration-1.log", tmp_path / "pytest.log")
    (tmp_path / "review.json").write_text("{not json", encoding="utf-8")
    obs = observe(
        "iteration",
        _delivery("pull_request", PR),
        _settings(tmp_path, logs=("*.log",), findings=("review.json",)),
        Config(),
    )
    assert obs.findings
    assert [Path(p.path).name for p in obs.input_problems] == ["review.json"]


def test_a_push_without_a_head_sha_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no head SHA"):
        observe("iteration", _delivery("push", {"ref": "refs/heads/main"}), _settings(tmp_path), Config())


def test_a_close_reads_no_files_and_needs_its_pr(tmp_path: Path) -> None:
    shutil.copyfile(DEMO / "pytest-iteration-1.log", tmp_path / "pytest.log")
    settings = _settings(tmp_path, logs=("*.log",))
    closed = observe("close_pr", _delivery("pull_request", {**PR, "action": "closed"}), settings, Config())
    assert closed.closed and closed.pr == 7 and closed.findings == ()
    with pytest.raises(InputError, match="names no pull request"):
        observe("close_pr", _delivery("pull_request", {"action": "closed"}), settings, Config())


def test_without_github_a_commenter_has_no_permission(tmp_path: Path) -> None:
    payload = {
        "action": "created",
        "comment": {"id": 5, "body": "/gauntlet reset", "user": {"login": "ada", "type": "User"}},
        "issue": {"number": 7, "pull_request": {"url": "x"}},
        "repository": {"full_name": "octo/app", "default_branch": "main"},
    }
    obs = observe("comment", _delivery("issue_comment", payload), _settings(tmp_path), Config())
    assert obs.comment is not None
    assert (obs.comment.author, obs.comment.author_permission, obs.comment.is_pull_request) == ("ada", "none", True)
