"""The rule bandit (DESIGN §3): which learned rules the sticky comment shows, per error class.

Theory of operation. Every (error class, rule) pair is an arm with a Beta(α, β)
posterior; a rule a maintainer curated starts at Beta(1 + 2, 1), a learned one
at Beta(1, 1). To choose, draw one sample per candidate rule from the passed-in
numpy ``Generator`` and show the ``k`` highest (Thompson sampling): rules that
helped are shown more, new rules still get their chance.

Only rules that were shown are rewarded, and only once: when the PR's next
iteration arrives, each rule shown for a class gets 1 if the class did not
recur, 0 if it did.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from gauntlet.models import evolve
from gauntlet.state.base import keep_last
from gauntlet.state.shared import MAX_PENDING, Arm, BanditTable, LearnedRule, Shown

__all__ = ["CURATED_BONUS", "choose", "forget", "prior", "remember", "reward", "settle"]

#: Curated rules start this much higher on α (DESIGN §3).
CURATED_BONUS = 2.0


def prior(rule: LearnedRule) -> Arm:
    """The starting arm of ``rule`` (context left empty): Beta(1, 1), or Beta(3, 1) for a curated rule."""
    return Arm(context="", rule=rule.id, alpha=1.0 + (CURATED_BONUS if rule.kind == "curated" else 0.0))


def choose(
    table: BanditTable, rules: Sequence[LearnedRule], context: str, k: int, rng: np.random.Generator
) -> list[str]:
    """Pick up to ``k`` rule ids for ``context`` by Thompson sampling.

    Deterministic for an equally seeded ``rng``: candidates are drawn in rule-id order.
    """
    candidates = sorted({r.id: r for r in rules if context in r.classes}.values(), key=lambda r: r.id)
    if not candidates or k <= 0:
        return []
    arms = {(a.context, a.rule): a for a in table.arms}
    chosen = [arms.get((context, r.id)) or prior(r) for r in candidates]
    draws = rng.beta(np.array([a.alpha for a in chosen]), np.array([a.beta for a in chosen]))
    order = np.argsort(-draws, kind="stable")[:k]
    return [candidates[int(i)].id for i in order]


def reward(table: BanditTable, context: str, rules: Iterable[LearnedRule], value: int) -> BanditTable:
    """Add one outcome (1 helped, 0 did not) to the arms of ``rules`` in ``context``."""
    arms = {(a.context, a.rule): a for a in table.arms}
    for rule in rules:
        arm = arms.get((context, rule.id)) or evolve(prior(rule), context=context)
        arms[(context, rule.id)] = evolve(arm, alpha=arm.alpha + value, beta=arm.beta + 1 - value)
    return evolve(table, arms=list(arms.values()))


def remember(table: BanditTable, place: str, head_sha: str, context: str, rules: list[str]) -> BanditTable:
    """Note the rules shown at ``place`` for ``head_sha``; a later showing for the same SHA replaces it."""
    pending = [s for s in table.pending if (s.place, s.head_sha, s.context) != (place, head_sha, context)]
    if rules:
        pending.append(Shown(place=place, head_sha=head_sha, context=context, rules=rules))
    return evolve(table, pending=keep_last(pending, MAX_PENDING))


def settle(
    table: BanditTable, place: str, head_sha: str, recurring: set[str], rules: Sequence[LearnedRule]
) -> BanditTable:
    """Reward what was shown at ``place`` for an earlier SHA: 1 if its class is not in ``recurring``, else 0."""
    by_id = {r.id: r for r in rules}
    for shown in [s for s in table.pending if s.place == place and s.head_sha != head_sha]:
        value = 0 if shown.context in recurring else 1
        table = reward(table, shown.context, [by_id[r] for r in shown.rules if r in by_id], value)
    pending = [s for s in table.pending if not (s.place == place and s.head_sha != head_sha)]
    return evolve(table, pending=pending)


def forget(table: BanditTable, rules: Sequence[LearnedRule]) -> BanditTable:
    """Drop the arms and pending rewards of rules that are no longer learned (compaction)."""
    known = {r.id for r in rules}
    arms = [a for a in table.arms if a.rule in known]
    pending = [evolve(s, rules=[r for r in s.rules if r in known]) for s in table.pending]
    return evolve(table, arms=arms, pending=[s for s in pending if s.rules])
