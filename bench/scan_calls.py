"""The nightly scan opening proposal PRs, with its requests counted (``bench/api_calls.py`` prints it).

The demo's scan opens one MAJOR proposal, which is an issue, not a PR. Here the state branch holds defects that
recurred on two PRs in ``count`` components, each with a curated rule to promote, so the scan opens ``count``
MINOR proposal PRs on the repository's agent-rules file (``CLAUDE.md``: the scan looks for ``AGENTS.md``
first). Its budget is 12 calls plus 3 per proposal opened (issue 21).
"""

from __future__ import annotations

import io
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

from gauntlet.action.entry import run_action
from gauntlet.errors import GauntletError
from gauntlet.pipeline import Clock
from gauntlet.sandbox import Sandbox
from gauntlet.state.shared import DefectEntry, DefectLog

__all__ = ["scan_with_proposals"]

REPO = "octo/rules"
BOT = "github-actions[bot]"
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
#: Defect types with a rule each (``selfheal.curated_rules``), in the order proposals are numbered.
KINDS = ("lint", "type_error", "test_failure", "build_error")


def _config(count: int) -> str:
    lines = ["components:"]
    lines += [f"  part{n}: ['src/part{n}/**']" for n in range(count)]
    lines += ["selfheal:", "  curated_rules:"]
    lines += [f"    {kind}: ['Rule {n}: keep {kind} out of src/part{n}.']" for n, kind in enumerate(KINDS[:count])]
    return "\n".join(lines) + "\n"


def _defects(count: int) -> DefectLog:
    """A P1 defect in each component on two PRs: a recurrence that makes a MINOR proposal."""
    entries = [
        DefectEntry(
            at=NOW - timedelta(days=1, hours=pr),
            component=f"part{n}",
            defect_type=kind,
            priority="P1",
            fingerprint=f"{n:04x}{pr:012x}",
            place=f"pr:{pr}",
            summary=f"{kind} in src/part{n}/mod.py",
            path=f"src/part{n}/mod.py",
        )
        for n, kind in enumerate(KINDS[:count])
        for pr in (1, 2)
    ]
    return DefectLog(entries=entries)


def scan_with_proposals(count: int, *, crowd: int = 0) -> Counter[str]:
    """The requests of one scheduled scan that opens ``count`` proposal PRs (at most 4).

    :param crowd: PR records (each with an issue in the index) on the state branch besides the defects.
    """
    from api_calls import _crowd, action_env, tally

    with Sandbox.start() as sandbox, tempfile.TemporaryDirectory() as tmp:
        files = {"README.md": "# rules\n", "CLAUDE.md": "# Notes for agents\n\nBe brief.\n"}
        files |= {f"src/part{n}/mod.py": f"VALUE = {n}\n" for n in range(count)}
        sandbox.create_repo(REPO, files)
        sandbox.set_permission(REPO, BOT, "write")
        state = {"README.md": "state\n", "v1/defects.json": _defects(count).model_dump_json(indent=1) + "\n"}
        message = "gauntlet: seed\n\nGauntlet-Shared: v1/defects.json\nGauntlet-Shards: 0\n"
        sandbox.commit(REPO, state, message, branch="gauntlet-state")
        if crowd:
            _crowd(sandbox, crowd, repository=REPO)
        workspace = Path(tmp)
        (workspace / ".github").mkdir()
        (workspace / ".github" / "gauntlet.yml").write_text(_config(count), encoding="utf-8")
        payload = {"schedule": "17 3 * * *", "repository": {"full_name": REPO, "default_branch": "main"}}
        env = action_env(sandbox, workspace, "schedule", payload, 300, repository=REPO)
        sandbox.clear_requests()
        clock = Clock(now=NOW, sleep=time.sleep, monotonic=time.monotonic, throttle=False)
        out = io.StringIO()
        try:
            code = run_action(env, clock, out)
        except GauntletError as exc:
            print(f"scan failed: {exc}", file=sys.stderr)
            code = exc.exit_code
        requests = tally(sandbox.requests())
        opened = sum(1 for r in sandbox.requests() if r["method"] == "POST" and r["path"].endswith("/pulls"))
        if code != 0 or opened != count:
            print(f"scan: exit {code}, {opened} of {count} proposal PRs opened\n{out.getvalue()}", file=sys.stderr)
        return requests
