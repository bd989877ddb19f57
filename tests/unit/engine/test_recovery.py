"""Recovery: failure types, the (failure type, scope) -> action table, budgets, attempts, and the PR side."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import get_args

import numpy as np
import pytest

from gauntlet.config import Config, RecoveryConfig
from gauntlet.effects.models import Plan
from gauntlet.engine import recovery
from gauntlet.engine.circular import CircularFix
from gauntlet.engine.decide import decide
from gauntlet.engine.recovery import ACTIONS, RecoveryScope, action_for, assess, failure_type, next_attempt
from gauntlet.models import Finding, Kind, Observation, Severity
from gauntlet.state.models import State
from gauntlet.state.pr import Attempt, FindingRecord, PRRecord
from gauntlet.vocabulary import FailureType

NOW = datetime(2026, 11, 29, 10, tzinfo=UTC)
DEFAULTS = Config()


def record(kind: Kind, severity: Severity = "critical", fp: str | None = None) -> FindingRecord:
    return FindingRecord(fingerprint=fp or kind, source="log", kind=kind, severity=severity, message=kind)


def attempt(kind: str, observation: str) -> Attempt:
    return Attempt(at=NOW, observation=observation, head_sha="a" * 40, failure_type=kind, action="retry", reason="")


@pytest.mark.parametrize(
    ("kinds", "expected"),
    [
        (["test_failure"], "broken_build"),
        (["crash", "infra"], "broken_build"),
        (["type_error", "lint"], "broken_build"),
        (["lint"], "verification_failed"),
        (["security", "infra"], "verification_failed"),
        (["infra"], "infra"),
        (["timeout", "dependency"], "infra"),
        (["infra", "unknown"], "infra"),
        (["unknown"], "unknown"),
        ([], None),
    ],
)
def test_failure_type_follows_the_first_matching_row(kinds: list[Kind], expected: str | None) -> None:
    assert failure_type([record(k, "major" if k != "test_failure" else "critical") for k in kinds]) == expected


def test_only_blocking_findings_give_a_failure_type() -> None:
    assert failure_type([record("test_failure", "minor"), record("lint", "nitpick")]) is None


def test_the_table_has_a_row_for_every_failure_type_and_scope_and_never_rolls_back_a_pr() -> None:
    for kind in get_args(FailureType):
        for scope in get_args(RecoveryScope):
            assert action_for(kind, scope) in ("rollback", "retry", "skip", "escalate", "continue")
    assert [k for (k, scope), action in ACTIONS.items() if action == "rollback"] == ["broken_build"]
    assert all(action != "rollback" for (_, scope), action in ACTIONS.items() if scope == "pr")


def test_an_unknown_pair_raises() -> None:
    with pytest.raises(ValueError, match="no recovery action"):
        action_for("exploded", "pr")  # type: ignore[arg-type]


def test_a_pr_broken_build_continues_and_the_default_branch_rolls_back() -> None:
    assert assess([record("test_failure")], [], "pr", RecoveryConfig()).action == "continue"
    assert assess([record("test_failure")], [], "default_branch", RecoveryConfig()).action == "rollback"


def test_retries_escalate_once_the_budget_is_spent() -> None:
    config = RecoveryConfig(verification_budget=2)
    findings = [record("lint", "major")]
    earlier: list[Attempt] = []
    actions = []
    for n in range(1, 5):
        verdict = assess(findings, earlier, "pr", config, observation=f"sha{n}:1:1:lint")
        actions.append((verdict.attempt, verdict.action))
        earlier.append(attempt("verification_failed", f"sha{n}:1:1:lint").model_copy(update={"number": n}))
    assert actions == [(1, "retry"), (2, "retry"), (3, "escalate"), (4, "escalate")]
    assert "budget of 2 is spent" in assess(findings, earlier, "pr", config).reason


def test_the_jobs_of_one_run_are_one_attempt_and_a_rerun_is_the_next() -> None:
    earlier = [attempt("infra", "abc:7:1:test").model_copy(update={"number": 1})]
    assert next_attempt("infra", earlier, "abc:7:1:lint") == 1
    assert next_attempt("infra", earlier, "abc:7:2:test") == 2
    assert next_attempt("unknown", earlier, "abc:7:2:test") == 1


def test_attempt_numbers_survive_dropped_attempts() -> None:
    kept = [attempt("infra", "s9:1:1:j").model_copy(update={"number": 9})]
    assert next_attempt("infra", kept, "s10:1:1:j") == 10


def test_a_circular_fix_overrides_the_failure_type_and_escalates() -> None:
    loop = CircularFix(pattern="repeat", shas=("a" * 40, "b" * 40, "c" * 40), fingerprints=("x",))
    verdict = assess([record("test_failure", fp="x")], [], "pr", RecoveryConfig(), loop)
    assert (verdict.failure_type, verdict.action) == ("circular_fix", "escalate")
    assert "3 new commits in a row" in verdict.reason


def test_paused_keeps_the_verdict_but_skips_the_action() -> None:
    verdict = recovery.paused(assess([record("infra", "major")], [], "pr", RecoveryConfig()))
    assert verdict.action == "skip"
    assert verdict.reason.startswith("paused: would retry")


# The PR side, through the real engine.


def pr_obs(sha: str, kinds: list[tuple[str, Kind]], *, run_id: str = "0", attempt: str = "1") -> Observation:
    findings = tuple(
        Finding(
            fingerprint=fp, source="log", kind=kind, severity="critical" if kind != "infra" else "major", message=fp
        )
        for fp, kind in kinds
    )
    return Observation(pr=7, head_sha=sha * 40, run_id=run_id, run_attempt=attempt, job="test", findings=findings)


def run_pr(observations: list[Observation], config: Config = DEFAULTS) -> list[tuple[State, Plan]]:
    state = State(pr=PRRecord(number=7))
    out: list[tuple[State, Plan]] = []
    for i, obs in enumerate(observations):
        state, plan = decide(state, obs, config, NOW + timedelta(minutes=i), np.random.default_rng(0))
        out.append((state, plan))
    return out


def action_types(plan: Plan) -> list[str]:
    return [e.type for e in plan.effects if e.type in ("file_issue", "rerun_failed_jobs", "open_revert_pr")]


def test_the_same_failures_on_three_new_pr_commits_escalate_once_to_a_human() -> None:
    steps = run_pr([pr_obs(c, [("t1", "test_failure")]) for c in "abcd"])
    verdicts = [plan.recovery for _, plan in steps]
    assert [v.failure_type for v in verdicts] == ["broken_build", "broken_build", "circular_fix", "circular_fix"]
    assert [action_types(plan) for _, plan in steps] == [[], [], ["file_issue"], []]
    issue = next(e for e in steps[2][1].effects if e.type == "file_issue")
    assert issue.key == "needs-human:pr-7:circular_fix"
    state = steps[-1][0]
    assert state.pr is not None
    assert [a.number for a in state.pr.attempts] == [1, 2, 1, 2]


def test_an_oscillating_pr_is_circular() -> None:
    steps = run_pr([pr_obs(c, [(fp, "test_failure")]) for c, fp in zip("abcd", ["x", "y", "x", "y"], strict=True)])
    assert steps[-1][1].recovery.failure_type == "circular_fix"


def test_infra_on_a_pr_reruns_the_failed_jobs_within_the_budget_then_asks_a_human() -> None:
    observations = [pr_obs("a", [("i", "infra")], run_id="55", attempt=str(n)) for n in (1, 2, 3)]
    steps = run_pr(observations)
    assert [action_types(plan) for _, plan in steps] == [["rerun_failed_jobs"], ["rerun_failed_jobs"], ["file_issue"]]
    rerun = next(e for e in steps[0][1].effects if e.type == "rerun_failed_jobs")
    assert rerun.key == "rerun:55:1"


def test_a_pr_is_never_rolled_back() -> None:
    for _, plan in run_pr([pr_obs(c, [("t", "test_failure")]) for c in "abcdef"]):
        assert plan.recovery.action != "rollback"
        assert "open_revert_pr" not in action_types(plan)


def test_paused_stops_every_pr_action_but_the_report() -> None:
    config = Config(paused=True)
    steps = run_pr(
        [pr_obs("a", [("i", "infra")], run_id="55")] + [pr_obs(c, [("t", "test_failure")]) for c in "bcd"], config
    )
    for _, plan in steps:
        assert action_types(plan) == []
        types = {e.type for e in plan.effects}
        assert {"upsert_comment", "set_check", "write_summary"} <= types
    assert steps[-1][1].recovery.action == "skip"
