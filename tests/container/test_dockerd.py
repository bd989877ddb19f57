"""docker/dockerd.sh gives up on an engine that does not answer in time: exit 3 with the reason, nothing left."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from docker_engine import ENGINE_UNAVAILABLE, SCRIPTS

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="dockerd needs root"),
]


def processes_under(folder: Path) -> list[str]:
    """Command lines of running processes that name ``folder``."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (FileNotFoundError, ProcessLookupError):  # the process ended while we looked
            continue
        if str(folder) in text:
            found.append(text)
    return found


def test_an_engine_that_does_not_answer_in_time_is_reported_and_stopped(tmp_path: Path) -> None:
    home = Path(os.path.realpath(tmp_path))

    started = subprocess.run(
        [str(SCRIPTS / "dockerd.sh"), "start", str(home)],
        env={**os.environ, "GAUNTLET_DOCKERD_TIMEOUT": "0"},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    subprocess.run([str(SCRIPTS / "dockerd.sh"), "stop", str(home)], check=True, timeout=60)

    assert started.returncode == ENGINE_UNAVAILABLE, started.stderr
    assert "dockerd did not answer within 0s" in started.stderr
    assert started.stdout == "", "no DOCKER_HOST is printed for an engine that is not there"
    assert processes_under(home) == []


def test_stopping_a_folder_with_no_engine_is_a_no_op(tmp_path: Path) -> None:
    stopped = subprocess.run(
        [str(SCRIPTS / "dockerd.sh"), "stop", str(tmp_path)], capture_output=True, text=True, timeout=60, check=False
    )

    assert (stopped.returncode, stopped.stderr) == (0, "")
