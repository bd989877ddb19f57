"""The run's input files -> findings: globs expanded in the workspace, downloaded files taken as they are."""

from __future__ import annotations

import glob
from collections.abc import Iterable
from pathlib import Path

from gauntlet.errors import InputError
from gauntlet.ingest import ingest_file
from gauntlet.ingest.formats import detect_format
from gauntlet.ingest.junit import TestIds
from gauntlet.ingest.junit import read_test_ids as junit_test_ids
from gauntlet.ingest.limits import DEFAULT_LIMITS
from gauntlet.models import Finding

__all__ = ["expand", "read_findings", "read_test_ids"]


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


def read_test_ids(findings: Iterable[Path], root: Path) -> TestIds:
    """The passing (and passed-on-retry) test ids of the JUnit reports among the findings files.

    Read after :func:`read_findings` has accepted the same files; a file that turns out unreadable now
    adds nothing rather than failing the run (its findings are what matter).
    """
    passed: list[str] = []
    flaky: list[str] = []
    for path in findings:
        try:
            with path.open("rb") as stream:
                if detect_format(stream.read(64 * 1024)) != "junit":
                    continue
                stream.seek(0)
                ids = junit_test_ids(stream, str(path), DEFAULT_LIMITS, root=str(root.resolve()))
        except (OSError, InputError):
            continue
        passed.extend(ids.passed)
        flaky.extend(ids.flaky)
    return TestIds(passed=tuple(dict.fromkeys(passed)), flaky=tuple(dict.fromkeys(flaky)))
