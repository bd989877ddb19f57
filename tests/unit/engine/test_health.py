"""Health: pressure, circular fix, stall, flakiness, verification, the repository view and the block issue."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from gauntlet.config import HealthConfig
from gauntlet.effects.models import FileIssue
from gauntlet.engine import health, outcomes
from gauntlet.engine.loop import merge_observation
from gauntlet.models import Finding
from gauntlet.state.branch import BranchRecord, RunRecord
from gauntlet.state.outcomes import Outcome
from gauntlet.state.pr import PRRecord
from gauntlet.state.shared import Proposal, ProposalBook
from gauntlet.vocabulary import HealthVerdict, RecoveryVerdict

NOW = datetime(2026, 11, 2, tzinfo=UTC)
CONFIG = HealthConfig()
OK = RecoveryVerdict()


def failing(*fps: str) -> list[Finding]:
    return [Finding(fingerprint=fp, source="log", kind="test_failure", severity="critical", message=fp) for fp in fps]


def pr_of(*iterations: list[Finding], start: datetime = NOW, step: timedelta = timedelta(hours=1)) -> PRRecord:
    pr = PRRecord(number=3)
    for i, findings in enumerate(iterations):
        pr = merge_observation(pr, f"o{i}", f"{i:040d}", findings, start + i * step)
    return pr


@pytest.mark.parametrize(
    ("iteration", "status"),
    [(7, "continue"), (8, "warn"), (9, "warn"), (10, "block"), (12, "block")],
)
def test_iteration_pressure(iteration: int, status: str) -> None:
    verdict = health.assess_pr(iteration, 10, OK, CONFIG)
    assert verdict.status == status
    if status != "continue":
        assert str(iteration) in verdict.reasons[0]


def test_circular_fix_reflects_with_its_reason() -> None:
    recovery = RecoveryVerdict(failure_type="circular_fix", action="escalate", reason="same failures 3 times")
    verdict = health.assess_pr(2, 10, recovery, CONFIG)
    assert verdict == HealthVerdict(status="reflect", reasons=("circular fix: same failures 3 times",))


def test_the_worst_status_wins_and_every_reason_is_kept() -> None:
    recovery = RecoveryVerdict(failure_type="circular_fix", action="escalate", reason="loop")
    verdict = health.assess_pr(10, 10, recovery, CONFIG)
    assert verdict.status == "block" and len(verdict.reasons) == 2


def test_red_for_more_than_24_hours_warns() -> None:
    pr = pr_of(failing("a"), failing("b"), step=timedelta(hours=13))
    assert health.assess_pr(2, 10, OK, CONFIG, pr=pr, now=NOW + timedelta(hours=20)).status == "continue"
    stalled = health.assess_pr(2, 10, OK, CONFIG, pr=pr, now=NOW + timedelta(hours=25))
    assert stalled.status == "warn" and "red for 25 h" in stalled.reasons[0]


def test_green_in_between_resets_the_stall_clock() -> None:
    pr = pr_of(failing("a"), [], failing("b"), step=timedelta(hours=20))
    assert health.assess_pr(3, 10, OK, CONFIG, pr=pr, now=NOW + timedelta(hours=50)).status == "continue"


def with_outcomes(pr: PRRecord, *runs: tuple[str, str, dict[str, str | None]]) -> PRRecord:
    history = pr.outcomes
    for i, (commit, run, failing) in enumerate(runs):
        seen = outcomes.RunOutcomes(job="ci/test", commit=commit, run=run, failing=failing)
        history = outcomes.record(history, seen, NOW + timedelta(minutes=i))
    return pr.model_copy(update={"outcomes": history})


def test_an_a_b_oscillation_across_commits_is_no_flakiness() -> None:
    # A circular fix: a, b, a, b on four commits. Health reports it as that, never as "flaky".
    pr = pr_of(failing("a"), failing("b"), failing("a"), failing("b"))
    pr = with_outcomes(pr, *((str(i) * 40, f"{i}.1", {fp: None}) for i, fp in enumerate(("a", "b", "a", "b"), start=0)))
    verdict = health.assess_pr(4, 100, OK, CONFIG, pr=pr, now=NOW + timedelta(hours=4))
    assert not any("flaky" in r for r in verdict.reasons)


def test_a_failure_that_passed_on_its_own_commit_is_flaky() -> None:
    pr = pr_of(failing("a"))
    pr = with_outcomes(pr, (f"{0:040d}", "1.1", {"a": None}), (f"{0:040d}", "1.2", {}))
    verdict = health.assess_pr(1, 100, OK, CONFIG, pr=pr, now=NOW + timedelta(hours=1))
    assert verdict.status == "warn"
    assert "flaky: 1 failure(s) failed and passed on the same commit" in verdict.reasons


def test_the_flip_rate_counts_isolated_failures_only() -> None:
    def history(*passed: bool) -> list[Outcome]:
        return [Outcome(commit=f"c{i}", run=f"{i}.1", passed=p, at=NOW) for i, p in enumerate(passed)]

    assert outcomes.flip_rate_of(history(True, False, True, True, True)) == 0.5  # 2 flips over 4 steps
    assert outcomes.flip_rate_of(history(True, False, False, False, True)) == 0.0  # a real break and its fix


def test_spent_verification_retries_warn() -> None:
    recovery = RecoveryVerdict(failure_type="verification_failed", action="escalate", reason="budget spent")
    assert health.assess_pr(1, 10, recovery, CONFIG).status == "warn"


def test_block_files_a_needs_human_issue_and_nothing_else_does() -> None:
    issue = health.block_issue(HealthVerdict(status="block", reasons=("budget spent",)), "o/r", 3)
    assert isinstance(issue, FileIssue) and issue.key == "needs-human:health-pr-3"
    assert health.block_issue(HealthVerdict(status="warn", reasons=("x",)), "o/r", 3) is None


def run(sha: str, green: bool, hours: float) -> RunRecord:
    return RunRecord(observation=sha, head_sha=sha, at=NOW + timedelta(hours=hours), green=green)


def test_repository_red_default_branch_and_flaky_commits() -> None:
    branch = BranchRecord(
        name="main", runs=[run("a", True, 0), run("b", False, 1), run("b", True, 2), run("c", False, 3)]
    )
    verdict = health.assess_repository(branch, ProposalBook(), CONFIG, NOW + timedelta(hours=30))
    assert verdict.status == "warn"
    assert verdict.reasons == ("main has been red for 27 h", "flaky: 1 commit(s) on main were both red and green")


def test_repository_reports_rolled_back_and_waiting_proposals() -> None:
    book = ProposalBook(
        proposals=[
            Proposal(
                id="SH-1", component="app", defect_type="lint", level="PATCH", status="rolled_back", created_at=NOW
            ),
            Proposal(
                id="SH-2", component="app", defect_type="crash", level="MAJOR", status="needs_human", created_at=NOW
            ),
        ]
    )
    verdict = health.assess_repository(None, book, CONFIG, NOW + timedelta(days=1))
    assert verdict.status == "warn" and len(verdict.reasons) == 2
    assert health.assess_repository(None, ProposalBook(), CONFIG, NOW).status == "continue"
