"""pre-commit: ``hook-name....Failed`` with ``- hook id: x`` under it.

A hook's own output (ruff's or flake8's lines) explains the failure when a
parser knows it; the hook line is the fallback for hooks that only fix files
(trailing-whitespace, end-of-file-fixer) or print nothing we recognise.
"""

from __future__ import annotations

import re

from gauntlet.ingest.log.draft import Draft, Line, Sink

__all__ = ["PreCommit"]

_HOOK = re.compile(r"^(\S.*?)\.{3,}(?:\([^)]*\))?Failed$")
_HOOK_ID = re.compile(r"^- hook id: (\S+)$")


class PreCommit:
    """One fallback per failed pre-commit hook, named by its hook id."""

    def __init__(self) -> None:
        self._draft: Draft | None = None

    @property
    def active(self) -> bool:
        """True right after a failed hook's line, until its id is read."""
        return self._draft is not None

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line (see :class:`~gauntlet.ingest.log.draft.Parser`)."""
        number, text = line
        draft = self._draft
        if draft is not None:
            self._draft = None
            if match := _HOOK_ID.match(text):
                draft.rule, draft.end = match.group(1), number
                sink.emit(draft)
                return True
            sink.emit(draft)
        if text.endswith("Failed") and (hook := _HOOK.match(text)):
            message = f"pre-commit hook failed: {hook.group(1).strip()}"
            self._draft = Draft("pre-commit", "lint", message, number, number, role="fallback", rank=2)
            return True
        return False

    def close(self, sink: Sink) -> None:
        """Report a hook line cut off by the end of input."""
        draft, self._draft = self._draft, None
        if draft is not None:
            sink.emit(draft)
