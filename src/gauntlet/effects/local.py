"""Local mode: effects become files under ``<state-dir>/out/`` (what would be posted)."""

from __future__ import annotations

import re
from pathlib import Path

from gauntlet.effects.base import EffectResult, Existing
from gauntlet.effects.bodies import body_of
from gauntlet.effects.models import Effect

__all__ = ["LocalBackend"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class LocalBackend:
    """Write each effect's body to ``out/<key>.md``; an identical body is left alone."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir

    def path_for(self, effect: Effect) -> Path:
        """The file an effect is written to."""
        return self.out_dir / (_UNSAFE.sub("-", effect.key) + ".md")

    def find(self, effect: Effect) -> Existing | None:
        """The file written for this key by an earlier run, if any."""
        path = self.path_for(effect)
        if not path.exists():
            return None
        return Existing(url=str(path), body=path.read_text(encoding="utf-8"))

    def perform(self, effect: Effect, existing: Existing | None) -> EffectResult:
        """Write the body unless the same text is already there."""
        body = body_of(effect)
        path = self.path_for(effect)
        if existing is not None and existing.body == body:
            status = "unchanged"
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body, encoding="utf-8")
            status = "updated" if existing else "created"
        return EffectResult(type=effect.type, key=effect.key, status=status, url=str(path))
