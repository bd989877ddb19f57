"""``react``: an emoji reaction on a command comment (👀 on receipt, then 🚀 or 😕).

GitHub answers a repeated reaction with the existing one (200 instead of 201), so
creating is safe to repeat; the lookup only lets the report say ``unchanged``.
See https://docs.github.com/rest/reactions/reactions#create-reaction-for-an-issue-comment
"""

from __future__ import annotations

from gauntlet.effects.base import EffectResult, Existing
from gauntlet.effects.models import Effect, React
from gauntlet.github.backend import Hub

__all__ = ["ReactionHandler"]


class ReactionHandler:
    """Adds Gauntlet's reaction to a comment once."""

    def _path(self, hub: Hub, effect: React) -> str:
        return f"/repos/{hub.repo.full_name}/issues/comments/{effect.comment_id}/reactions"

    def find(self, hub: Hub, effect: Effect) -> Existing | None:
        """Gauntlet's reaction of this kind on the comment, if it is there (one call)."""
        assert isinstance(effect, React)
        reactions = hub.client.request("GET", self._path(hub, effect), params={"content": effect.content})
        for reaction in reactions:
            if str((reaction.get("user") or {}).get("login", "")).lower() == hub.bot_login.lower():
                return Existing(number=int(reaction["id"]))
        return None

    def perform(self, hub: Hub, effect: Effect, existing: Existing | None) -> EffectResult:
        """React, unless the reaction is already there."""
        assert isinstance(effect, React)
        if existing is not None:
            return EffectResult(type=effect.type, key=effect.key, status="unchanged")
        hub.client.request("POST", self._path(hub, effect), body={"content": effect.content})
        return EffectResult(type=effect.type, key=effect.key, status="created")
