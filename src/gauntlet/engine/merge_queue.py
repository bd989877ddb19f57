"""A merge queue run (``merge_group``): a check on the group's head, judged against the branch it merges into.

Theory of operation (DESIGN §3, "Merge queue")::

    the group's findings -> provenance against the base branch's outcome history, at the group's base_sha
                         -> only what ``block_on`` counts (``new``, ``unknown``) can fail the group
                         -> SetCheck on the group's head commit, and the job summary

A failure already on the base branch, or known flaky there, does not fail the group: the queue would
otherwise stall on what no PR in it caused. Nothing is written to the base branch's record: a queue branch's
failure is never that branch's break (no revert, no issue), and the group's commit counts for the base branch's
history once it lands there and CI runs on it. A new test failure is rerun once, as on a PR: a flake passes the
rerun (its report then holds no failure) instead of dropping the group from the queue.
"""

from __future__ import annotations

from datetime import datetime

from gauntlet.config import Config
from gauntlet.effects.models import Plan, SetCheck, WriteSummary
from gauntlet.effects.views import RunView
from gauntlet.engine import known, outcomes, provenance
from gauntlet.engine.branch_run import decision_of
from gauntlet.engine.loop import conclusion_of, fails_check
from gauntlet.engine.pull_request import flake_rerun
from gauntlet.models import Observation
from gauntlet.state.models import State
from gauntlet.state.outcomes import OutcomeHistory
from gauntlet.state.pr import FindingRecord

__all__ = ["step_merge_group"]


def step_merge_group(state: State, obs: Observation, config: Config, now: datetime) -> tuple[State, Plan]:
    """Judge a merge group's run and plan its check; the state is left as it is.

    :param state: the slice with ``state.base``, the record of the branch the group merges into.
    :param obs: a run with ``queue_base`` set.
    :param config: the repository configuration (``fail_on``, ``block_on``, the flaky thresholds).
    :param now: the time of the run.
    """
    records = [FindingRecord.of(f) for f in obs.findings]
    base = state.base
    # The group's own reruns are new observations of the same commit: a failure that passed on one of them is
    # flaky through the run's reports (``flaky_tests``); this run alone is its own history.
    own = outcomes.record(OutcomeHistory(), outcomes.of_run(obs, records, complete=True), now)
    judged = provenance.judge(
        records,
        job=obs.job_key,
        pr_history=own,
        base_history=base.outcomes if base is not None else None,
        base_jobs={r.job for r in base.runs if r.complete} if base is not None else set(),
        base_sha=obs.base_sha,
        flaky_tests=obs.flaky_tests,
        config=config.provenance,
        known=known.match(obs.findings, obs.known_failures.rules) if obs.known_failures is not None else None,
        rerun=obs.run_attempt not in ("", "1"),
    )
    unblocked = provenance.unblocked(judged, config.gauntlet.block_on)
    decision = decision_of(records)
    failing = fails_check(decision_of([r for r in records if r.fingerprint not in unblocked]), config.gauntlet.fail_on)
    view = RunView(
        repository=obs.repository,
        branch=obs.branch,
        head_sha=obs.head_sha,
        decision=decision,
        fail_on=config.gauntlet.fail_on,
        new=tuple(records),
        notes=(
            f"Merge queue: judged against `{obs.queue_base}`"
            + (f" at {obs.base_sha[:7]}" if obs.base_sha else "")
            + "; failures already there, or flaky, do not fail the group.",
            *(f"Not read: {p.message}" for p in obs.input_problems),
        ),
        blamed=provenance.blamed(judged, records, config.gauntlet.block_on),
    )
    misconfigured = any(p.misconfigured for p in obs.input_problems)
    check = SetCheck(
        head_sha=obs.head_sha,
        conclusion=conclusion_of(failing=failing, misconfigured=misconfigured),
        title=f"merge queue: {'red' if failing else 'green'} against {obs.queue_base}",
        view=view,
    )
    # A new test failure is rerun once, as on a PR: a flake passes and does not drop the group from the queue.
    rerun = flake_rerun(obs.run_id, obs.run_attempt, judged, records, config)
    effects = (check, WriteSummary(view=view), *rerun)
    plan = Plan(decision=decision, provenance=provenance.report_of(judged), effects=effects)
    return state, plan
