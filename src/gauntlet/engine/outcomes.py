"""Recording outcomes and reading flakiness out of them (DESIGN §3, provenance).

Theory of operation: every run adds, for each fingerprint it saw failing, a failed outcome, and for every
fingerprint already tracked in the same job that it did not see failing, a passed one, but only when the run
was complete (a run cut short by the infrastructure proves nothing passed). A test the run's reports list as
passed is a pass whatever the job. Delivering the same run again adds nothing: an outcome is keyed by
(fingerprint, commit, run attempt).

A fingerprint is **flaky** when a maintainer marked it so, when it failed and passed on the same commit
(a rerun, a retry plugin, JUnit ``flakyFailure``), or when its outcomes flip between pass and fail at least
``min_flips`` times at a rate of at least ``flip_rate`` per outcome. Only flips around an *isolated* failure
count (a failure that neither the outcome before nor the one after repeats): a real break fails again on
its confirming rerun and on every run until it is fixed, so break-fix-break cycles are not flakiness.
``not_flaky`` marks override the history.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict

from gauntlet.config import ProvenanceConfig
from gauntlet.models import Observation, evolve
from gauntlet.state.base import keep_last
from gauntlet.state.outcomes import (
    MAX_OUTCOME_DAYS,
    MAX_OUTCOMES_PER_TEST,
    MAX_TESTS_TRACKED,
    FlakyMark,
    Outcome,
    OutcomeHistory,
    TestOutcomes,
)
from gauntlet.state.pr import FindingRecord

__all__ = [
    "Flakiness",
    "RunOutcomes",
    "flakiness",
    "flaky_fingerprints",
    "flaky_on_one_commit",
    "flip_rate_of",
    "mark",
    "of_run",
    "record",
    "tracked",
]

_SHA = 12


class RunOutcomes(BaseModel):
    """What one run says about its tests."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    job: str
    commit: str
    #: ``<run id>.<run attempt>``.
    run: str
    #: Failing fingerprint -> its test id (``None`` for a finding without one).
    failing: dict[str, str | None]
    #: Test ids the run's reports list as passed.
    passed_tests: tuple[str, ...] = ()
    #: Test ids the run's reports list as failed and then passed on a retry (JUnit ``flakyFailure``).
    flaky_tests: tuple[str, ...] = ()
    #: False when the run was cut short: absence proves nothing then.
    complete: bool = True


class Flakiness(BaseModel):
    """Why a fingerprint counts as flaky, for the report (rate and last flip)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    fingerprint: str
    reason: str
    #: Flips per outcome over the window (0 when only marked or seen on one commit).
    rate: float
    last_flip: datetime | None = None


def of_run(obs: Observation, records: Sequence[FindingRecord], complete: bool) -> RunOutcomes:
    """What a run says about its tests: its failing (critical or major) fingerprints, and what passed."""
    return RunOutcomes(
        job=obs.job_key,
        commit=obs.head_sha,
        run=f"{obs.run_id}.{obs.run_attempt}",
        failing={f.fingerprint: f.test_id for f in records if f.severity in ("critical", "major")},
        passed_tests=obs.passed_tests,
        flaky_tests=obs.flaky_tests,
        complete=complete,
    )


def tracked(history: OutcomeHistory, fingerprint: str, job: str | None = None) -> TestOutcomes | None:
    """The tracked outcomes of ``fingerprint`` (in ``job`` when given), if any."""
    return next(
        (t for t in history.tests if t.fingerprint == fingerprint and (job is None or t.job == job)),
        None,
    )


def record(history: OutcomeHistory, run: RunOutcomes, now: datetime) -> OutcomeHistory:
    """Add the outcomes of one run; a redelivered run changes nothing.

    :param history: the branch's or PR's history.
    :param run: what the run saw.
    :param now: the time of the run (outcomes older than the window are dropped).
    """
    commit = run.commit[:_SHA]
    passed_ids = set(run.passed_tests) | set(run.flaky_tests)
    tests: list[TestOutcomes] = []
    seen: set[tuple[str, str]] = set()
    for known in history.tests:
        seen.add((known.fingerprint, known.job))
        if known.job == run.job and known.fingerprint in run.failing:
            known = _add(known, Outcome(commit=commit, run=run.run, passed=False, at=now))  # noqa: PLW2901
        elif (known.job == run.job and run.complete) or (known.test_id is not None and known.test_id in passed_ids):
            known = _add(known, Outcome(commit=commit, run=run.run, passed=True, at=now))  # noqa: PLW2901
        tests.append(known)
    for fingerprint, test_id in sorted(run.failing.items()):
        if (fingerprint, run.job) not in seen:
            fresh = TestOutcomes(fingerprint=fingerprint, job=run.job, test_id=test_id)
            tests.append(_add(fresh, Outcome(commit=commit, run=run.run, passed=False, at=now)))
    for test_id in sorted(set(run.flaky_tests)):
        # Failed, then passed on a retry within the run: both outcomes on this commit (the pass is recorded above).
        at = next((i for i, t in enumerate(tests) if t.test_id == test_id), None)
        test = (
            tests[at] if at is not None else TestOutcomes(fingerprint=f"test:{test_id}", job=run.job, test_id=test_id)
        )
        retry = f"{run.run}.retry"
        test = _add(
            _add(test, Outcome(commit=commit, run=run.run, passed=False, at=now)),
            Outcome(commit=commit, run=retry, passed=True, at=now),
        )
        if at is None:
            tests.append(test)
        else:
            tests[at] = test
    return OutcomeHistory(tests=_bounded(tests, now))


def mark(
    history: OutcomeHistory, fingerprint: str, job: str, test_id: str | None, value: FlakyMark | None
) -> OutcomeHistory:
    """Record a maintainer's ``flaky`` / ``not-flaky`` mark (``None`` removes it)."""
    found = False
    tests: list[TestOutcomes] = []
    for test in history.tests:
        if test.fingerprint == fingerprint:
            found = True
            test = evolve(test, mark=value)  # noqa: PLW2901
        tests.append(test)
    if not found and value is not None:
        tests.append(TestOutcomes(fingerprint=fingerprint, job=job, test_id=test_id, mark=value))
    return OutcomeHistory(tests=tests)


