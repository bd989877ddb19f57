"""Breakages of the default branch: one red spell of one job, from its first red run until it is green again.

The bookkeeping :mod:`gauntlet.engine.branch_run` relies on: record a run, fold in
what GitHub says about revert PRs, open, extend, supersede and resolve
breakages. Pure functions from a :class:`~gauntlet.state.branch.BranchRecord`
to a new one; :mod:`gauntlet.engine.revert` decides on what they collect.
"""

from __future__ import annotations

from datetime import datetime

from gauntlet.effects.models import CloseIssue, Effect, WithdrawRevertPR
from gauntlet.engine import recovery
from gauntlet.engine.revert import suspects_between
from gauntlet.models import CommitFact, Observation, evolve
from gauntlet.state.base import keep_last
from gauntlet.state.branch import (
    MAX_BREAKAGE_FINDINGS,
    MAX_BREAKAGES_KEPT,
    MAX_FLAKY_KEPT,
    MAX_REVERTS_KEPT,
    MAX_RUNS_KEPT,
    BranchRecord,
    Breakage,
    RevertRecord,
    RunRecord,
    same_commit,
)
from gauntlet.state.pr import FindingRecord

__all__ = [
    "breakage_for",
    "breaking_findings",
    "extend",
    "failing_sets",
    "fold_revert_facts",
    "issue_ident",
    "record_run",
    "recover",
    "replace",
    "resolve",
    "withdraw_reverted_by_hand",
]


def record_run(
    branch: BranchRecord, obs: Observation, records: list[FindingRecord], *, green: bool, complete: bool, now: datetime
) -> BranchRecord:
    """Record the run; a green one moves last-good.

    A run cut short by the infrastructure (or failing for no known reason) is not
    ``complete``: it verified nothing, whatever ``fail_on`` says, so it never becomes
    last-good and never counts as a pass (it could hide the culprit of a later red run).
    """
    job = obs.job_key
    failing = sorted(f.fingerprint for f in records if f.severity in recovery.BLOCKING_SEVERITIES)
    run = RunRecord(
        observation=obs.id, head_sha=obs.head_sha, at=now, green=green, failing=failing, job=job, complete=complete
    )
    update: dict[str, object] = {"runs": keep_last([*branch.runs, run], MAX_RUNS_KEPT)}
    if green:
        update |= {"last_good": obs.head_sha, "good": {**branch.good, job: obs.head_sha}}
    return evolve(branch, **update)


def fold_revert_facts(branch: BranchRecord, obs: Observation, index: dict[str, int], now: datetime) -> BranchRecord:
    """Bring the revert history up to date with what GitHub says about earlier revert PRs.

    A revert PR found only in the effect index (a run that opened it died before
    saving the branch file) is recorded too, so it is never opened twice.
    """
    reverts = list(branch.reverts)
    for fact in obs.revert_prs:
        at = next((i for i, r in enumerate(reverts) if same_commit(r.culprit, fact.culprit)), None)
        if at is None:
            reverts.append(
                RevertRecord(culprit=fact.culprit, breakage="", opened_at=now, status=fact.state, number=fact.number)
            )
        else:
            reverts[at] = evolve(reverts[at], status=fact.state, number=fact.number)
    for key, number in sorted(index.items()):
        culprit = key.removeprefix("revert:")
        if key.startswith("revert:") and not any(same_commit(r.culprit, culprit) for r in reverts):
            reverts.append(RevertRecord(culprit=culprit, breakage="", opened_at=now, number=number))
    if reverts == branch.reverts:
        return branch
    return evolve(branch, reverts=keep_last(reverts, MAX_REVERTS_KEPT))


