"""What the demo prints and keeps: a numbered step per part of the story, where to look, and the final table.

Bodies are kept as GitHub (the sandbox) returns them, never as Gauntlet planned
them, so the folder shows what a person would read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from gauntlet.demo.world import ActionRun

__all__ = ["Narrator", "Tally"]


@dataclass(frozen=True)
class Tally:
    """What Gauntlet did over the whole story, counted on the sandbox afterwards."""

    runs: int
    comments: int
    comment_edits: int
    check_runs: int
    issues: int
    pull_requests: int
    state_commits: int
    api_calls: int

    def rows(self) -> list[tuple[str, str]]:
        """``(what, how many)`` rows for the summary table."""
        return [
            ("action runs (one per GitHub event)", str(self.runs)),
            ("PR comments written (sticky and replies)", str(self.comments)),
            ("comment edits in place", str(self.comment_edits)),
            ("check runs", str(self.check_runs)),
            ("issues filed", str(self.issues)),
            ("pull requests opened (revert, proposal)", str(self.pull_requests)),
            ("commits on the gauntlet-state branch", str(self.state_commits)),
            ("GitHub API calls made by Gauntlet", str(self.api_calls)),
        ]


@dataclass
class Narrator:
    """Prints the story to ``out`` and writes bodies into ``folder``."""

    out: TextIO
    folder: Path
    saved: list[Path] = field(default_factory=list)

    def step(self, number: int, title: str) -> None:
        """Start a numbered step."""
        self.out.write(f"\n{number}. {title}\n")

    def say(self, text: str) -> None:
        """One indented line of the story."""
        self.out.write(f"   {text}\n")

    def look(self, what: str, url: str) -> None:
        """Where to look on the sandbox."""
        self.out.write(f"   → {what}: {url}\n")

    def unavailable(self, what: str, why: str) -> None:
        """A part of the story the code cannot play yet: said plainly, never faked."""
        self.out.write(f"   ✗ not yet available: {what} ({why})\n")

    def gauntlet(self, run: ActionRun) -> None:
        """What the action decided (from its outputs), and each effect it applied."""
        outputs, report = run.outputs, run.report
        parts = []
        if outputs.get("action"):
            counts = f"{outputs['criticals']} critical, {outputs['majors']} major, {outputs['minors']} minor"
            iteration = outputs.get("iteration", "0")
            parts.append(f"{outputs['action']} (iteration {iteration}: {counts})" if iteration != "0" else counts)
        parts += [f"recovery {outputs.get('recovery', '-')}", f"health {outputs.get('health', '-')}"]
        if report.get("proposals"):
            parts.append(f"proposals {', '.join(report['proposals'])}")
        calls = report.get("api_calls", 0)
        self.say(f"Gauntlet ran on `{run.event}` (exit {run.code}, {calls} API calls): {'; '.join(parts)}")
        for effect in run.effects:
            if effect["type"] != "write_summary":
                self.say(f"   {effect['status']:>9}  {effect['type']:<18} {effect['key']}")

    def keep(self, name: str, body: str) -> Path:
        """Write a body as fetched back from the sandbox; returns its path."""
        path = self.folder / name
        path.write_text(body, encoding="utf-8")
        self.saved.append(path)
        self.out.write(f"     saved {path}\n")
        return path

    def table(self, tally: Tally) -> None:
        """The closing table of what Gauntlet did."""
        rows = tally.rows()
        width = max(len(what) for what, _ in rows)
        self.out.write("\nWhat Gauntlet did\n")
        self.out.write(f"   {'-' * (width + 8)}\n")
        for what, count in rows:
            self.out.write(f"   {what:<{width}}  {count:>6}\n")
        self.out.write(f"   {'-' * (width + 8)}\n")

    def closing(self, elapsed: float, notes: Sequence[str]) -> None:
        """Where the bodies are, how long it took, and what could not be shown."""
        self.out.write(f"\nRendered bodies (as fetched back from the sandbox) are in {self.folder}\n")
        self.out.write(f"Gauntlet's state branch, checked out: {self.folder / 'state'}\n")
        self.out.write(
            f"The dashboard of this story (gauntlet report --html): {self.folder / 'dashboard' / 'index.html'}\n"
        )
        for note in notes:
            self.out.write(f"Not yet available: {note}\n")
        self.out.write(f"Done in {elapsed:.1f} s, with no token and no network.\n")
