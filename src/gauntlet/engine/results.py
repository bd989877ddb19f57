"""Fold what the effects produced back into state, so the next run finds them by key."""

from __future__ import annotations

from collections.abc import Iterable

from gauntlet.effects.base import EffectResult
from gauntlet.state.models import State

__all__ = ["record_results"]


def record_results(state: State, results: Iterable[EffectResult]) -> State:
    """Remember the number of every created or found effect in the index.

    The PR record learns its comment id and the issue of each accepted risk, which the
    comment planned in the same run could not know yet (the next run shows it).
    """
    entries = dict(state.index.entries)
    pr = state.pr
    for result in results:
        if result.number is None:
            continue
        entries[result.key] = result.number
        if pr is not None and result.key == f"pr-comment:{pr.number}":
            pr = pr.model_copy(update={"comment_id": result.number})
    if pr is not None and any(r.issue is None and f"risk:{r.fingerprint}" in entries for r in pr.accepted_risks):
        risks = [
            r if r.issue is not None else r.model_copy(update={"issue": entries.get(f"risk:{r.fingerprint}")})
            for r in pr.accepted_risks
        ]
        pr = pr.model_copy(update={"accepted_risks": risks})
    if entries == state.index.entries and pr is state.pr:
        return state
    return state.model_copy(update={"index": state.index.model_copy(update={"entries": entries}), "pr": pr})
