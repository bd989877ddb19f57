"""pre-commit: ``hook-name....Failed`` with ``- hook id: x`` under it.

A hook's own output (ruff's or flake8's lines) explains the failure when a
parser knows it; the hook line is the fallback for hooks that only fix files
(trailing-whitespace, end-of-file-fixer) or print nothing we recognise.
"""

from __future__ import annotations

import re

from gauntlet.ingest.log.base import BlockParser
from gauntlet.ingest.log.draft import Draft, Line, Sink

__all__ = ["PreCommit"]

_HOOK = re.compile(r"^(\S.*?)\.{3,}(?:\([^)]*\))?Failed$")
_HOOK_ID = re.compile(r"^- hook id: (\S+)$")


class PreCommit(BlockParser):
    """One fallback per failed pre-commit hook, named by its hook id (the open block: until it is read)."""

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
