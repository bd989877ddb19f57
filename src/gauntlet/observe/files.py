"""The run's input files -> findings: globs expanded in the workspace, downloaded files taken as they are."""

from __future__ import annotations

import glob
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from gauntlet.classify import classify
from gauntlet.config import Config
from gauntlet.errors import InputError
from gauntlet.ingest import IngestResult, ingest_paths
from gauntlet.ingest.formats import detect_format
from gauntlet.ingest.limits import DEFAULT_LIMITS
from gauntlet.models import InputProblem, evolve

if TYPE_CHECKING:
    from gauntlet.ingest.junit import TestIds

__all__ = ["as_run_sees_them", "expand", "read_findings", "read_test_ids"]


def expand(
    name: str, patterns: Iterable[str], root: Path, *, confined: bool = True
) -> tuple[list[Path], list[InputProblem]]:
    """Files matching the globs of the input ``name`` (relative to ``root``), sorted, each once; and a
    misconfigured problem for each pattern that matches no file, or (``confined``) only files outside ``root``."""
    found: dict[Path, None] = {}
    problems: list[InputProblem] = []
    inside = root.resolve()
    for pattern in patterns:
        matched = outside = 0
        for match in sorted(glob.glob(pattern, root_dir=root, recursive=True)):
            path = root / match
            if confined and not path.resolve().is_relative_to(inside):
                outside += 1  # `../`, an absolute path or a link out: not the workspace's to read
            elif path.is_file():
                found[path] = None
                matched += 1
        if matched:
            continue
        why = "names files outside the workspace" if outside else "matches no file in the workspace"
        message = f"input `{name}`: the pattern `{pattern}` {why}"
        problems.append(InputProblem(path=pattern, level="error", message=message, misconfigured=True))
    return list(found), problems


def read_findings(logs: Iterable[Path], findings: Iterable[Path], root: Path) -> IngestResult:
    """The unclassified findings of CI logs (read as logs) and findings files (format detected).

    One unreadable file never stops the others (DESIGN §6): it is one of the result's
    ``problems``, which the run shows in the job summary and the run report.

    :param root: the workspace, which finding paths are made relative to.
    :raises InputError: no input could be read at all.
    """
    from_logs = ingest_paths(logs, "log", root=root)
    from_files = ingest_paths(findings, "auto", root=root)
    result = IngestResult(
        findings=from_logs.findings + from_files.findings,
        problems=from_logs.problems + from_files.problems,
        inputs=from_logs.inputs + from_files.inputs,
    )
    if result.nothing_read:
        raise InputError("; ".join(problem.message for problem in result.problems))
    return result


def as_run_sees_them(result: IngestResult, config: Config, *, on_default_branch: bool) -> IngestResult:
    """The result with its findings classified and merged, exactly as the run acts on them.

    ``gauntlet ingest`` prints this (DESIGN §8), so what it shows is what ``gauntlet run`` decides on.

    :param on_default_branch: classify as a run on the default branch (a critical there is P0).
    """
    findings = classify(result.findings, config, on_default_branch=on_default_branch)
    return evolve(result, findings=tuple(findings))


def read_test_ids(findings: Iterable[Path], root: Path) -> TestIds:
    """The passing (and passed-on-retry) test ids of the JUnit reports among the findings files.

    Read after :func:`read_findings` has accepted the same files; a file that turns out unreadable now
    adds nothing rather than failing the run (its findings are what matter).
    """
    # Here, not at the top: `gauntlet ingest` imports this module for as_run_sees_them, and a log-only
    # ingest should not pay for the XML readers' imports (docs/ci-logs.md, start-up).
    from gauntlet.ingest.junit import TestIds
    from gauntlet.ingest.junit import read_test_ids as junit_test_ids

    passed: list[str] = []
    flaky: list[str] = []
    for path in findings:
        try:
            with path.open("rb") as stream:
                if detect_format(stream.read(64 * 1024)).format != "junit":
                    continue
                stream.seek(0)
                ids = junit_test_ids(stream, str(path), DEFAULT_LIMITS, root=str(root.resolve()))
        except (OSError, InputError):
            continue
        passed.extend(ids.passed)
        flaky.extend(ids.flaky)
    return TestIds(passed=tuple(dict.fromkeys(passed)), flaky=tuple(dict.fromkeys(flaky)))