def flakiness(test: TestOutcomes, *, flip_rate: float, min_flips: int, across_commits: bool = True) -> Flakiness | None:
    """Why ``test`` is flaky, or ``None`` when it is not (see the module docstring).

    :param across_commits: count flips between commits too (the default branch); a PR's flips across its
        commits are its author's work, so only failing and passing on one commit counts there.
    """
    if test.mark == "not_flaky":
        return None
    outcomes = test.outcomes
    isolated = _isolated(outcomes)
    flips = sorted({outcomes[j].at for i in isolated for j in (i, i + 1)})
    rate = flip_rate_of(outcomes)
    last = flips[-1] if flips else None
    if test.mark == "flaky":
        return Flakiness(fingerprint=test.fingerprint, reason="marked flaky by a maintainer", rate=rate, last_flip=last)
    both = _both_on_one_commit(outcomes)
    if both is not None:
        return Flakiness(
            fingerprint=test.fingerprint,
            reason=f"failed and passed on the same commit {both[:7]}",
            rate=rate,
            last_flip=last,
        )
    if across_commits and flips_past_rate(test, flip_rate=flip_rate, min_flips=min_flips):
        return Flakiness(
            fingerprint=test.fingerprint,
            reason=f"failed alone {len(isolated)} times in its last {len(outcomes)} outcomes",
            rate=rate,
            last_flip=last,
        )
    return None


def flips_past_rate(test: TestOutcomes, *, flip_rate: float, min_flips: int) -> bool:
    """True when ``test`` fails alone often (at least ``min_flips`` flips, at ``flip_rate`` or more): a chronic
    flake, where one failure and pass on one commit is only a flake once."""
    return 2 * len(_isolated(test.outcomes)) >= min_flips and flip_rate_of(test.outcomes) >= flip_rate


def flip_rate_of(outcomes: Sequence[Outcome]) -> float:
    """Flips per outcome around isolated failures: THE flip rate, which flaky issues and the dashboard both show.

    A failure neither the outcome before nor the one after repeats flips twice (fail, then pass); a real break
    fails on its reruns and every run until fixed, so it adds nothing (see the module docstring).
    """
    return 2 * len(_isolated(outcomes)) / (len(outcomes) - 1) if len(outcomes) > 1 else 0.0


def _isolated(outcomes: Sequence[Outcome]) -> list[int]:
    return [
        i
        for i in range(1, len(outcomes) - 1)
        if not outcomes[i].passed and outcomes[i - 1].passed and outcomes[i + 1].passed
    ]


def flaky_on_one_commit(history: OutcomeHistory) -> list[str]:
    """The fingerprints a PR's own history proves flaky, sorted: marked, or failed and passed on one commit.

    Flips across a PR's commits are its author's work (an A/B oscillation of a circular fix is not flakiness).
    """
    # The rate and flip thresholds only judge flips across commits, which this question leaves out.
    return sorted(
        t.fingerprint for t in history.tests if flakiness(t, flip_rate=1.0, min_flips=1, across_commits=False)
    )


def flaky_fingerprints(history: OutcomeHistory, config: ProvenanceConfig) -> dict[str, Flakiness]:
    """Every flaky fingerprint of ``history`` and why."""
    found: dict[str, Flakiness] = {}
    for test in history.tests:
        why = flakiness(test, flip_rate=config.flaky_flip_rate, min_flips=config.flaky_min_flips)
        if why is not None and test.fingerprint not in found:
            found[test.fingerprint] = why
    return found


def _both_on_one_commit(outcomes: Iterable[Outcome]) -> str | None:
    by_commit: dict[str, set[bool]] = {}
    newest: str | None = None
    for outcome in outcomes:
        by_commit.setdefault(outcome.commit, set()).add(outcome.passed)
        if len(by_commit[outcome.commit]) == 2:
            newest = outcome.commit
    return newest


def _has(test: TestOutcomes, commit: str, run: str, *, passed: bool | None = None) -> bool:
    return any(o.commit == commit and o.run == run and (passed is None or o.passed == passed) for o in test.outcomes)


def _add(test: TestOutcomes, outcome: Outcome) -> TestOutcomes:
    if _has(test, outcome.commit, outcome.run):
        return test
    return evolve(test, outcomes=[*test.outcomes, outcome])


def _bounded(tests: list[TestOutcomes], now: datetime) -> list[TestOutcomes]:
    """Drop outcomes past the window, fingerprints with no failure left (unless marked), the oldest beyond the cap."""
    since = now - timedelta(days=MAX_OUTCOME_DAYS)
    kept: list[TestOutcomes] = []
    for test in tests:
        outcomes = keep_last([o for o in test.outcomes if o.at >= since], MAX_OUTCOMES_PER_TEST)
        if test.mark is None and not any(not o.passed for o in outcomes):
            continue
        kept.append(test if outcomes == test.outcomes else evolve(test, outcomes=outcomes))
    if len(kept) <= MAX_TESTS_TRACKED:
        return kept
    newest = sorted(kept, key=lambda t: max((o.at for o in t.outcomes if not o.passed), default=since), reverse=True)
    keep = {id(t) for t in newest[:MAX_TESTS_TRACKED]}
    return [t for t in kept if id(t) in keep]
