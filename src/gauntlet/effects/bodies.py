"""The text of each effect, rendered from its template. Shared by every backend."""

from __future__ import annotations

from gauntlet.effects.models import Effect, SetCheck, UpsertComment, WriteSummary
from gauntlet.effects.render import render

__all__ = ["body_of"]


def body_of(effect: Effect) -> str:
    """Render the body an effect writes (a comment, a check summary, a job summary, outputs)."""
    match effect:
        case UpsertComment():
            return render("pr_comment.md.j2", view=effect.view, key=effect.key.split(":", 1)[1])
        case SetCheck():
            return render("check.md.j2", view=effect.view)
        case WriteSummary():
            return render("summary.md.j2", view=effect.view)
