"""Checkstyle XML (checkstyle, eslint's checkstyle formatter, golangci-lint, ktlint, phpcs, shellcheck).

``<file name=...><error line column severity message source/></file>``; the
``source`` names the check, and its prefix often names the tool
(``eslint.rules.no-eval``, ``ShellCheck.SC2086``, ``com.puppycrawl...Check``).
https://checkstyle.sourceforge.io/ (report format of ``-f xml``)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import BinaryIO

from gauntlet.ingest.limits import Limits
from gauntlet.ingest.paths import repo_relative
from gauntlet.ingest.structured import Fingerprints, kind_for_tool, logger, one_line
from gauntlet.ingest.values import xml_position
from gauntlet.ingest.xml import iter_elements, local_name
from gauntlet.models import Finding, Severity

__all__ = ["read_checkstyle", "split_source"]

_SEVERITIES: dict[str, Severity] = {"error": "major", "warning": "minor", "info": "nitpick"}


def split_source(source: str | None) -> tuple[str | None, str | None]:
    """Return ``(tool, rule)`` from a checkstyle ``source`` attribute."""
    if not source:
        return None, None
    if source.startswith("eslint.rules."):
        return "eslint", source.removeprefix("eslint.rules.")
    if source.lower().startswith("shellcheck."):
        return "shellcheck", source.split(".", 1)[1]
    if source.startswith("com.puppycrawl.tools.checkstyle."):
        return "checkstyle", re.sub(r"Check$", "", source.rsplit(".", 1)[-1])
    return None, source


def read_checkstyle(stream: BinaryIO, name: str, limits: Limits, *, root: str | None = None) -> Iterator[Finding]:
    """Yield a finding per ``<error>`` whose severity is not ``ignore``.

    :param root: the repository's absolute path, to make absolute file names relative.
    :raises InputError: not well-formed or refused XML, or beyond the size limits.
    """
    fingerprints = Fingerprints()
    emitted = 0
    for error, ancestors in iter_elements(stream, name, max_bytes=limits.max_document_bytes, tags=frozenset({"error"})):
        severity = _SEVERITIES.get(error.get("severity", "error").lower())
        if severity is None:  # "ignore"
            continue
        file = next((a for a in reversed(ancestors) if local_name(a.tag) == "file"), None)
        path = repo_relative(file.get("name") if file is not None else None, root=root)
        tool, rule = split_source(error.get("source"))
        message = one_line(_without_rule_suffix(error.get("message", ""), rule) or rule or "checkstyle error", limits)
        kind = kind_for_tool(tool)
        yield Finding(
            fingerprint=fingerprints("checkstyle", tool, kind, rule, path, message=message),
            source="checkstyle",
            tool=tool,
            kind=kind,
            severity=severity,
            path=path,
            line=xml_position(error.get("line")) if path else None,
            column=xml_position(error.get("column")) if path else None,
            rule=rule[:200] if rule else None,
            message=message,
        )
        emitted += 1
        if emitted >= limits.max_findings:
            logger.warning("%s: stopped after %d findings", name, emitted)
            return


def _without_rule_suffix(message: str, rule: str | None) -> str:
    # eslint appends " (rule-id)" to the message; the rule has its own field.
    if rule and message.rstrip().endswith(f"({rule})"):
        return message.rstrip()[: -len(rule) - 2].rstrip()
    return message
