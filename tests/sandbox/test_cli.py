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


def test_bad_arguments_exit_2() -> None:
    assert main(["serve", "--port", "not-a-number"]) == 2
    assert main([]) == 2
