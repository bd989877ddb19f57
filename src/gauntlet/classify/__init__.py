"""Classify: give every finding its final severity and priority, and merge duplicates.

Pure: tables and configuration in, findings out. No I/O here (a test checks the imports).
The order matters: severity overrides apply to what each source said, then
duplicates merge (keeping the worst severity), then priorities are set from the
defaults (DESIGN §4) and raised by context flags.
"""

from __future__ import annotations

from collections.abc import Iterable

from gauntlet.classify.components import component_of
from gauntlet.classify.defaults import default_priority
from gauntlet.classify.merge import merge_findings
from gauntlet.classify.overrides import apply_overrides, raise_priority
from gauntlet.config import Config
from gauntlet.models import Finding, evolve

__all__ = ["classify", "component_of"]


def classify(findings: Iterable[Finding], config: Config, *, on_default_branch: bool) -> list[Finding]:
    """Return one finding per defect, with severity and priority set, in first-seen order.

    :param findings: what ingestion produced, from every source.
    :param config: the repository configuration (severity overrides, components, context flags).
    :param on_default_branch: critical findings on the default branch are P0.
    """
    overridden = (apply_overrides(f, config.severity) for f in findings)
    classified: list[Finding] = []
    for finding in merge_findings(overridden):
        priority = default_priority(finding.severity, finding.kind, on_default_branch=on_default_branch)
        priority = raise_priority(
            finding, priority, config.context, config.components, on_default_branch=on_default_branch
        )
        classified.append(evolve(finding, priority=priority))
    return classified
