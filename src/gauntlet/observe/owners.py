"""Who owns the paths an observation names (the repository's ``CODEOWNERS``, read from the checkout).

Self-healing groups defects by component: the configured ``components`` first, then the code owners of
the path (``@org/payments`` is a better component than a folder name), then the path's first segments
(:func:`gauntlet.engine.defects.component_of`). The file is read from the workspace, where the workflow
checked the repository out: no API call.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from gauntlet.github.codeowners import CODEOWNERS_PATHS, owners_for, parse_codeowners
from gauntlet.models import Finding

__all__ = ["MAX_OWNED_PATHS", "owners_of"]

#: Paths an observation keeps owners for, at most (the findings' and the changed files').
MAX_OWNED_PATHS = 500
#: A CODEOWNERS file larger than this is not read (GitHub itself ignores files over 3 MB).
MAX_CODEOWNERS_BYTES = 3 * 1024 * 1024


def owners_of(workspace: Path, findings: Iterable[Finding], changed: Iterable[str] = ()) -> dict[str, str]:
    """Each named path's owner (the first of its ``CODEOWNERS`` owners); empty without a readable file."""
    text = _read(workspace)
    if text is None:
        return {}
    rules = parse_codeowners(text)
    paths = {p for f in findings for p in (f.path, f.test_id.split("::", 1)[0] if f.test_id else None) if p}
    paths.update(changed)
    owned: dict[str, str] = {}
    for path in sorted(paths)[:MAX_OWNED_PATHS]:
        owners = owners_for(rules, path)
        if owners:
            owned[path] = owners[0]
    return owned


def _read(workspace: Path) -> str | None:
    for relative in CODEOWNERS_PATHS:
        path = workspace / relative
        try:
            if path.is_file() and path.stat().st_size <= MAX_CODEOWNERS_BYTES:
                return path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue  # unreadable: the next place GitHub looks, else no owners
    return None
