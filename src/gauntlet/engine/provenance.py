"""Provenance of each failing finding (DESIGN §3, contract): ``known``, ``flaky``, ``preexisting``, ``new`` or
``unknown``.

Theory of operation: a failing finding (critical or major) of a PR run is judged against the open known-failure
issues (:mod:`gauntlet.engine.known`) and two outcome histories (:mod:`gauntlet.engine.outcomes`), the PR's own
and the default branch's, first match wins::

    0. known        an open known-failure issue's rule matches it: a maintainer said so, the most deliberate
                    evidence there is (the comment links the issue)
    1. flaky        marked flaky, listed as flaky by the run's reports, failed and passed on one commit
                    (in the PR or on the default branch), or flips on the default branch past the rate;
                    but a flaky *history* only stands in for the rerun Gauntlet asks for: a test that
                    fails on the rerun of its own commit, or in a run Gauntlet cannot rerun (it is a
                    step inside it: a person's rerun tells), is judged by 2-4 (a flaky test can break)
    2. preexisting  its latest outcome on the default branch, at or before the PR's base commit, is a failure
    3. new          the default branch has a complete run of the job (so the finding passed there or
                    did not exist)
    4. unknown      no history of the job on the default branch yet

Only ``block_on`` provenances (``new`` and ``unknown`` by default) count toward ``fail_on``: a PR is not
failed for what was already broken, flaky or known before it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from gauntlet.config import Config, ProvenanceConfig
from gauntlet.effects.views import Blamed
from gauntlet.engine import outcomes
from gauntlet.engine.outcomes import Flakiness
from gauntlet.jobkey import covers
from gauntlet.state.branch import BranchRecord, same_commit
from gauntlet.state.known import KnownMatch
from gauntlet.state.outcomes import Outcome, OutcomeHistory, TestOutcomes
from gauntlet.state.pr import FindingRecord, PRRecord
from gauntlet.vocabulary import ProvenanceReport, ProvenanceWord

__all__ = ["WORDS", "Judged", "blamed", "has_provenance", "judge", "judge_pr", "report_of", "unblocked"]

WORDS: tuple[ProvenanceWord, ...] = ("new", "preexisting", "flaky", "unknown", "known")


class Judged(BaseModel):
    """One failing finding and its provenance, with why (the flake rate and last flip when flaky)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    fingerprint: str
    provenance: ProvenanceWord
    why: str
    flaky: Flakiness | None = None
    #: For a known one: the known-failure issue it matched.
    known: KnownMatch | None = None
    #: Flaky by the default branch's history alone, not by anything seen on this commit: a rerun tells.
    by_history: bool = False


def report_of(judged: Iterable[Judged]) -> ProvenanceReport:
    """Summarise the judged findings for ``run --json``."""
    items = list(judged)
    return ProvenanceReport(
        counts={word: sum(1 for j in items if j.provenance == word) for word in WORDS},
        fingerprints={j.fingerprint: j.provenance for j in items},
    )


