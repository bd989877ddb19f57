"""The rule bandit: Thompson sampling with a passed-in generator, curated priors, rewards only for shown rules."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gauntlet.engine import bandit
from gauntlet.state.shared import Arm, BanditTable, LearnedRule, RuleKind

NOW = datetime(2026, 11, 2, tzinfo=UTC)


def rule(ident: str, kind: RuleKind = "review", classes: tuple[str, ...] = ("lint",)) -> LearnedRule:
    return LearnedRule(id=ident, text=ident, kind=kind, classes=list(classes), first_seen=NOW, last_seen=NOW)


RULES = [rule(f"R-{i}") for i in range(6)]


def test_choose_is_deterministic_for_the_same_seed_and_at_most_k() -> None:
    first = bandit.choose(BanditTable(), RULES, "lint", 3, np.random.default_rng(7))
    second = bandit.choose(BanditTable(), RULES, "lint", 3, np.random.default_rng(7))
    assert first == second and len(first) == 3 and len(set(first)) == 3


def test_choose_only_rules_of_the_context() -> None:
    rules = [*RULES, rule("R-other", classes=("test_failure",))]
    assert bandit.choose(BanditTable(), rules, "test_failure", 3, np.random.default_rng(0)) == ["R-other"]
    assert bandit.choose(BanditTable(), rules, "crash", 3, np.random.default_rng(0)) == []


def test_curated_rules_start_at_alpha_plus_two() -> None:
    assert (bandit.prior(rule("c", kind="curated")).alpha, bandit.prior(rule("c", kind="curated")).beta) == (3.0, 1.0)
    assert bandit.prior(rule("l")).alpha == 1.0


def test_a_curated_rule_is_shown_more_often_than_an_untried_one() -> None:
    rules = [rule("R-a"), rule("R-c", kind="curated")]
    rng = np.random.default_rng(3)
    shown = [bandit.choose(BanditTable(), rules, "lint", 1, rng)[0] for _ in range(400)]
    assert shown.count("R-c") > 0.65 * len(shown)


def test_a_rule_with_a_strong_posterior_is_chosen_nearly_always() -> None:
    table = BanditTable(arms=[Arm(context="lint", rule="R-0", alpha=40, beta=1)])
    table = bandit.reward(table, "lint", RULES[1:], 0)
    rng = np.random.default_rng(5)
    picks = [bandit.choose(table, RULES, "lint", 1, rng)[0] for _ in range(200)]
    assert picks.count("R-0") > 190


def test_only_shown_rules_are_rewarded_once_at_the_next_iteration() -> None:
    table = bandit.remember(BanditTable(), "pr:1", "a" * 40, "lint", ["R-0", "R-1"])
    table = bandit.remember(table, "pr:1", "a" * 40, "test_failure", ["R-2"])
    same_sha = bandit.settle(table, "pr:1", "a" * 40, set(), RULES)
    assert same_sha.arms == [] and len(same_sha.pending) == 2
    settled = bandit.settle(table, "pr:1", "b" * 40, {"test_failure"}, RULES)
    arms = {(a.context, a.rule): (a.alpha, a.beta) for a in settled.arms}
    assert arms == {("lint", "R-0"): (2, 1), ("lint", "R-1"): (2, 1), ("test_failure", "R-2"): (1, 2)}
    assert settled.pending == []
    assert bandit.settle(settled, "pr:1", "c" * 40, set(), RULES) == settled


def test_showing_again_for_the_same_sha_replaces_the_pending_rules() -> None:
    table = bandit.remember(BanditTable(), "pr:1", "a" * 40, "lint", ["R-0"])
    table = bandit.remember(table, "pr:1", "a" * 40, "lint", ["R-1"])
    assert [s.rules for s in table.pending] == [["R-1"]]


def test_forget_drops_arms_of_rules_no_longer_learned() -> None:
    table = bandit.reward(BanditTable(), "lint", RULES[:2], 1)
    table = bandit.remember(table, "pr:1", "a" * 40, "lint", ["R-0", "R-1"])
    kept = bandit.forget(table, RULES[:1])
    assert [a.rule for a in kept.arms] == ["R-0"] and [s.rules for s in kept.pending] == [["R-0"]]


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(1, 3),
            st.sampled_from(("lint", "test_failure")),
            st.lists(st.sampled_from([r.id for r in RULES]), unique=True, max_size=3),
        ),
        max_size=20,
    ),
    st.sets(st.sampled_from(("lint", "test_failure"))),
)
def test_only_shown_rules_are_rewarded_and_each_showing_once(
    showings: list[tuple[int, str, list[str]]], recurring: set[str]
) -> None:
    table = BanditTable()
    shown: dict[tuple[int, str], list[str]] = {}
    for pr, context, rules in showings:
        table = bandit.remember(table, f"pr:{pr}", "a" * 40, context, rules)
        shown[(pr, context)] = rules  # a later showing for the same SHA replaces the earlier one
    for pr in (1, 2, 3):
        table = bandit.settle(table, f"pr:{pr}", "b" * 40, recurring, RULES)
    outcomes = sum(a.alpha + a.beta - 2 for a in table.arms)
    assert outcomes == sum(len(rules) for rules in shown.values())
    expected = {(c, r) for (_, c), rules in shown.items() for r in rules}
    assert {(a.context, a.rule) for a in table.arms} == expected
    assert table.pending == []
