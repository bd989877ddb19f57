"""Dry run: every effect is reported as planned and nothing is touched."""

from __future__ import annotations

from gauntlet.effects.base import EffectResult, Existing
from gauntlet.effects.models import Effect

__all__ = ["DryRunBackend"]


class DryRunBackend:
    """Finds nothing and performs nothing."""

    def find(self, effect: Effect) -> Existing | None:
        """Nothing is looked up in a dry run."""
        del effect
        return None

    def perform(self, effect: Effect, existing: Existing | None) -> EffectResult:
        """Report the effect as planned."""
        del existing
        return EffectResult(type=effect.type, key=effect.key, status="planned")