def judge(
    findings: Sequence[FindingRecord],
    *,
    job: str,
    pr_history: OutcomeHistory,
    base_history: OutcomeHistory | None,
    base_jobs: Collection[str],
    base_sha: str | None,
    flaky_tests: Collection[str],
    config: ProvenanceConfig,
    known: Mapping[str, KnownMatch] | None = None,
    rerun: bool = False,
    inside_run: bool = False,
) -> list[Judged]:
    """The provenance of each failing finding, in the order given (non-failing findings are skipped).

    :param findings: the findings of the PR's current iteration.
    :param job: the run's ``workflow/job``.
    :param pr_history: the PR's outcome history, this run included.
    :param base_history: the default branch's outcome history (``None``: not loaded).
    :param base_jobs: the jobs that have a complete run on the default branch.
    :param base_sha: the PR's base commit, when known.
    :param flaky_tests: test ids the run's reports list as failed and then passed on a retry.
    :param config: the flaky thresholds.
    :param known: fingerprint -> the known-failure issue it matched (``engine/known.py``).
    :param rerun: the run is a rerun of failed jobs on the same commit (attempt 2 or later): what fails in it
        failed before on this commit too.
    :param inside_run: Gauntlet is a step inside the run (:attr:`Observation.inside_run`) and cannot rerun it.
    """
    base = base_history or OutcomeHistory()
    base_flaky = outcomes.flaky_fingerprints(base, config)
    # A run that names no job (``gauntlet run`` on files) is compared with any job of the default branch; a
    # job is known when a run of it, or a whole CI run that holds it, completed there (``jobkey.covers``).
    job_known = bool(base_jobs) and (job.strip("/") == "" or any(covers(seen, job) for seen in base_jobs))
    judged: list[Judged] = []
    for finding in findings:
        if finding.severity not in ("critical", "major") or not has_provenance(finding):
            continue
        matched = (known or {}).get(finding.fingerprint)
        if matched is not None:
            why = f"matches known-failure issue #{matched.issue}"
            judged.append(Judged(fingerprint=finding.fingerprint, provenance="known", why=why, known=matched))
            continue
        judged.append(
            _one(
                finding,
                job,
                pr_history,
                base,
                base_flaky,
                job_known,
                base_sha,
                flaky_tests,
                config,
                rerun=rerun,
                inside_run=inside_run,
            )
        )
    return judged


#: Findings read from a findings file (a linter's report, a scanner's) or written by people: they describe the
#: change's code, not a CI run's outcome, so there is no default-branch run to compare them with.
_WITHOUT_PROVENANCE = frozenset({"review", "comment"})
_FILE_ONLY_KINDS = frozenset({"lint", "security", "review"})


def has_provenance(finding: FindingRecord) -> bool:
    """True for a CI failure (a test, a build, a crash; lint a CI job printed), which provenance judges; a
    review finding, or lint and security findings from a findings file, have none."""
    if finding.source in _WITHOUT_PROVENANCE:
        return False
    return finding.source == "log" or finding.kind not in _FILE_ONLY_KINDS


def judge_pr(
    base: BranchRecord | None,
    pr: PRRecord,
    findings: Sequence[FindingRecord],
    config: Config,
    *,
    job: str,
    base_sha: str | None,
    flaky_tests: Collection[str],
    known: Mapping[str, KnownMatch] | None = None,
    rerun: bool = False,
    inside_run: bool = False,
) -> list[Judged]:
    """:func:`judge` a PR's current findings against its own history and the default branch's (``base``).

    :param job: the run's ``workflow/job``; ``base_sha`` its merge base; ``flaky_tests`` what a maintainer marked;
        ``known`` the known-failure issues its failures matched; ``rerun`` whether the run is a rerun of failed jobs;
        ``inside_run`` whether Gauntlet was a step inside it.
    """
    return judge(
        findings,
        job=job,
        pr_history=pr.outcomes,
        base_history=base.outcomes if base is not None else None,
        base_jobs={r.job for r in base.runs if r.complete} if base is not None else set(),
        base_sha=base_sha,
        flaky_tests=flaky_tests,
        config=config.provenance,
        known=known,
        rerun=rerun,
        inside_run=inside_run,
    )


def blamed(
    judged: Iterable[Judged], findings: Sequence[FindingRecord], block_on: Collection[str]
) -> tuple[Blamed, ...]:
    """The judged findings as the comment and the check show them, grouped in :data:`WORDS` order."""
    by_fp = {f.fingerprint: f for f in findings}
    items = [j for j in judged if j.fingerprint in by_fp]
    items.sort(key=lambda j: WORDS.index(j.provenance))
    return tuple(
        Blamed(
            finding=by_fp[j.fingerprint],
            provenance=j.provenance,
            why=j.why,
            blocks=j.provenance in block_on,
            rate=j.flaky.rate if j.flaky else None,
            last_flip=j.flaky.last_flip if j.flaky else None,
            issue=j.known.issue if j.known else None,
            issue_url=j.known.url if j.known else None,
        )
        for j in items
    )


