"""Reading input files: each file's format, its reader, its findings redacted; many files, one bad one aside.

:func:`ingest_paths` reads many inputs; one that cannot be read becomes an
:class:`~gauntlet.ingest.result.InputProblem` of the :class:`~gauntlet.ingest.result.IngestResult`
while every other input is still read.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import BinaryIO, cast

from gauntlet.errors import InputError
from gauntlet.ingest.formats import HEAD_BYTES, Format, detect_format, reader_for
from gauntlet.ingest.limits import DEFAULT_LIMITS, Limits
from gauntlet.ingest.log.prefetch import Ahead
from gauntlet.ingest.paths import Checkout
from gauntlet.ingest.redact import MaskWatch, redact_finding
from gauntlet.ingest.result import IngestResult, InputProblem, UnknownFormat
from gauntlet.models import Finding
from gauntlet.untrusted import Masks

__all__ = ["ingest_file", "ingest_paths"]


def ingest_file(
    path: Path,
    fmt: Format = "auto",
    limits: Limits = DEFAULT_LIMITS,
    *,
    root: Path | None = None,
    checkout: Checkout | None = None,
    ahead: Ahead | None = None,
) -> Iterator[Finding]:
    """Yield the findings of one file.

    :param path: the file to read.
    :param fmt: its format, or ``auto`` to detect it from the content.
    :param limits: caps on what the file may cost.
    :param root: the repository checkout; absolute paths under it become repository-relative.
    :param checkout: the checkout with its files (``ingest --repo-root``): a log's places are preferred there.
    :param ahead: the read-ahead child started for this file if it is a big log
        (:func:`~gauntlet.ingest.log.prefetch.read_ahead_paths`), for the log's scan to take.
    :raises InputError: the file cannot be read, is of no known format (``auto``:
        :class:`UnknownFormat`), does not
        look like the forced format, or is not valid in its format.
    """
    try:
        stream = path.open("rb")
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    with stream:
        try:
            head = stream.read(HEAD_BYTES)
            stream.seek(0)
        except OSError as exc:  # a directory opens on some systems but does not read
            raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
        fmt = _checked_format(path, fmt, head)
        # Every finding leaves redacted, with the masks the whole file registered (DESIGN §6): findings
        # are held until the end, so a value masked below a finding is hidden in it too (at most
        # ``max_findings`` of them are kept anyway).
        masks = Masks()
        if fmt == "log":
            # Lazily, as reader_for does (it pulls every parser). The scanner takes ``::add-mask::``
            # lines from its prefilter pass, at no extra cost.
            from gauntlet.ingest.log import read_log

            found = list(read_log(stream, str(path), limits, masks=masks, checkout=checkout, ahead=ahead))
        else:
            watch = MaskWatch(stream, masks)
            reader = reader_for(fmt, root=str(root.resolve()) if root else None)
            found = list(reader(cast(BinaryIO, watch), str(path), limits))
            watch.finish()
    for finding in found:
        yield redact_finding(finding, masks)


def _checked_format(path: Path, fmt: Format, head: bytes) -> Format:
    """The format to read ``path`` with: detected for ``auto``, else the forced one if the content agrees."""
    detection = detect_format(head)
    if fmt == "auto":
        if detection.format is None:
            raise UnknownFormat(f"{path}: skipped: not a findings format Gauntlet reads (found {detection.found})")
        return detection.format
    # A log is any text, so forcing `log` always agrees; anything else must look like what was asked for.
    if fmt not in ("log", detection.format):
        raise InputError(f"{path}: --format {fmt} given, but the file is {detection.found}")
    return fmt


def ingest_paths(
    paths: Iterable[Path],
    fmt: Format = "auto",
    limits: Limits = DEFAULT_LIMITS,
    *,
    root: Path | None = None,
    checkout: Checkout | None = None,
    ahead: Mapping[Path, Ahead] | None = None,
) -> IngestResult:
    """Read every file; one that cannot be read is reported and the others are still read.

    :param paths: the inputs, in the order their findings are wanted.
    :param fmt: the format of every input, or ``auto`` to detect each.
    :param limits: caps per file.
    :param root: the repository checkout (see :func:`ingest_file`).
    :param checkout: the checkout with its files (see :func:`ingest_file`).
    :param ahead: the read-ahead children already started, by path (see :func:`ingest_file`); the first
        reading of a path takes its child.
    :returns: the findings in file order and a problem per input that could not be read.
    """
    findings: list[Finding] = []
    problems: list[InputProblem] = []
    count = 0
    waiting = dict(ahead or {})
    for path in paths:
        count += 1
        child = waiting.pop(path, None)
        try:
            findings.extend(ingest_file(path, fmt, limits, root=root, checkout=checkout, ahead=child))
        except InputError as exc:
            level = "warning" if isinstance(exc, UnknownFormat) else "error"
            problems.append(InputProblem(path=str(path), level=level, message=str(exc)))
        finally:
            if child is not None:
                child.close()  # ended with the scan that took it, else here (a file that turned out no log)
    return IngestResult(findings=tuple(findings), problems=tuple(problems), inputs=count)
