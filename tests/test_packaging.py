"""The wheel carries everything Gauntlet needs (templates, demo data): build it, install it, run it."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_installs_and_runs(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp_path / "dist"), str(REPO)],
        check=True,
        capture_output=True,
    )
    wheel = next((tmp_path / "dist").glob("gauntlet-*.whl"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-deps", str(wheel)], check=True)
    # Dependencies come from the test environment, appended after the new venv's own site-packages so that
    # `gauntlet` itself can only be imported from the wheel (never from this checkout).
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(site, "test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    gauntlet = venv / "bin" / "gauntlet"
    work = tmp_path / "work"
    work.mkdir()
    data = Path(
        subprocess.run(
            [python, "-c", "from gauntlet.demo.world import DATA; print(DATA)"],
            check=True,
            capture_output=True,
            text=True,
            cwd=work,
        ).stdout.strip()
    )
    assert str(data).startswith(str(venv))
    ingest = subprocess.run(
        [gauntlet, "ingest", "--json", str(data / "pytest-iteration-1.log")], capture_output=True, text=True, cwd=work
    )
    assert ingest.returncode == 0 and len(ingest.stdout.splitlines()) == 3
    event = work / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 3, "head": {"sha": "d" * 40}}}))
    run = subprocess.run(
        [
            gauntlet,
            "run",
            "--event-name",
            "pull_request",
            "--event-path",
            str(event),
            "--logs",
            str(data / "*.log"),
            "--json",
        ],
        capture_output=True,
        text=True,
        cwd=work,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["decision"]["action"] == "fix_criticals"
    assert (work / ".gauntlet" / "out" / "pr-comment-3.md").read_text().startswith("<!-- gauntlet:key=pr-comment:3")
    report = subprocess.run([gauntlet, "report", "--html", "site"], capture_output=True, text=True, cwd=work)
    assert report.returncode == 0, report.stderr
    assert (work / "site" / "style.css").is_file() and "#3" in (work / "site" / "pulls.html").read_text()
