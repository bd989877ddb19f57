"""The repository-wide state files: defects, proposals, learnings, bandit and the effect index.

Each is small and bounded; the engine parts that own them extend these models.
"""

from __future__ import annotations

from gauntlet.state.base import StateFile

__all__ = ["BanditTable", "DefectLog", "EffectIndex", "LearningBook", "ProposalBook"]


class DefectLog(StateFile):
    """``v1/defects.json``: recurring-defect counts per (component, defect type)."""


class ProposalBook(StateFile):
    """``v1/proposals.json``: self-healing proposals and their status."""


class LearningBook(StateFile):
    """``v1/learnings.json``: learned rules and failure→fix pairs."""


class BanditTable(StateFile):
    """``v1/bandit.json``: Beta(alpha, beta) per (context, rule)."""


class EffectIndex(StateFile):
    """``v1/index.json``: effect key → issue, PR or comment number, so effects are found again."""

    entries: dict[str, int] = {}
