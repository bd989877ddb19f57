"""Flaky-test issues on the default branch: one per flaky test, kept up to date, closed when it stops flaking.

Theory of operation (``docs/recovery.md``), per flaky fingerprint, driven by the default branch's runs::

    flakes, no issue yet                  -> file one (labelled ``flaky``, CODEOWNERS of its path assigned)
    flakes, issue open                    -> comment on it ("flaked again")
    flakes, issue closed <= reopen_days   -> the same issue again (reopened: only if Gauntlet closed it)
    flakes, issue closed longer ago       -> a fresh issue (the next generation of its key)
    no flake for close_days               -> close it, saying why

When ``flaky_issue_group`` or more flaky tests of one component have issues, further ones of that
component go to one shared issue (``component:<name>``) instead of one each. Pure: the branch record and
the time are passed in; :mod:`gauntlet.engine.branch` applies the effects.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime, timedelta

from gauntlet.config import Config
from gauntlet.effects.models import CloseIssue, Effect, FileIssue
from gauntlet.effects.views import IssueView
from gauntlet.engine.defects import component_of
from gauntlet.engine.outcomes import Flakiness, tracked
from gauntlet.models import evolve
from gauntlet.state.branch import BranchRecord, FlakyIssue
from gauntlet.state.outcomes import TestOutcomes

__all__ = ["FLAKY_LABELS", "MAX_FLAKY_ISSUES_KEPT", "flaked", "plan_flaky_issues"]

FLAKY_LABELS = ("gauntlet", "flaky")
MAX_FLAKY_ISSUES_KEPT = 200


def flaked(
    branch: BranchRecord, flaky: Mapping[str, Flakiness], before: Collection[str], commit: str, run: str
) -> list[str]:
    """The fingerprints that flaked in this run, sorted: newly found flaky, or flipped on this run's commit.

    A flaky fingerprint flakes again only when this run's outcome contradicts an earlier one on the same
    commit (it failed, then passed on the rerun, or the reverse). A failure alone is not a flake, whatever
    the fingerprint's history: it is rerun and confirmed like any other (:mod:`gauntlet.engine.revert`).

    :param before: the fingerprints that were flaky before this run.
    """
    found: list[str] = []
    for fingerprint in sorted(flaky):
        test = tracked(branch.outcomes, fingerprint)
        if test is None:
            continue
        if fingerprint not in before or _flipped_here(test, commit, run) is not None:
            found.append(fingerprint)
    return found


def _flipped_here(test: TestOutcomes, commit: str, run: str) -> str | None:
    """What happened on ``commit`` when this ``run`` contradicts the outcome before it there, else ``None``."""
    here = [o for o in test.outcomes if commit.startswith(o.commit)]
    at = next((i for i, o in enumerate(here) if o.run == run), None)
    if at is None or at == 0 or here[at - 1].passed == here[at].passed:
        return None
    failed, passed = (here[at - 1], here[at]) if here[at].passed else (here[at], here[at - 1])
    return f"on {commit[:7]} it failed in run {failed.run} and passed in run {passed.run}"


def plan_flaky_issues(
    branch: BranchRecord,
    flaky: Mapping[str, Flakiness],
    flakes: Sequence[str],
    *,
    repository: str,
    commit: str,
    run: str,
    config: Config,
    now: datetime,
) -> tuple[BranchRecord, tuple[Effect, ...]]:
    """File, update, reopen and close flaky-test issues for this run.

    :param flaky: every flaky fingerprint of the branch and why.
    :param flakes: the fingerprints that flaked in this run (:func:`flaked`).
    :param commit: the run's head commit; ``run`` its ``<run id>.<attempt>`` (the comment says which).
    """
    settings = config.provenance
    records = list(branch.flaky_issues)
    effects: list[Effect] = []
    for fingerprint in flakes:
        test = tracked(branch.outcomes, fingerprint)
        if test is None:
            continue
        at = next((i for i, r in enumerate(records) if fingerprint in r.fingerprints), None)
        if at is None:
            ident = _new_ident(records, test, config)
            shared = next((i for i, r in enumerate(records) if r.ident == ident and r.closed_at is None), None)
            if shared is not None:
                record = records[shared]
                records[shared] = evolve(record, fingerprints=[*record.fingerprints, fingerprint], last_flake=now)
                effects.append(_issue(record.ident, record.generation, test, flaky[fingerprint], repository, commit))
                continue
            record = FlakyIssue(ident=ident, fingerprints=[fingerprint], last_flake=now)
            records.append(record)
            effects.append(_issue(ident, 1, test, flaky[fingerprint], repository, commit))
            continue
        record = records[at]
        if record.closed_at is not None and now - record.closed_at > timedelta(days=settings.flaky_issue_reopen_days):
            record = evolve(record, generation=record.generation + 1)
        record = evolve(record, last_flake=now, closed_at=None)
        records[at] = record
        what = _flipped_here(test, commit, run) or flaky[fingerprint].reason
        note = f"Flaked again at {commit[:7]}: {what}."
        effects.append(_issue(record.ident, record.generation, test, flaky[fingerprint], repository, commit, note))
    quiet = timedelta(days=settings.flaky_issue_close_days)
    for i, record in enumerate(records):
        if record.closed_at is None and now - record.last_flake >= quiet:
            records[i] = evolve(record, closed_at=now)
            reason = f"No flake for {settings.flaky_issue_close_days} days (since {record.last_flake:%Y-%m-%d})."
            effects.append(CloseIssue(kind="flaky", ident=_versioned(record.ident, record.generation), reason=reason))
    kept = records[-MAX_FLAKY_ISSUES_KEPT:]
    if kept == branch.flaky_issues:
        return branch, tuple(effects)
    return evolve(branch, flaky_issues=kept), tuple(effects)


def _new_ident(records: Sequence[FlakyIssue], test: TestOutcomes, config: Config) -> str:
    """The test's own key, or its component's shared one once that component has many flaky tests."""
    component = component_of(None, test.test_id, config.components)
    mine = sum(1 for r in records if r.closed_at is None and r.ident.startswith(f"{component}:"))
    shared = f"component:{component}"
    if mine + 1 >= config.provenance.flaky_issue_group or any(
        r.ident == shared and r.closed_at is None for r in records
    ):
        return shared
    return f"{component}:{test.fingerprint[:16]}"


def _versioned(ident: str, generation: int) -> str:
    return ident if generation == 1 else f"{ident}~{generation}"


def _issue(
    ident: str,
    generation: int,
    test: TestOutcomes,
    why: Flakiness,
    repository: str,
    commit: str,
    note: str | None = None,
) -> FileIssue:
    name = test.test_id or test.fingerprint[:16]
    shared = ident.startswith("component:")
    title = f"Flaky tests in {ident.removeprefix('component:')}" if shared else f"Flaky test: {name}"
    last = f", last flip {why.last_flip:%Y-%m-%d %H:%M} UTC" if why.last_flip else ""
    view = IssueView(
        repository=repository,
        summary=f"`{name}` fails and passes without a change ({why.reason}).",
        path=(test.test_id or "").split("::", 1)[0] or None,
        commit=commit,
        why=f"flip rate {why.rate:.0%} over its last {len(test.outcomes)} outcomes{last}",
        decision="reported as `flaky`: it never fails a pull request's check nor justifies a revert",
        evidence=tuple(f"{o.commit[:7]} run {o.run}: {'pass' if o.passed else 'FAIL'}" for o in test.outcomes[-10:]),
        resolve=(
            "fix or quarantine the test; Gauntlet closes this issue after it has not flaked for a while. "
            "`/gauntlet not-flaky <test>` says it is not flaky."
        ),
    )
    return FileIssue(
        kind="flaky",
        ident=_versioned(ident, generation),
        title=title,
        view=view,
        labels=FLAKY_LABELS,
        recurrence_note=note,
    )