def recover(branch: BranchRecord, obs: Observation, now: datetime) -> tuple[BranchRecord, tuple[Effect, ...]]:
    """A green run ends its job's breakage; a commit that failed and now passed marks its failures flaky.

    A revert PR Gauntlet opened for the breakage and nobody merged is withdrawn: the job is green without it
    (the rerun passed, or a later commit fixed it), so it would undo a commit that breaks nothing.
    """
    breakage = branch.open_breakage(obs.job_key)
    if breakage is None:
        return branch, ()
    still = {fp for r in branch.runs if r.observation == obs.id for fp in r.failing}
    failed_here = {
        fp
        for r in branch.runs
        if r.head_sha == obs.head_sha and r.job == breakage.job and r.observation != obs.id and r.complete
        for fp in r.failing
    } - still
    undone = _undone(branch, breakage, obs)
    resolution = "reverted" if undone else "flaky" if failed_here else "recovered"
    flaky = keep_last([*branch.flaky, *sorted(failed_here - set(branch.flaky))], MAX_FLAKY_KEPT)
    branch = evolve(branch, flaky=flaky)
    why = f"`{breakage.job}` is green again at {obs.head_sha[:7]}"
    branch, closed = resolve(branch, breakage, resolution, why, now)
    cause = "the rerun passed: the failure was flaky" if failed_here else "a later commit made it pass"
    branch, withdrawn = _withdraw_unneeded(branch, breakage, obs, f"{why} without this revert ({cause})")
    return branch, (*closed, *withdrawn)


def _undone(branch: BranchRecord, breakage: Breakage, obs: Observation) -> bool:
    """True when the breakage's culprit is reverted: Gauntlet's revert PR merged, or a revert commit observed."""
    revert = branch.revert_of(breakage.culprit or "")
    return revert is not None and (revert.status == "merged" or _reverted_in(obs, revert.culprit))


def _withdraw_unneeded(
    branch: BranchRecord, ended: Breakage, obs: Observation, why: str
) -> tuple[BranchRecord, tuple[Effect, ...]]:
    """Withdraw the open revert PR of a breakage that ended without it (unless another breakage still wants it)."""
    revert = branch.revert_of(ended.culprit or "")
    if revert is None or revert.status != "open" or revert.withdrawn or _undone(branch, ended, obs):
        return branch, ()
    if any(b.open and b.culprit and same_commit(b.culprit, revert.culprit) for b in branch.breakages):
        return branch, ()  # another job still fails on the culprit: the revert is still wanted
    reason = f"{why}, so the revert is no longer needed."
    return _withdraw(branch, revert), (WithdrawRevertPR(culprit=revert.culprit, reason=reason),)


def withdraw_reverted_by_hand(branch: BranchRecord, obs: Observation) -> tuple[BranchRecord, tuple[Effect, ...]]:
    """Withdraw Gauntlet's open revert PRs whose culprit someone already reverted on the branch."""
    effects: list[Effect] = []
    for revert in list(branch.reverts):
        if revert.status != "open" or revert.withdrawn:
            continue
        human = next((c for c in obs.commits if c.reverts and same_commit(c.reverts, revert.culprit)), None)
        if human is None:
            continue
        reason = f"{human.sha[:7]} already reverts {revert.culprit[:7]} on the branch, so this revert is not needed."
        branch = _withdraw(branch, revert)
        effects.append(WithdrawRevertPR(culprit=revert.culprit, reason=reason))
    return branch, tuple(effects)


def _withdraw(branch: BranchRecord, revert: RevertRecord) -> BranchRecord:
    """Mark ``revert`` withdrawn: closed by Gauntlet itself, which a later decision must not take for a person's."""
    reverts = [evolve(r, withdrawn=True) if r is revert else r for r in branch.reverts]
    return evolve(branch, reverts=reverts)


def _reverted_in(obs: Observation, culprit: str) -> bool:
    """True when the observed history holds a commit that reverts ``culprit`` (Gauntlet's, merged)."""
    return any(c.reverts and same_commit(c.reverts, culprit) for c in obs.commits)


def resolve(
    branch: BranchRecord, breakage: Breakage, resolution: str, why: str, now: datetime
) -> tuple[BranchRecord, tuple[Effect, ...]]:
    """End a breakage; close its needs-human issue if one was filed."""
    done = evolve(breakage, resolved_at=now, resolution=resolution)
    branch = evolve(branch, breakages=replace(branch.breakages, done))
    if not breakage.escalated:
        return branch, ()
    reason = f"{why} ({resolution})."
    return branch, (CloseIssue(kind="needs-human", ident=issue_ident(branch.name, breakage), reason=reason),)


