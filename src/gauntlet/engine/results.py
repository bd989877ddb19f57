"""Fold what the effects produced back into state, so the next run finds them by key."""

from __future__ import annotations

from collections.abc import Iterable

from gauntlet.effects.base import EffectResult
from gauntlet.models import evolve
from gauntlet.state.known import MAX_KNOWN_HITS
from gauntlet.state.models import State
from gauntlet.state.pr import Written

__all__ = ["PR_SCOPED_KINDS", "known_numbers", "link_risk_issues", "record_results", "remember"]

#: Effect kinds that concern one PR only: remembered in its record, not in the shared index.
PR_SCOPED_KINDS = ("pr-comment:", "reply:", "command:", "known-hit:")


def known_numbers(state: State) -> dict[str, int]:
    """Every effect key this state knows a number for: the shared index plus the loaded PR's own."""
    return {**state.index.entries, **(state.pr.effects if state.pr is not None else {})}


def remember(state: State, key: str, number: int) -> State:
    """Record ``key -> number``: in the PR's record when the key concerns only that PR, else in the index."""
    if state.pr is not None and key.startswith(PR_SCOPED_KINDS):
        if state.pr.effects.get(key) == number:
            return state
        return evolve(state, pr=evolve(state.pr, effects={**state.pr.effects, key: number}))
    if state.index.entries.get(key) == number:
        return state
    entries = {**state.index.entries, key: number}
    return evolve(state, index=evolve(state.index, entries=entries))


#: Effects whose last version the PR's record keeps (``PRRecord.written``): the next run edits them in place.
WRITTEN_KINDS = ("pr-comment:", "check:", "known-hit:")


def record_results(state: State, results: Iterable[EffectResult]) -> State:
    """Remember the number of every created or found effect in the index.

    The PR record learns its comment id and the issue of each accepted risk, which the
    comment planned in the same run could not know yet (the next run shows it), and what its
    sticky comment and check run now hold (``PRRecord.written``).
    """
    for result in results:
        if result.version is not None and result.number is not None and result.key.startswith(WRITTEN_KINDS):
            state = _written(state, result.key, Written(number=result.number, version=result.version))
        if result.number is None or result.key.startswith("check:"):
            continue
        state = remember(state, result.key, result.number)
        pr = state.pr
        if pr is not None and result.key == f"pr-comment:{pr.number}" and pr.comment_id != result.number:
            state = evolve(state, pr=evolve(pr, comment_id=result.number))
    return link_risk_issues(state)


def _written(state: State, key: str, written: Written) -> State:
    """Keep what ``key`` now holds in the PR's record (a branch run's: its check run and its comments on
    known-failure issues); a check run only for the newest head, and the newest comments on known-failure issues
    (bounded)."""
    pr, branch = state.pr, state.branch
    if pr is None and branch is not None and branch.written.get(key) != written:
        return evolve(state, branch=evolve(branch, written=_kept(branch.written, key, written)))
    if pr is None or pr.written.get(key) == written:
        return state
    return evolve(state, pr=evolve(pr, written=_kept(pr.written, key, written)))


def _kept(written: dict[str, Written], key: str, new: Written) -> dict[str, Written]:
    """``written`` with ``key`` set last: one check run, at most :data:`MAX_KNOWN_HITS` known-hit comments."""
    kind = key.split(":", 1)[0] + ":"
    same = [k for k in written if k.startswith(kind) and k != key]
    keep = {"check:": 0, "known-hit:": MAX_KNOWN_HITS - 1}.get(kind)
    dropped = set(same[: max(len(same) - keep, 0)] if keep is not None else ())
    kept = {k: w for k, w in written.items() if k not in dropped and k != key}
    return {**kept, key: new}


def link_risk_issues(state: State) -> State:
    """Give each accepted risk of the PR the number of its issue, once the index knows it."""
    pr = state.pr
    entries = state.index.entries
    if pr is None or not any(r.issue is None and f"risk:{r.fingerprint}" in entries for r in pr.accepted_risks):
        return state
    risks = [
        r if r.issue is not None else evolve(r, issue=entries.get(f"risk:{r.fingerprint}")) for r in pr.accepted_risks
    ]
    return evolve(state, pr=evolve(pr, accepted_risks=risks))
