"""Classify: give every finding its final severity and priority, and merge duplicates.

Pure: tables and configuration in, findings out. No I/O here (a test checks the imports).
"""

from __future__ import annotations

from collections.abc import Iterable

from gauntlet.classify.defaults import default_priority
from gauntlet.config import Config
from gauntlet.models import Finding

__all__ = ["classify"]


def classify(findings: Iterable[Finding], config: Config, *, on_default_branch: bool) -> list[Finding]:
    """Return the findings with priorities set, one per fingerprint, in first-seen order.

    :param findings: what ingestion produced, from every source.
    :param config: the repository configuration (severity overrides, context flags).
    :param on_default_branch: critical findings on the default branch are P0.
    """
    del config  # severity overrides and context flags arrive with the formats issue
    merged: dict[str, Finding] = {}
    for finding in findings:
        if finding.fingerprint in merged:
            continue
        priority = default_priority(finding.severity, finding.kind, on_default_branch=on_default_branch)
        merged[finding.fingerprint] = finding.model_copy(update={"priority": priority})
    return list(merged.values())
