"""Properties of recovery and revert decisions over arbitrary sequences of observations (hypothesis).

- the engine is deterministic;
- re-applying the same observation changes nothing;
- attempt counters never decrease;
- no sequence of observations produces two revert PRs for one culprit;
- no revert without a breaking finding, and a PR is never rolled back;
- the branch state round-trips as JSON.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gauntlet.config import Config
from gauntlet.engine.decide import decide
from gauntlet.engine.recovery import BREAKING_KINDS
from gauntlet.models import CommitFact, Finding, Kind, Observation, RevertPRFact
from gauntlet.state.branch import BranchRecord
from gauntlet.state.models import State
from gauntlet.state.pr import PRRecord

START = datetime(2026, 11, 29, 8, tzinfo=UTC)
FILES = ("src/app/calc.py", "tests/test_calc.py", "native/parser.c", "docs/usage.md")
#: (head, tip beyond head, job, run attempt, fingerprints, revert PR state for the head, history observed)
RunStep = tuple[int, int, str, int, frozenset[str], str | None, bool]
History = tuple[list[int], list[int], list[RunStep], str, int, bool]
PRStep = tuple[int, int, frozenset[str]]


def sha(name: str) -> str:
    return hashlib.sha1(name.encode()).hexdigest()


def build_commits(files: list[int], messages: list[int]) -> tuple[CommitFact, ...]:
    """A linear first-parent history; some commits are reverts or say NOAUTOREVERT."""
    commits: list[CommitFact] = []
    for i, (f, m) in enumerate(zip(files, messages, strict=True)):
        message = ["Change", "Change\n\nNOAUTOREVERT", f"Revert\n\nThis reverts commit {sha('c0')}."][m]
        commits.append(
            CommitFact.of(
                sha=sha(f"c{i}"),
                message=message,
                author="dev",
                files=(FILES[f],),
                parents=(sha(f"c{i - 1}"),) if i else (),
                at=START + timedelta(minutes=10 * i),
            )
        )
    return tuple(commits)


FINDINGS: dict[str, tuple[Kind, str | None]] = {
    "t1": ("test_failure", "tests/test_calc.py"),
    "t2": ("test_failure", "src/app/calc.py"),
    "m1": ("type_error", "src/app/calc.py"),
    "b1": ("build_error", "native/parser.c"),
    "i1": ("infra", None),
    "u1": ("unknown", None),
    "l1": ("lint", "src/app/calc.py"),
}


def finding(fp: str) -> Finding:
    kind, path = FINDINGS[fp]
    severity = "critical" if kind in BREAKING_KINDS else "major"
    return Finding(fingerprint=fp, source="log", kind=kind, severity=severity, path=path, message=fp)


run_steps = st.lists(
    st.tuples(
        st.integers(0, 5),  # head commit
        st.integers(0, 2),  # tip beyond head
        st.sampled_from(["test", "types"]),  # job
        st.integers(1, 3),  # run attempt
        st.frozensets(st.sampled_from(sorted(FINDINGS)), max_size=3),
        st.sampled_from([None, "open", "merged", "closed_unmerged"]),  # a revert PR fact for c{head}
        st.booleans(),  # history observed
    ),
    min_size=1,
    max_size=14,
)
histories = st.tuples(
    st.lists(st.integers(0, len(FILES) - 1), min_size=6, max_size=6),
    st.lists(st.sampled_from([0, 0, 0, 1, 2]), min_size=6, max_size=6),
    run_steps,
    st.sampled_from(["on", "shadow", "off"]),
    st.integers(0, 2),  # max reverts per day
    st.booleans(),  # paused
)


def observations(history: History) -> tuple[Config, list[Observation]]:
    files, messages, steps, mode, cap, paused = history
    commits = build_commits(files, messages)
    config = Config.model_validate({"paused": paused, "revert": {"auto_revert": mode, "max_reverts_per_day": cap}})
    out = []
    for n, (head, beyond, job, attempt, fps, pr_state, seen) in enumerate(steps):
        tip = min(head + beyond, len(commits) - 1)
        facts = (
            (RevertPRFact.model_validate({"culprit": commits[head].sha[:12], "number": 40 + head, "state": pr_state}),)
            if pr_state
            else ()
        )
        out.append(
            Observation(
                event="workflow_run",
                branch="main",
                head_sha=commits[head].sha,
                run_id=str(100 + n // 2),
                run_attempt=str(attempt),
                workflow="ci",
                job=job,
                findings=tuple(finding(fp) for fp in sorted(fps)),
                commits=tuple(reversed(commits[: tip + 1])) if seen else (),
                revert_prs=facts,
            )
        )
    return config, out


def rng() -> np.random.Generator:
    return np.random.default_rng(0)


SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(histories)
def test_the_engine_is_deterministic_and_redelivery_changes_nothing(history: History) -> None:
    config, steps = observations(history)
    state = State(branch=BranchRecord(name="main"))
    for n, obs in enumerate(steps):
        now = START + timedelta(minutes=5 * n)
        first, plan = decide(state, obs, config, now, rng())
        second, again = decide(state, obs, config, now, rng())
        assert (first, plan) == (second, again)
        redelivered, _ = decide(first, obs, config, now + timedelta(minutes=1), rng())
        assert redelivered == first
        assert state.branch is not None
        state = first
    assert state.branch is not None
    assert BranchRecord.model_validate_json(state.branch.model_dump_json()) == state.branch


@SETTINGS
@given(histories)
def test_one_revert_pr_per_culprit_only_for_breaking_failures_and_counters_never_drop(history: History) -> None:
    config, steps = observations(history)
    state = State(branch=BranchRecord(name="main"))
    reverted: list[str] = []
    counts: dict[str, int] = {}
    for n, obs in enumerate(steps):
        state, plan = decide(state, obs, config, START + timedelta(minutes=5 * n), rng())
        culprits = [e.culprit for e in plan.effects if e.type == "open_revert_pr"]
        if culprits:
            assert any(f.kind in BREAKING_KINDS for f in obs.findings)
            assert config.revert.auto_revert == "on" and not config.paused
        reverted.extend(culprits)
        assert state.branch is not None
        for breakage in state.branch.breakages:
            assert breakage.attempt_count >= counts.get(breakage.id, 0)
            counts[breakage.id] = breakage.attempt_count
        today = state.branch.daily.get((START + timedelta(minutes=5 * n)).date().isoformat(), 0)
        assert today <= config.revert.max_reverts_per_day
    assert len(reverted) == len(set(reverted))


pr_steps = st.lists(
    st.tuples(st.integers(0, 4), st.integers(1, 3), st.frozensets(st.sampled_from(sorted(FINDINGS)), max_size=3)),
    min_size=1,
    max_size=12,
)


@SETTINGS
@given(pr_steps)
def test_pr_attempt_numbers_never_decrease_and_a_pr_is_never_rolled_back(steps: list[PRStep]) -> None:
    state = State(pr=PRRecord(number=3))
    best: dict[str, int] = {}
    for n, (head, attempt, fps) in enumerate(steps):
        obs = Observation(
            pr=3,
            head_sha=sha(f"p{head}"),
            run_id=str(500 + n),
            run_attempt=str(attempt),
            job="test",
            findings=tuple(finding(fp) for fp in sorted(fps)),
        )
        now = START + timedelta(minutes=n)
        state, plan = decide(state, obs, Config(), now, rng())
        assert plan.recovery.action != "rollback"
        assert all(e.type != "open_revert_pr" for e in plan.effects)
        again, _ = decide(state, obs, Config(), now, rng())
        assert again.pr == state.pr
        assert state.pr is not None
        for attempt_record in state.pr.attempts:
            kind = attempt_record.failure_type
            assert attempt_record.number >= 1
            best[kind] = max(best.get(kind, 0), attempt_record.number)
        if plan.recovery.failure_type is not None:
            assert plan.recovery.attempt >= 1
        latest = {a.failure_type: a.number for a in state.pr.attempts}
        for kind, number in latest.items():
            assert number == best[kind]
