"""``gauntlet demo``: play a pull request's story on bundled real inputs, with no token and no network.

Two iterations of PR #7: the first fails real pytest runs and carries review
findings; the second pushes a fix. The demo prints each decision and the sticky
comment Gauntlet would post, and leaves the state and rendered bodies in a folder.
"""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from gauntlet.config import Config
from gauntlet.effects.local import LocalBackend
from gauntlet.pipeline import observe, run
from gauntlet.settings import Settings
from gauntlet.state.local import LocalStore

__all__ = ["play"]

DATA = Path(__file__).parent / "data"
_START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
_SHAS = ["1111111a9d3c4e5f60718293a4b5c6d7e8f90a1b", "2222222b8e4d5f6a71829304b5c6d7e8f90a1b2c"]


def play(out: Path | None = None) -> int:
    """Run the story and print it; ``out`` keeps the state folder (a temporary one otherwise)."""
    if out is None:
        with tempfile.TemporaryDirectory(prefix="gauntlet-demo-") as folder:
            return _story(Path(folder))
    return _story(out)


def _story(folder: Path) -> int:
    state_dir = folder / "state"
    print(f"Gauntlet demo: PR #7 in demo/calculator, state in {state_dir}\n")
    for number, sha in enumerate(_SHAS, start=1):
        event = folder / f"event-{number}.json"
        event.write_text(json.dumps(_pull_request_event(sha)), encoding="utf-8")
        settings = Settings(
            event_name="pull_request",
            event_path=event,
            workspace=DATA,
            logs=(f"pytest-iteration-{number}.log",),
            findings=(f"review-iteration-{number}.json",),
            state_dir=state_dir,
            run_id=str(1000 + number),
        )
        config = Config()
        report = run(
            observe(settings, config),
            config,
            LocalStore(state_dir),
            LocalBackend(state_dir / "out"),
            now=_START + timedelta(hours=number),
            sleep=lambda _: None,
            clock=lambda: 0.0,
        )
        decision = report.decision
        assert decision is not None
        print(f"── Iteration {decision.iteration} on {sha[:7]}: {decision.action}")
        print(f"   {decision.criticals} critical, {decision.majors} major, {decision.minors} minor")
        print(f"   recovery: {report.recovery.action} — {report.recovery.reason}")
        print(f"   health:   {report.health.status}")
        for effect in report.effects:
            print(f"   {effect.status:9} {effect.key}")
        print()
    comment = (state_dir / "out" / "pr-comment-7.md").read_text(encoding="utf-8")
    print("The sticky PR comment after iteration 2:\n")
    print(comment)
    print(f"Rendered bodies are in {state_dir / 'out'}")
    return 0


def _pull_request_event(sha: str) -> dict[str, object]:
    return {
        "action": "synchronize",
        "number": 7,
        "pull_request": {
            "number": 7,
            "user": {"login": "octo-dev"},
            "head": {"sha": sha, "ref": "fix-calculator"},
            "base": {"sha": "0" * 40, "ref": "main"},
        },
        "repository": {"full_name": "demo/calculator", "default_branch": "main"},
    }
