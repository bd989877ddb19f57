"""``gauntlet sandbox serve``: the first stdout line is the base URL; SIGTERM stops it cleanly."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import requests

from gauntlet.sandbox.cli import main


def test_serve_prints_url_then_serves_until_sigterm(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "gauntlet", "sandbox", "serve", "--port", "0", "--data", str(tmp_path), "--seed", "3"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        made = requests.post(f"{url}/_sandbox/repos", json={"full_name": "demo/app"}, timeout=10)
        assert made.status_code == 201
        user = requests.get(f"{url}/user", headers={"Authorization": "Bearer demo"}, timeout=10).json()
        assert user["login"] == "demo" and user["url"] == f"{url}/users/demo"
        assert (tmp_path / "demo" / "app.git" / "HEAD").is_file()
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err


def test_data_dir_keeps_code_across_restarts(tmp_path: Path) -> None:
    from gauntlet.sandbox import Sandbox

    with Sandbox.start(data_dir=tmp_path) as first:
        first.create_repo("demo/app", {"a.txt": "a\n"}, default_branch="trunk")
        head = first.head("demo/app")
    with Sandbox.start(data_dir=tmp_path) as second:
        assert second.head("demo/app") == head
        assert second.store.repo("demo", "app") is not None
        assert second.store.repos["demo/app"].default_branch == "trunk"


def test_bad_arguments_exit_2() -> None:
    assert main(["serve", "--port", "not-a-number"]) == 2
    assert main([]) == 2
