"""``gauntlet demo``: a whole story on the built-in sandbox, with real ``git`` and real tool output, no token and
no network.

Gauntlet runs through the action's own entry (``INPUT_*``/``GITHUB_*`` pointing at
the sandbox) for each GitHub event of the story in :mod:`gauntlet.demo.story`;
:mod:`gauntlet.demo.world` sets up the sandbox and the people, and
:mod:`gauntlet.demo.printing` prints each step, keeps the bodies and draws the table.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import TextIO

from gauntlet.dashboard import build_site
from gauntlet.demo.printing import Narrator, Tally
from gauntlet.demo.story import STEPS, Story
from gauntlet.demo.tally import count
from gauntlet.demo.world import REPOSITORY, World
from gauntlet.github.gitstore import DEFAULT_STATE_BRANCH as STATE_BRANCH
from gauntlet.sandbox import Sandbox

__all__ = ["play", "tell"]


def play(out: Path | None = None) -> int:
    """Play the story and print it; bodies go to ``out`` (a new temporary folder, kept and printed, if none)."""
    folder = Path(tempfile.mkdtemp(prefix="gauntlet-demo-")) if out is None else out
    with Sandbox.start() as sandbox:
        tell(sandbox, folder, sys.stdout)
    return 0


def tell(sandbox: Sandbox, folder: Path, out: TextIO) -> tuple[Story, Tally]:
    """Play every step on ``sandbox`` (fresh: the story creates its repository), writing the story to ``out``
    and the bodies into ``folder``.

    :returns: the story (what each step left) and the final tally, counted on the sandbox.
    """
    folder = folder.resolve()
    folder.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    narrator = Narrator(out=out, folder=folder)
    out.write(f"Gauntlet demo: {REPOSITORY} on a local sandbox GitHub at {sandbox.url}\n")
    out.write("(URLs below answer while the demo runs; the bodies stay in the folder afterwards)\n")
    with tempfile.TemporaryDirectory(prefix="gauntlet-demo-work-") as scratch:
        world = World(sandbox=sandbox, folder=Path(scratch))
        story = Story(world=world, narrator=narrator)
        try:
            for step in STEPS:
                step(story)
            tally = count(world)
            world.export_branch(STATE_BRANCH, folder / "state")
            build_site(folder / "state", folder / "dashboard")
        finally:
            world.close()
    narrator.table(tally)
    narrator.closing(time.monotonic() - started, story.notes)
    return story, tally
