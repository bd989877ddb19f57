"""Provenance of failing PR findings (engine/provenance.py) and the check that follows it (DESIGN §3)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from gauntlet.config import Config, ProvenanceConfig
from gauntlet.effects.models import RerunFailedJobs, SetCheck
from gauntlet.engine.decide import decide
from gauntlet.engine.outcomes import RunOutcomes, record
from gauntlet.engine.provenance import judge, report_of, unblocked
from gauntlet.models import Finding, Observation
from gauntlet.state.branch import BranchRecord, RunRecord
from gauntlet.state.models import State
from gauntlet.state.outcomes import OutcomeHistory
from gauntlet.state.pr import FindingRecord, PRRecord

NOW = datetime(2026, 11, 29, 12, tzinfo=UTC)
JOB = "ci/test"


def finding(fp: str, test: str, severity: str = "critical") -> Finding:
    return Finding.model_validate(
        {
            "fingerprint": fp,
            "source": "junit",
            "kind": "test_failure",
            "severity": severity,
            "test_id": test,
            "message": f"{test} failed",
        }
    )


def history(*runs: tuple[str, str, dict[str, str | None]]) -> OutcomeHistory:
    out = OutcomeHistory()
    for i, (commit, run, failing) in enumerate(runs):
        out = record(
            out, RunOutcomes(job=JOB, commit=commit * 12, run=run, failing=failing), NOW + timedelta(minutes=i)
        )
    return out


def words(findings: list[Finding], base: OutcomeHistory | None, *, jobs: set[str] | None = None) -> dict[str, str]:
    judged = judge(
        [FindingRecord.of(f) for f in findings],
        job=JOB,
        pr_history=OutcomeHistory(),
        base_history=base,
        base_jobs={JOB} if jobs is None else jobs,
        base_sha=None,
        flaky_tests=(),
        config=ProvenanceConfig(),
    )
    return {j.fingerprint: j.provenance for j in judged}


def test_each_word_from_the_default_branch_history() -> None:
    base = history(
        ("a", "1.1", {"pre": "t::pre", "flk": "t::flk"}),
        ("a", "1.2", {"pre": "t::pre"}),  # flk passed on the rerun of the same commit: flaky
    )
    found = [finding("pre", "t::pre"), finding("flk", "t::flk"), finding("mine", "t::mine")]
    assert words(found, base) == {"pre": "preexisting", "flk": "flaky", "mine": "new"}
    assert words(found, None, jobs=set()) == dict.fromkeys(["pre", "flk", "mine"], "unknown")


def test_a_fixed_failure_on_the_default_branch_is_new_again_and_minors_have_no_provenance() -> None:
    base = history(("a", "1.1", {"pre": "t::pre"}), ("b", "2.1", {}))
    assert words([finding("pre", "t::pre"), finding("nit", "t::nit", "minor")], base) == {"pre": "new"}


def test_the_test_id_finds_the_history_when_the_fingerprint_moved() -> None:
    base = history(("a", "1.1", {"old-fp": "t::pre"}))
    assert words([finding("new-fp", "t::pre")], base) == {"new-fp": "preexisting"}


def test_block_on_and_the_report() -> None:
    base = history(("a", "1.1", {"pre": "t::pre"}))
    judged = judge(
        [FindingRecord.of(finding("pre", "t::pre")), FindingRecord.of(finding("mine", "t::mine"))],
        job=JOB,
        pr_history=OutcomeHistory(),
        base_history=base,
        base_jobs={JOB},
        base_sha=None,
        flaky_tests=(),
        config=ProvenanceConfig(),
    )
    assert unblocked(judged, ("new", "unknown")) == {"pre"}
    assert unblocked(judged, ("new", "unknown", "preexisting")) == set()
    report = report_of(judged)
    assert report.counts == {"new": 1, "preexisting": 1, "flaky": 0, "unknown": 0, "known": 0}
    assert report.fingerprints == {"pre": "preexisting", "mine": "new"}


def pr_run(
    state: State,
    findings: tuple[Finding, ...],
    attempt: str,
    config: Config,
    event: str = "workflow_run",
    run_id: str = "99",
) -> tuple[State, str, bool]:
    """A PR's CI run seen from ``workflow_run`` (Gauntlet can rerun it), or by a step inside it (``event``
    ``pull_request``)."""
    obs = Observation(
        event=event,
        pr=7,
        head_sha="b" * 40,
        run_id=run_id,
        run_attempt=attempt,
        workflow="ci",
        job="test",
        findings=findings,
    )
    state, plan = decide(state, obs, config, NOW, np.random.default_rng(0))
    check = next(e for e in plan.effects if isinstance(e, SetCheck))
    return state, check.conclusion, any(isinstance(e, RerunFailedJobs) for e in plan.effects)


def base_record() -> BranchRecord:
    outcomes = history(("a", "1.1", {"pre": "t::pre"}))
    run = RunRecord(observation="a:1:1:test", head_sha="a" * 40, at=NOW, green=False, job=JOB)
    return BranchRecord(name="main", runs=[run], outcomes=outcomes)


def test_a_preexisting_failure_does_not_fail_the_pr_check_unless_block_on_says_so() -> None:
    state = State(pr=PRRecord(number=7), base=base_record())
    _, conclusion, rerun = pr_run(state, (finding("pre", "t::pre"),), "1", Config())
    assert conclusion == "success" and not rerun
    strict = Config.model_validate({"gauntlet": {"block_on": ["new", "unknown", "preexisting"]}})
    assert pr_run(state, (finding("pre", "t::pre"),), "1", strict)[1] == "failure"


def test_a_new_pr_failure_fails_the_check_asks_for_one_rerun_and_turns_flaky_when_it_passes() -> None:
    state = State(pr=PRRecord(number=7), base=base_record())
    state, conclusion, rerun = pr_run(state, (finding("mine", "t::mine"),), "1", Config())
    assert conclusion == "failure" and rerun
    state, conclusion, rerun = pr_run(state, (finding("mine", "t::mine"),), "2", Config())
    assert conclusion == "failure" and not rerun, "only a run's first attempt asks for a rerun"
    state = State(pr=PRRecord(number=7), base=base_record())
    state, _, _ = pr_run(state, (finding("mine", "t::mine"),), "1", Config())
    state, conclusion, _ = pr_run(state, (), "2", Config())
    assert conclusion == "success"
    # The same failure again on this commit is known flaky now: reported, and the check passes.
    state, conclusion, _ = pr_run(state, (finding("mine", "t::mine"),), "3", Config())
    assert conclusion == "success"
    assert state.pr is not None and state.pr.outcomes.tests[0].fingerprint == "mine"


def test_a_flaky_history_is_rerun_and_a_failure_that_fails_again_is_new() -> None:
    """Issue 30: one flake must not switch off protection for that test, on a PR as on the default branch."""
    outcomes = history(("a", "1.1", {"flk": "t::flk"}), ("a", "1.2", {}))  # failed and passed on one commit
    run = RunRecord(observation="a:1:2:test", head_sha="a" * 40, at=NOW, green=True, job=JOB)
    flaky_base = BranchRecord(name="main", runs=[run], outcomes=outcomes)
    state = State(pr=PRRecord(number=7), base=flaky_base)
    state, conclusion, rerun = pr_run(state, (finding("flk", "t::flk"),), "1", Config())
    assert conclusion == "success" and rerun, "flaky by its history: not blocking, and rerun to tell"
    state, conclusion, rerun = pr_run(state, (finding("flk", "t::flk"),), "2", Config())
    assert conclusion == "failure" and not rerun, "it failed again on its own commit: a regression"
    state = State(pr=PRRecord(number=7), base=flaky_base)
    state, _, _ = pr_run(state, (finding("flk", "t::flk"),), "1", Config())
    state, conclusion, _ = pr_run(state, (), "2", Config())
    assert conclusion == "success", "it passed on the rerun: another flake"


def test_a_step_that_cannot_rerun_its_run_does_not_take_a_flaky_history_for_a_flake() -> None:
    """Issue 29: as a step of CI's job Gauntlet cannot rerun its own run, so the history cannot stand in for the
    rerun: the failure is the PR's until a person's rerun passes it."""
    outcomes = history(("a", "1.1", {"flk": "t::flk"}), ("a", "1.2", {}))
    run = RunRecord(observation="a:1:2:test", head_sha="a" * 40, at=NOW, green=True, job=JOB)
    flaky_base = BranchRecord(name="main", runs=[run], outcomes=outcomes)
    state = State(pr=PRRecord(number=7), base=flaky_base)
    state, conclusion, _ = pr_run(state, (finding("flk", "t::flk"),), "1", Config(), event="pull_request")
    assert conclusion == "failure", "no rerun of Gauntlet's can come: this commit's failure is the PR's"
    assert state.pr is not None and state.pr.current is not None and state.pr.current.inside_run
    # A review event's run is Gauntlet's own: it does not make the CI run rerunnable.
    state, conclusion, _ = pr_run(state, (), "1", Config(), event="pull_request_review", run_id="100")
    assert conclusion == "failure"
    state, conclusion, _ = pr_run(state, (), "2", Config(), event="pull_request")
    assert conclusion == "success", "a person reran it and it passed: a flake"


def test_a_step_takes_a_chronic_flakes_history_for_a_flake() -> None:
    """A test that fails alone often on the default branch (past the flip rate) is flaky by its history even where
    no rerun can come (DESIGN's contract); only the test that flaked now and then waits for one."""
    runs = [(c, f"{n}.1", {"flk": "t::flk"} if n % 2 == 0 else {}) for n, c in enumerate("abcdefgh")]
    chronic = BranchRecord(
        name="main",
        runs=[RunRecord(observation="h:7:1:test", head_sha="h" * 40, at=NOW, green=True, job=JOB)],
        outcomes=history(*runs),
    )
    state = State(pr=PRRecord(number=7), base=chronic)
    _, conclusion, _ = pr_run(state, (finding("flk", "t::flk"),), "1", Config(), event="pull_request")
    assert conclusion == "success"
