"""Flaky-test issues: filed, updated, closed when quiet, reopened or renewed, grouped (engine/flaky_issues.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from gauntlet.config import Config
from gauntlet.effects.models import CloseIssue, Effect, FileIssue
from gauntlet.engine.defects import component_of
from gauntlet.engine.flaky_issues import flaked, plan_flaky_issues
from gauntlet.engine.outcomes import Flakiness, RunOutcomes, flaky_fingerprints, mark, record
from gauntlet.state.branch import BranchRecord
from gauntlet.state.outcomes import OutcomeHistory

NOW = datetime(2026, 11, 29, 12, tzinfo=UTC)
CONFIG = Config()


def branch_with(*fps: str) -> BranchRecord:
    outcomes = OutcomeHistory()
    for fp in fps:
        outcomes = mark(outcomes, fp, "ci/test", f"tests/test_app.py::{fp}", "flaky")
    return BranchRecord(name="main", outcomes=outcomes)


def why(*fps: str) -> dict[str, Flakiness]:
    return {fp: Flakiness(fingerprint=fp, reason="failed and passed on the same commit", rate=0.3) for fp in fps}


def step(branch: BranchRecord, flakes: list[str], at: datetime) -> tuple[BranchRecord, tuple[Effect, ...]]:
    fps = [t.fingerprint for t in branch.outcomes.tests]
    return plan_flaky_issues(
        branch, why(*fps), flakes, repository="o/r", commit="c" * 40, run="1.1", config=CONFIG, now=at
    )


def test_one_issue_per_flaky_test_updated_then_closed_after_fourteen_quiet_days() -> None:
    branch, effects = step(branch_with("fp1"), ["fp1"], NOW)
    [filed] = effects
    assert isinstance(filed, FileIssue) and filed.kind == "flaky" and filed.recurrence_note is None
    assert filed.labels == ("gauntlet", "flaky") and filed.view.path == "tests/test_app.py"
    branch, effects = step(branch, ["fp1"], NOW + timedelta(days=3))
    [again] = effects
    assert isinstance(again, FileIssue) and again.key == filed.key and again.recurrence_note
    branch, effects = step(branch, [], NOW + timedelta(days=16))
    assert effects == ()
    branch, effects = step(branch, [], NOW + timedelta(days=17))
    [closed] = effects
    assert isinstance(closed, CloseIssue) and closed.key == filed.key and "14 days" in closed.reason
    assert step(branch, [], NOW + timedelta(days=18))[1] == (), "closed once"


def test_a_flake_within_ten_days_of_closing_reopens_the_same_issue_later_ones_file_a_fresh_one() -> None:
    branch, (filed,) = step(branch_with("fp1"), ["fp1"], NOW)
    closed_at = NOW + timedelta(days=14)
    branch, _ = step(branch, [], closed_at)
    branch, (reopened,) = step(branch, ["fp1"], closed_at + timedelta(days=9))
    assert isinstance(reopened, FileIssue) and reopened.key == filed.key
    later = closed_at + timedelta(days=9 + 14)
    branch, _ = step(branch, [], later)
    branch, (fresh,) = step(branch, ["fp1"], later + timedelta(days=11))
    assert isinstance(fresh, FileIssue) and fresh.key != filed.key and fresh.key.startswith(filed.key)


def test_ten_flaky_tests_of_one_component_share_one_issue() -> None:
    fps = [f"fp{i:02}" for i in range(12)]
    branch = branch_with(*fps)
    keys = []
    for fp in fps:
        branch, effects = step(branch, [fp], NOW)
        keys += [e.key for e in effects]
    assert len(set(keys[:9])) == 9, "one issue each below the threshold"
    component = component_of(None, "tests/test_app.py::fp00", CONFIG.components)
    assert set(keys[9:]) == {f"flaky:component:{component}"}, keys[9:]


def test_only_a_flip_on_the_runs_commit_is_a_flake_and_the_note_names_its_runs() -> None:
    # test_x failed and passed on commit a (a flake); then it fails on b, on b's rerun too, and passes on c.
    history = OutcomeHistory()
    runs = [("a", "1.1", True), ("a", "1.2", False), ("b", "2.1", True), ("b", "2.2", True), ("c", "3.1", False)]
    flakes: list[list[str]] = []
    branch = BranchRecord(name="main")
    for i, (commit, run, fails) in enumerate(runs):
        seen = RunOutcomes(job="ci/test", commit=commit * 40, run=run, failing={"fx": "t::x"} if fails else {})
        before = set(flaky_fingerprints(history, CONFIG.provenance))
        history = record(history, seen, NOW + timedelta(minutes=i))
        branch = BranchRecord(name="main", outcomes=history)
        flakes.append(flaked(branch, flaky_fingerprints(history, CONFIG.provenance), before, commit * 40, run))
    assert flakes == [[], ["fx"], [], [], []]  # b's failures are no flake, nor is c's pass after them
    branch = BranchRecord(name="main", outcomes=history)
    flaky = flaky_fingerprints(history, CONFIG.provenance)
    branch, (_filed,) = plan_flaky_issues(
        branch, flaky, ["fx"], repository="o/r", commit="a" * 40, run="1.2", config=CONFIG, now=NOW
    )
    branch, (again,) = plan_flaky_issues(
        branch, flaky, ["fx"], repository="o/r", commit="a" * 40, run="1.2", config=CONFIG, now=NOW
    )
    assert isinstance(again, FileIssue)
    assert again.recurrence_note == "Flaked again at aaaaaaa: on aaaaaaa it failed in run 1.1 and passed in run 1.2."
