"""The same observations write the same bytes, whatever Python's hash seed (issue 30, item 11).

A dict filled in set order follows ``PYTHONHASHSEED``; a state file written from it would change bytes for
nothing, which rewrites a blob and costs a call. Each run here is a new process with another seed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[3] / "src" / "gauntlet" / "demo" / "data"
REPOSITORY = {"full_name": "octo/calc", "default_branch": "main"}


def _push(after: str, before: str) -> dict[str, object]:
    return {"ref": "refs/heads/main", "after": after, "before": before, "repository": REPOSITORY}


PR = {
    "action": "opened",
    "number": 3,
    "pull_request": {
        "number": 3,
        "user": {"login": "dana"},
        "head": {"sha": "3" * 40, "ref": "feature"},
        "base": {"sha": "2" * 40, "ref": "main"},
    },
    "repository": REPOSITORY,
}

#: (command, event, payload, logs, findings, now): a green main, a red one with lint, a PR, the nightly scan.
RUNS = [
    ("run", "push", _push("1" * 40, "0" * 39 + "1"), ["pytest-main-green.log"], [], "2026-12-01T10:00:00Z"),
    (
        "run",
        "push",
        _push("2" * 40, "1" * 40),
        ["pytest-main-broken.log", "ruff-iteration-1.log"],
        [],
        "2026-12-01T11:00:00Z",
    ),
    (
        "run",
        "pull_request",
        PR,
        ["pytest-iteration-1.log", "ruff-iteration-1.log"],
        ["review-iteration-1.json"],
        "2026-12-01T12:00:00Z",
    ),
    ("scan", None, None, [], [], "2026-12-02T03:00:00Z"),
]


def _play(folder: Path, seed: int) -> dict[str, bytes]:
    """Every run above, each in a new process with ``PYTHONHASHSEED=seed``; the state folder's files."""
    state = folder / "state"
    folder.mkdir()
    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    for n, (command, event, payload, logs, findings, now) in enumerate(RUNS):
        args = [sys.executable, "-m", "gauntlet", command, "--state-dir", str(state), "--now", now, "--json"]
        if event is not None:
            path = folder / f"event-{n}.json"
            path.write_text(json.dumps(payload), encoding="utf-8")
            args += ["--event-name", event, "--event-path", str(path)]
        args += [arg for log in logs for arg in ("--logs", str(DATA / log))]
        args += [arg for found in findings for arg in ("--findings", str(DATA / found))]
        subprocess.run(args, env=env, check=True, capture_output=True)
    return {str(p.relative_to(state)): p.read_bytes() for p in sorted(state.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_the_same_observations_write_the_same_bytes_under_every_hash_seed(tmp_path: Path) -> None:
    played = {seed: _play(tmp_path / f"seed-{seed}", seed) for seed in (0, 1, 2, 3)}
    first = played[0]
    assert "v1/defects.json" in first and any(name.startswith("v1/prs/") for name in first)
    for seed, files in played.items():
        assert files.keys() == first.keys(), seed
        changed = [name for name in files if files[name] != first[name]]
        assert changed == [], f"PYTHONHASHSEED={seed} wrote other bytes for {changed}"
