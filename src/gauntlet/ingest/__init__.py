"""Ingest: turn files (logs, findings documents) into :class:`~gauntlet.models.Finding` s.

Streaming and bounded: logs are read line by line, structured files are capped
in size, and every reader obeys :class:`~gauntlet.ingest.limits.Limits`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO, cast

from gauntlet.errors import InputError
from gauntlet.ingest.formats import FORMATS, Format, detect_format, reader_for
from gauntlet.ingest.limits import DEFAULT_LIMITS, Limits
from gauntlet.ingest.redact import MaskWatch, redact_finding
from gauntlet.models import Finding
from gauntlet.untrusted import Masks

__all__ = ["FORMATS", "Format", "Limits", "ingest_file", "ingest_paths"]


def ingest_file(
    path: Path, fmt: Format = "auto", limits: Limits = DEFAULT_LIMITS, *, root: Path | None = None
) -> Iterator[Finding]:
    """Yield the findings of one file.

    :param path: the file to read.
    :param fmt: its format, or ``auto`` to detect it from the content.
    :param limits: caps on what the file may cost.
    :param root: the repository checkout; absolute paths under it become repository-relative.
    :raises InputError: the file cannot be read or is not valid in its format.
    """
    try:
        stream = path.open("rb")
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    with stream:
        if fmt == "auto":
            fmt = detect_format(stream.read(64 * 1024))
            stream.seek(0)
        # Every finding leaves redacted, with the masks the whole file registered (DESIGN §6): findings
        # are held until the end, so a value masked below a finding is hidden in it too (at most
        # ``max_findings`` of them are kept anyway).
        masks = Masks()
        if fmt == "log":
            from gauntlet.ingest.log import read_log  # lazily, as reader_for does: it pulls every parser

            # the scanner takes ``::add-mask::`` lines from its prefilter pass, at no extra cost
            found = list(read_log(stream, str(path), limits, masks=masks))
        else:
            watch = MaskWatch(stream, masks)
            reader = reader_for(fmt, root=str(root.resolve()) if root else None)
            found = list(reader(cast(BinaryIO, watch), str(path), limits))
            watch.finish()
    for finding in found:
        yield redact_finding(finding, masks)


def ingest_paths(paths: Iterable[Path], fmt: Format = "auto", limits: Limits = DEFAULT_LIMITS) -> list[Finding]:
    """Read every file and return all findings, in file order."""
    findings: list[Finding] = []
    for path in paths:
        findings.extend(ingest_file(path, fmt, limits))
    return findings
