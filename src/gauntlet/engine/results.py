"""Fold what the effects produced back into state, so the next run finds them by key."""

from __future__ import annotations

from collections.abc import Iterable

from gauntlet.effects.base import EffectResult
from gauntlet.state.models import State

__all__ = ["record_results"]


def record_results(state: State, results: Iterable[EffectResult]) -> State:
    """Remember the number of every created or found effect in the index (and the PR's comment id)."""
    entries = dict(state.index.entries)
    pr = state.pr
    for result in results:
        if result.number is None:
            continue
        entries[result.key] = result.number
        if pr is not None and result.key == f"pr-comment:{pr.number}":
            pr = pr.model_copy(update={"comment_id": result.number})
    if entries == state.index.entries and pr is state.pr:
        return state
    return state.model_copy(update={"index": state.index.model_copy(update={"entries": entries}), "pr": pr})
