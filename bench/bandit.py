"""Does the rule bandit learn? Drive the real engine over simulated PR histories and print how often it shows
the one rule that truly helps, and its cumulative regret against always showing that rule.

Usage::

    .venv/bin/python bench/bandit.py [--prs 400] [--rules 8] [--seeds 5]

Each simulated PR fails a test (error class ``test_failure``); :func:`gauntlet.engine.decide.decide`
plans its sticky comment, in which the bandit picks ``k`` of the learned rules. The PR's author then
pushes a fix: the failure recurs on the next iteration with probability ``--p-helped`` when the
helpful rule was in the comment, ``--p-other`` when it was not (the other rules change nothing).
The next iteration goes through the engine too, which rewards the rules it showed. The regret of a
comment is the extra recurrence probability compared with a comment that shows the helpful rule.
"""

from __future__ import annotations

import argparse
import hashlib
from datetime import UTC, datetime, timedelta

import numpy as np

from gauntlet.config import Config, SelfHealConfig
from gauntlet.effects.models import UpsertComment
from gauntlet.engine.decide import decide
from gauntlet.models import Finding, Observation
from gauntlet.state.models import State
from gauntlet.state.pr import PRRecord
from gauntlet.state.shared import LearnedRule, LearningBook

START = datetime(2026, 11, 2, tzinfo=UTC)
HELPFUL = "Run the failing test alone with -x before pushing a fix"


def seeded(obs: Observation) -> np.random.Generator:
    """The generator the pipeline passes in: seeded by the observation's identity."""
    return np.random.default_rng(int.from_bytes(hashlib.sha256(obs.id.encode()).digest()[:8], "big"))


def learned(n_rules: int) -> LearningBook:
    texts = [HELPFUL, *(f"Decoy rule number {i}: rename variable group {i}" for i in range(1, n_rules))]
    rules = [
        LearnedRule(id=f"R-{i:02d}", text=t, kind="review", classes=["test_failure"], first_seen=START, last_seen=START)
        for i, t in enumerate(texts)
    ]
    return LearningBook(rules=rules)


def failing(pr: int, iteration: int) -> Finding:
    return Finding(
        fingerprint=f"fp-{pr}",
        source="log",
        kind="test_failure",
        severity="critical",
        message="assert add(2, 2) == 4",
        test_id=f"tests/test_{pr}.py::test_it#{iteration}",
    )


def simulate(prs: int, n_rules: int, k: int, p_helped: float, p_other: float, seed: int) -> tuple[list[bool], float]:
    """Return, per PR, whether the comment showed the helpful rule, and the cumulative regret."""
    config = Config(selfheal=SelfHealConfig(rules_per_class=k))
    world = np.random.default_rng(seed)
    shared = State(learnings=learned(n_rules))
    shown_helpful: list[bool] = []
    regret = 0.0
    for pr in range(1, prs + 1):
        now = START + timedelta(hours=pr)
        state = shared.model_copy(update={"pr": PRRecord(number=pr)})
        first = Observation(pr=pr, head_sha=f"{seed:08x}{pr:032x}", run_id=str(pr), findings=(failing(pr, 1),))
        state, plan = decide(state, first, config, now, seeded(first))
        comment = next(e for e in plan.effects if isinstance(e, UpsertComment))
        helped = any(HELPFUL in line for line in comment.view.rules)
        shown_helpful.append(helped)
        regret += 0.0 if helped else p_other - p_helped
        recurred = world.random() < (p_helped if helped else p_other)
        second = Observation(
            pr=pr,
            head_sha=f"{seed:08x}{pr:031x}f",
            run_id=f"{pr}.2",
            findings=(failing(pr, 2),) if recurred else (),
        )
        state, _ = decide(state, second, config, now + timedelta(minutes=30), seeded(second))
        shared = state.model_copy(update={"pr": None, "events": []})
    return shown_helpful, regret


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prs", type=int, default=400)
    parser.add_argument("--rules", type=int, default=8)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--p-helped", type=float, default=0.2, help="recurrence when the helpful rule is shown")
    parser.add_argument("--p-other", type=float, default=0.7, help="recurrence when it is not")
    args = parser.parse_args()
    tenth = max(1, args.prs // 10)
    print(
        f"{args.prs} PRs, {args.rules} learned rules (1 helpful), recurrence {args.p_helped} with it / "
        f"{args.p_other} without, {args.seeds} seeds"
    )
    print(
        f"{'k':>2} {'random':>7} {'first 10%':>10} {'last 10%':>9} {'overall':>8} {'regret':>8}",
        f"{'regret if random':>17}",
    )
    for k in (1, 3):
        runs = [simulate(args.prs, args.rules, k, args.p_helped, args.p_other, seed) for seed in range(args.seeds)]
        share = np.array([shown for shown, _ in runs], dtype=float)
        regret = float(np.mean([r for _, r in runs]))
        random_share = min(1.0, k / args.rules)
        random_regret = (1 - random_share) * (args.p_other - args.p_helped) * args.prs
        print(
            f"{k:>2} {random_share:>7.0%} {share[:, :tenth].mean():>10.0%} {share[:, -tenth:].mean():>9.0%} "
            f"{share.mean():>8.0%} {regret:>8.1f} {random_regret:>17.1f}"
        )
    print("share = comments showing the helpful rule; regret = extra expected recurrences vs always showing it")


if __name__ == "__main__":
    main()
