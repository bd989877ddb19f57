"""The run's input files -> findings: globs expanded in the workspace, downloaded files taken as they are."""

from __future__ import annotations

import glob
from collections.abc import Iterable
from pathlib import Path

from gauntlet.ingest import ingest_file
from gauntlet.models import Finding

__all__ = ["expand", "read_findings"]


def expand(patterns: Iterable[str], root: Path) -> list[Path]:
    """Files matching the globs (relative to ``root``), sorted, each once."""
    found: dict[Path, None] = {}
    for pattern in patterns:
        for match in sorted(glob.glob(pattern, root_dir=root, recursive=True)):
            path = root / match
            if path.is_file():
                found[path] = None
    return list(found)


def read_findings(logs: Iterable[Path], findings: Iterable[Path], root: Path) -> list[Finding]:
    """The unclassified findings of CI logs (read as logs) and findings files (format detected).

    :param root: the workspace, which finding paths are made relative to.
    :raises InputError: a file is unusable.
    """
    found: list[Finding] = []
    for path in logs:
        found.extend(ingest_file(path, "log", root=root))
    for path in findings:
        found.extend(ingest_file(path, "auto", root=root))
    return found
