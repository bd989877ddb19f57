"""Print the API calls of a typical PR run, with 1 and with 10,000 PRs in the state, from the sandbox request log.

A typical run: CI finished on a new commit of a PR Gauntlet already reported on (iteration 2). The second case
first puts 10,000 other PR records (and their index entries) on the state branch, as a busy repository would
have: the run must cost the same.

    .venv/bin/python bench/api_calls.py
"""

from __future__ import annotations

import io
import json
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import github

from gauntlet.action.entry import run_action
from gauntlet.errors import GauntletError
from gauntlet.pipeline import Clock
from gauntlet.sandbox import Sandbox
from gauntlet.state.pr import PRRecord

REPO = "octo/app"
BOT = "github-actions[bot]"
DEMO = Path(__file__).resolve().parents[1] / "src" / "gauntlet" / "demo" / "data"
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def _run(sandbox: Sandbox, folder: Path, number: int, sha: str, run_id: int, iteration: int) -> int:
    workspace = folder / f"run-{run_id}"
    workspace.mkdir(parents=True)
    (workspace / "pytest.log").write_bytes((DEMO / f"pytest-iteration-{iteration}.log").read_bytes())
    (workspace / "review.json").write_bytes((DEMO / f"review-iteration-{iteration}.json").read_bytes())
    payload = {
        "action": "synchronize",
        "pull_request": {"number": number, "head": {"sha": sha, "ref": "feature"}, "user": {"login": "alice"}},
        "repository": {"full_name": REPO, "default_branch": "main"},
    }
    (workspace / "event.json").write_text(json.dumps(payload), encoding="utf-8")
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(workspace / "event.json"),
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_API_URL": sandbox.url,
        "GITHUB_RUN_ID": str(run_id),
        "GITHUB_WORKSPACE": str(workspace),
        "INPUT_GITHUB_TOKEN": BOT,
        "INPUT_LOGS": "pytest.log",
        "INPUT_FINDINGS": "review.json",
    }
    clock = Clock(now=NOW, sleep=time.sleep, monotonic=time.monotonic, throttle=False)
    try:
        return run_action(env, clock, io.StringIO())
    except GauntletError as exc:
        print(f"run failed: {exc}", file=sys.stderr)
        return exc.exit_code


def _crowd(sandbox: Sandbox, others: int) -> None:
    """Put ``others`` PR records (and an issue each in the index) on the state branch, keeping Gauntlet's trailers."""
    head = sandbox.store.repo("octo", "app")
    assert head is not None
    sha = head.git.ref("refs/heads/gauntlet-state")
    assert sha is not None
    message = head.git.read_commit(sha).message
    stored = [e.sha for e in head.git.ls_tree(sha, path="v1/index.json")]
    index = json.loads(head.git.read_blob(stored[0])) if stored else {"schema_version": 1, "entries": {}}
    files: dict[str, str | bytes | None] = {}
    for number in range(1000, 1000 + others):
        comment = 10_000_000 + number
        record = PRRecord(
            number=number, iteration_count=3, comment_id=comment, effects={f"pr-comment:{number}": comment}
        )
        files[f"v1/prs/{number}.json"] = record.model_dump_json(indent=1) + "\n"
        index["entries"][f"risk:{number:016x}"] = number
    files["v1/index.json"] = json.dumps(index, indent=1) + "\n"
    sandbox.commit(REPO, files, message.replace("gauntlet:", "bench: crowd the state;", 1), branch="gauntlet-state")


def typical_run(others: int) -> Counter[str]:
    """The requests of iteration 2 of a PR, with ``others`` other PRs in the state."""
    with Sandbox.start() as sandbox, tempfile.TemporaryDirectory() as tmp:
        sandbox.create_repo(REPO, {"README.md": "# app\n", "calc.py": "def add(a, b):\n    return a - b\n"})
        sandbox.set_permission(REPO, BOT, "write")
        owner = github.Github(base_url=sandbox.url, auth=github.Auth.Token("octo"), seconds_between_writes=None)
        owner.get_repo(REPO).create_git_ref("refs/heads/feature", sandbox.head(REPO) or "")
        first = sandbox.commit(REPO, {"calc.py": "def add(a, b):\n    return a + b  # 1\n"}, branch="feature")
        number = owner.get_repo(REPO).create_pull(title="Fix add", body="", head="feature", base="main").number
        assert _run(sandbox, Path(tmp), number, first, 1, 1) == 0
        if others:
            _crowd(sandbox, others)
        second = sandbox.commit(REPO, {"calc.py": "def add(a, b):\n    return a + b  # 2\n"}, branch="feature")
        sandbox.clear_requests()
        assert _run(sandbox, Path(tmp), number, second, 2, 2) == 0
        return Counter(f"{r['method']} {_template(r['path'])}" for r in sandbox.requests())


def _template(path: str) -> str:
    parts = path.split("/")
    return "/".join(p if not (p.isdigit() or len(p) == 40) else "{id}" for p in parts)


def main() -> None:
    """Print both runs' calls side by side."""
    small, large = typical_run(0), typical_run(10_000)
    print(f"{'request':62} {'1 PR':>6} {'10,001 PRs':>11}")
    for key in sorted(set(small) | set(large)):
        print(f"{key:62} {small[key]:>6} {large[key]:>11}")
    print(f"{'total API calls':62} {sum(small.values()):>6} {sum(large.values()):>11}")


if __name__ == "__main__":
    main()