def unblocked(judged: Iterable[Judged], block_on: Collection[str]) -> set[str]:
    """The fingerprints whose provenance ``block_on`` does not count toward the check."""
    return {j.fingerprint for j in judged if j.provenance not in block_on}


def _one(
    finding: FindingRecord,
    job: str,
    pr_history: OutcomeHistory,
    base: OutcomeHistory,
    base_flaky: Mapping[str, Flakiness],
    known: bool,
    base_sha: str | None,
    flaky_tests: Collection[str],
    config: ProvenanceConfig,
    *,
    rerun: bool,
    inside_run: bool,
) -> Judged:
    fp = finding.fingerprint
    on_base = _on_base(base, finding)
    by_history = False
    set_aside: Flakiness | None = None
    if on_base is not None and on_base.mark == "not_flaky":
        flaky = None
    else:
        flaky = base_flaky.get(on_base.fingerprint) if on_base is not None else None
        by_history = flaky is not None and on_base is not None and on_base.mark != "flaky"
        if by_history and on_base is not None and not _history_excuses(on_base, rerun, inside_run, config):
            # It failed again on the rerun of this commit, or no rerun by Gauntlet can come for a test that
            # flaked only now and then: the history alone does not make this failure a flake.
            flaky, by_history, set_aside = None, False, flaky
        mine = outcomes.tracked(pr_history, fp, job)
        if flaky is None and mine is not None:
            # A PR's own history proves flakiness only on one commit: flips across commits are the author's work.
            flaky = outcomes.flakiness(
                mine, flip_rate=config.flaky_flip_rate, min_flips=config.flaky_min_flips, across_commits=False
            )
    if flaky is None and finding.test_id is not None and finding.test_id in flaky_tests:
        flaky = Flakiness(fingerprint=fp, reason="the test report shows it failed and passed on a retry", rate=0.0)
    if flaky is not None:
        return Judged(fingerprint=fp, provenance="flaky", why=flaky.reason, flaky=flaky, by_history=by_history)
    if on_base is not None:
        latest = _latest_at_or_before(on_base.outcomes, base_sha)
        if latest is not None and not latest.passed:
            return Judged(
                fingerprint=fp,
                provenance="preexisting",
                why=f"fails on the default branch too, last at {latest.commit[:7]}",
            )
    if known or on_base is not None:
        why = "passes on the default branch, or is not there at all"
        if set_aside is not None:
            why += f"; it has flaked there (flip rate {set_aside.rate:.0%}), and only a rerun of this commit tells"
        return Judged(fingerprint=fp, provenance="new", why=why)
    return Judged(fingerprint=fp, provenance="unknown", why="no history of this job on the default branch yet")


def _history_excuses(on_base: TestOutcomes, rerun: bool, inside_run: bool, config: ProvenanceConfig) -> bool:
    """Whether a flaky history on the default branch may call this run's failure a flake.

    It stands in for the rerun Gauntlet asks for on a first attempt, never against a rerun that failed again.
    A step inside the run asks for none (GitHub reruns only completed runs), so there only a chronic flake's
    history excuses a failure; a test that flaked now and then counts until a person's rerun tells.
    """
    if rerun:
        return False
    return not inside_run or outcomes.flips_past_rate(
        on_base, flip_rate=config.flaky_flip_rate, min_flips=config.flaky_min_flips
    )


def _on_base(base: OutcomeHistory, finding: FindingRecord) -> TestOutcomes | None:
    found = next((t for t in base.tests if t.fingerprint == finding.fingerprint), None)
    if found is None and finding.test_id:
        found = next((t for t in base.tests if t.test_id == finding.test_id), None)
    return found


def _latest_at_or_before(history: Sequence[Outcome], base_sha: str | None) -> Outcome | None:
    """The newest outcome, or the newest at the base commit and before it when the history reaches it."""
    if not history:
        return None
    if base_sha:
        at_base = [i for i, o in enumerate(history) if same_commit(o.commit, base_sha)]
        if at_base:
            return history[at_base[-1]]
    return history[-1]