def breakage_for(
    branch: BranchRecord, obs: Observation, records: list[FindingRecord], now: datetime
) -> tuple[BranchRecord, Breakage, tuple[Effect, ...]]:
    """The job's open breakage, or a new one starting at this run.

    A run on a new commit whose breaking failures are all different from the open
    breakage's ends that breakage (its failures are gone: fixed or reverted) and
    starts a new one, whose last-good is the newest complete run where none of the
    new failures failed. On the same commit, different failures are flakiness instead.
    """
    job = obs.job_key
    found = branch.open_breakage(job)
    failing = {f.fingerprint for f in breaking_findings(records)}
    if found is not None and not _superseded(branch, found, failing, obs):
        return branch, found, ()
    last_good = branch.good.get(job)
    closed: tuple[Effect, ...] = ()
    if found is not None:
        resolution = "reverted" if _undone(branch, found, obs) else "recovered"
        why = f"`{job}` no longer shows these failures at {obs.head_sha[:7]}"
        branch, closed = resolve(branch, found, resolution, why, now)
        branch, withdrawn = _withdraw_unneeded(branch, found, obs, f"{why} (it fails differently now)")
        closed = (*closed, *withdrawn)
        last_good = next(
            (r.head_sha for r in reversed(branch.runs) if r.job == job and r.complete and not failing & set(r.failing)),
            last_good,
        )
    # The run that opened it makes the id unique: a job can break again on the same commit.
    ident = f"{job}@{obs.head_sha[:12]}/{obs.run_id}.{obs.run_attempt}"
    breakage = Breakage(id=ident, job=job, first_red=obs.head_sha, opened_at=now, last_good=last_good)
    return branch, breakage, closed


def _superseded(branch: BranchRecord, breakage: Breakage, failing: set[str], obs: Observation) -> bool:
    if not failing or not breakage.sightings or failing & breakage.sightings.keys():
        return False
    return all(r.head_sha != obs.head_sha for r in branch.runs if r.observation in breakage.observations)


def breaking_findings(records: list[FindingRecord]) -> list[FindingRecord]:
    """The findings that can justify a revert (DESIGN §3)."""
    return [f for f in records if f.severity in recovery.BLOCKING_SEVERITIES and f.kind in recovery.BREAKING_KINDS]


def extend(breakage: Breakage, obs: Observation, records: list[FindingRecord], chain: list[CommitFact]) -> Breakage:
    """Add this observation's failures; learn the suspects once the history reaches last-good."""
    breaking = breaking_findings(records)
    sightings = dict(breakage.sightings)
    for fingerprint in sorted({f.fingerprint for f in breaking}):
        sightings[fingerprint] = sightings.get(fingerprint, 0) + 1
    known = {f.fingerprint for f in breakage.findings}
    findings = breakage.findings + [f for f in breaking if f.fingerprint not in known]
    if breaking and not breakage.sightings:
        # The first run that shows what broke (earlier ones were cut short) marks the end of the suspects.
        breakage = evolve(breakage, first_red=obs.head_sha, suspects=None, reruns=0)
    suspects = breakage.suspects
    if suspects is None:
        suspects = suspects_between(chain, breakage.last_good, breakage.first_red)
    return evolve(
        breakage,
        observations=[*breakage.observations, obs.id],
        sightings=sightings,
        findings=findings[:MAX_BREAKAGE_FINDINGS],
        suspects=suspects,
    )


def failing_sets(branch: BranchRecord, breakage: Breakage) -> list[tuple[str, frozenset[str]]]:
    """One failing set per distinct head SHA of the breakage's job, oldest first (for circular detection)."""
    sets: dict[str, frozenset[str]] = {}
    for run in branch.runs:
        if run.job == breakage.job and run.observation in breakage.observations:
            sets[run.head_sha] = sets.get(run.head_sha, frozenset()) | frozenset(run.failing)
    return list(sets.items())


def issue_ident(name: str, breakage: Breakage) -> str:
    return f"branch:{name}:{breakage.id}"


def replace(breakages: list[Breakage], breakage: Breakage) -> list[Breakage]:
    others = [b for b in breakages if b.id != breakage.id]
    return keep_last([*others, breakage], MAX_BREAKAGES_KEPT)
