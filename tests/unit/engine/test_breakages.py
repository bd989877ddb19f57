"""A default-branch job's runs and breakages: last-good per job, which failures can justify a revert, one open
breakage per job, and a green run ending it (closing its issue, marking a rerun's failures flaky)."""

from __future__ import annotations

from datetime import UTC, datetime

from gauntlet.engine.breakages import breakage_for, breaking_findings, record_run, recover
from gauntlet.models import Finding, Observation, evolve
from gauntlet.state.branch import BranchRecord
from gauntlet.state.pr import FindingRecord

NOW = datetime(2026, 11, 2, 9, tzinfo=UTC)


def _record(fp: str, kind: str = "test_failure", severity: str = "critical") -> FindingRecord:
    finding = Finding(fingerprint=fp, source="log", kind=kind, severity=severity, message=fp)  # type: ignore[arg-type]
    return FindingRecord.of(finding)


def _obs(sha: str, run_id: str = "1", attempt: str = "1", job: str = "test") -> Observation:
    return Observation(branch="main", head_sha=sha * 40, run_id=run_id, run_attempt=attempt, workflow="ci", job=job)


def test_a_green_run_moves_last_good_for_its_own_job_only() -> None:
    branch = record_run(BranchRecord(name="main"), _obs("a"), [], green=True, complete=True, now=NOW)
    branch = record_run(
        branch, _obs("b", job="lint"), [_record("l1", "lint", "major")], green=False, complete=True, now=NOW
    )
    assert branch.last_good == "a" * 40 and branch.good == {"ci/test": "a" * 40}
    assert [(r.job, r.green, r.failing) for r in branch.runs] == [("ci/test", True, []), ("ci/lint", False, ["l1"])]


def test_only_blocking_failures_of_breaking_kinds_can_justify_a_revert() -> None:
    records = [
        _record("t", "test_failure"),
        _record("b", "build_error"),
        _record("i", "infra", "major"),
        _record("d", "dependency", "major"),
        _record("m", "test_failure", "minor"),
    ]
    assert [r.fingerprint for r in breaking_findings(records)] == ["t", "b"]


def test_a_job_has_one_open_breakage_until_its_failures_change_on_a_new_commit() -> None:
    branch = record_run(BranchRecord(name="main"), _obs("a"), [], green=True, complete=True, now=NOW)
    red = [_record("t1")]
    branch = record_run(branch, _obs("b", "2"), red, green=False, complete=True, now=NOW)
    branch, first, closed = breakage_for(branch, _obs("b", "2"), red, NOW)
    assert closed == () and first.last_good == "a" * 40 and first.first_red == "b" * 40
    first = evolve(first, observations=[_obs("b", "2").id], sightings={"t1": 1})
    branch = evolve(branch, breakages=[first])
    # The same failures later: the same breakage.
    _, same, _ = breakage_for(branch, _obs("c", "3"), red, NOW)
    assert same.id == first.id
    # All-different failures on a new commit: the old breakage ends, a new one starts.
    branch, other, _ = breakage_for(branch, _obs("c", "3"), [_record("t9")], NOW)
    assert other.id != first.id
    assert branch.breakages[0].resolution == "recovered"


def test_a_green_rerun_of_a_red_commit_ends_the_breakage_as_flaky_and_closes_its_issue() -> None:
    branch = record_run(BranchRecord(name="main"), _obs("b", "2"), [_record("t1")], green=False, complete=True, now=NOW)
    branch, breakage, _ = breakage_for(branch, _obs("b", "2"), [_record("t1")], NOW)
    branch = evolve(branch, breakages=[evolve(breakage, escalated=True)])
    rerun = _obs("b", "2", attempt="2")
    branch = record_run(branch, rerun, [], green=True, complete=True, now=NOW)
    branch, effects = recover(branch, rerun, NOW)
    assert branch.breakages[0].resolution == "flaky" and branch.breakages[0].resolved_at == NOW
    assert branch.flaky == ["t1"]
    assert [e.type for e in effects] == ["close_issue"]
