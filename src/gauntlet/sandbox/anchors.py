"""Where a review comment sits in a pull request's diff now: its line, its diff position, or outdated.

GitHub anchors a review comment to a line of the diff it was written on and carries it forward as the branch
moves: ``line`` is where it sits on the head now, ``position`` the number of lines below the file's first
``@@`` header in today's diff, and both turn ``null`` once the commented line has left the diff (the comment
is *outdated*; ``original_line`` and ``original_position`` keep where it was written). See
https://docs.github.com/rest/pulls/comments.

The sandbox follows a line through later commits the way ``difflib`` pairs unchanged lines: a commented
line that a push changed or deleted is outdated, one that only moved keeps its comment.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from gauntlet.sandbox.git import GitRepo

__all__ = ["Anchor", "anchor", "diff_positions", "follow_line"]

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(?P<start>\d+)(?:,\d+)? @@")


@dataclass(frozen=True)
class Anchor:
    """A comment's place in today's diff (``line`` and ``position`` are ``None`` when it is outdated)."""

    line: int | None
    position: int | None
    diff_hunk: str


def diff_positions(patch: str) -> dict[int, int]:
    """Head-side line number -> diff position, for every line a unified diff shows on the right side.

    The first ``@@`` header is position 0; later headers count as lines, as GitHub counts them.
    """
    positions: dict[int, int] = {}
    position, line = 0, 0
    for index, text in enumerate(patch.splitlines()):
        header = _HUNK.match(text)
        if header:
            position += 1 if index else 0
            line = int(header.group("start"))
            continue
        position += 1
        if text.startswith(("-", "\\")):
            continue
        positions[line] = position
        line += 1
    return positions


def _hunk_up_to(patch: str, position: int) -> str:
    """The diff hunk as GitHub's ``diff_hunk`` shows it: from the hunk's header down to the commented line."""
    lines = patch.splitlines()[: position + 1]
    start = max((i for i, text in enumerate(lines) if _HUNK.match(text)), default=0)
    return "\n".join(lines[start:])


def follow_line(old: str, new: str, line: int) -> int | None:
    """Line ``line`` of ``old`` in ``new`` when it is unchanged there (moved is fine), else ``None``."""
    matcher = difflib.SequenceMatcher(a=old.splitlines(), b=new.splitlines(), autojunk=False)
    for tag, a_start, a_end, b_start, _ in matcher.get_opcodes():
        if tag == "equal" and a_start < line <= a_end:
            return b_start + (line - a_start)
    return None


def _text_at(git: GitRepo, commit: str, path: str) -> str | None:
    entries = [e for e in git.ls_tree(commit, path=path) if e.type == "blob"]
    return git.read_blob(entries[0].sha).decode("utf-8", "replace") if entries else None


def anchor(git: GitRepo, *, merge_base: str | None, head: str, path: str, commit: str, line: int) -> Anchor:
    """Where the comment written on ``line`` of ``path`` at ``commit`` sits in the diff ``merge_base..head``."""
    current: int | None = line
    if commit != head:
        old, new = _text_at(git, commit, path), _text_at(git, head, path)
        current = None if old is None or new is None else line if old == new else follow_line(old, new, line)
    patch = git.patch(merge_base, head, path)
    position = diff_positions(patch).get(current) if current is not None else None
    if current is None or position is None:
        return Anchor(line=None, position=None, diff_hunk="")
    return Anchor(line=current, position=position, diff_hunk=_hunk_up_to(patch, position))
