"""Who owns the paths an observation names (the repository's ``CODEOWNERS``, read from the checkout).

Self-healing groups defects by component: the configured ``components`` first, then the code owners of
the path (``@org/payments`` is a better component than a folder name), then the path's first segments
(:func:`gauntlet.engine.defects.component_of`). An accepted-risk issue is assigned to the users who own
its finding's path (:func:`assignees_of`): the PR run keeps them in the PR's record, so the command that
files the issue, in a workflow that may not check the repository out, needs no lookup. The file is read
from the workspace, where the workflow checked the repository out: no API call.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from gauntlet.github.codeowners import CODEOWNERS_PATHS, MAX_ASSIGNEES, assignable, owners_for, parse_codeowners
from gauntlet.models import MAX_ASSIGNED_PATHS, Finding

__all__ = ["MAX_OWNED_PATHS", "assignees_of", "owners_of"]

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


def assignees_of(
    workspace: Path, findings: Iterable[Finding], changed: Iterable[str] = ()
) -> dict[str, tuple[str, ...]]:
    """Each finding path's assignable code owners (users, not teams or e-mails; at most :data:`MAX_ASSIGNEES`).

    Only paths with owners are named; empty without a readable file, and empty when the change itself edits a
    ``CODEOWNERS`` file: a pull request (a fork's too) does not get to choose whom its accepted risks are
    assigned to. At most :data:`MAX_ASSIGNED_PATHS` paths.

    :param changed: the files the observed change touched.
    """
    text = _read(workspace)
    if text is None or any(path.removeprefix("/") in CODEOWNERS_PATHS for path in changed):
        return {}
    rules = parse_codeowners(text)
    assigned: dict[str, tuple[str, ...]] = {}
    for path in sorted({f.path for f in findings if f.path})[:MAX_ASSIGNED_PATHS]:
        users = assignable(owners_for(rules, path))[:MAX_ASSIGNEES]
        if users:
            assigned[path] = users
    return assigned


def _read(workspace: Path) -> str | None:
    for relative in CODEOWNERS_PATHS:
        path = workspace / relative
        try:
            if path.is_file() and path.stat().st_size <= MAX_CODEOWNERS_BYTES:
                return path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue  # unreadable: the next place GitHub looks, else no owners
    return None
