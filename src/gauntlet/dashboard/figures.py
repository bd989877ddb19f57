"""The dashboard's figures: each state file reduced to rows as it is read, then ranked and bounded.

Every table is bounded (:data:`MAX_ROWS`) so the site stays small however large the state grows; the
aggregates (histograms, totals) count every file.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta

from gauntlet.dashboard.branch_view import BranchView, branch_view, finding_label
from gauntlet.dashboard.outcomes import OutcomeTally, TestStats, branch_outcomes, history_of, marks, pr_outcomes
from gauntlet.dashboard.pulls import MAX_ROWS, PRCollector, PRFigures
from gauntlet.dashboard.source import StateSource
from gauntlet.state.shared import DefectLog, EffectIndex, LearningBook, ProposalBook
from gauntlet.state.triage import TriageBook

__all__ = ["Dashboard", "FailureRow", "FlakyRow", "ProposalRow", "collect"]

#: The window either side of a proposal in which its defects are counted, when it has no watch of its own.
DEFAULT_WATCH = timedelta(days=7)


@dataclass(frozen=True, slots=True)
class Named:
    """What a person reads for a fingerprint."""

    label: str
    kind: str
    tool: str


@dataclass(frozen=True, slots=True)
class FlakyRow:
    """One flaky test."""

    fingerprint: str
    label: str
    flake_rate: float
    flips: int
    last_flip: datetime | None
    failures: int
    pr_failures: int
    branch_failures: int
    issue: int | None


@dataclass(frozen=True, slots=True)
class FailureRow:
    """One fingerprint among the most frequent failures, with the fix learned for it."""

    fingerprint: str
    label: str
    kind: str
    tool: str
    failures: int
    last_seen: datetime | None
    fix: str
    fix_sha: str
    rule: str


@dataclass(frozen=True, slots=True)
class ProposalRow:
    """One self-healing proposal with its defect counts over the window before and after it."""

    id: str
    key: str
    level: str
    status: str
    created_at: datetime
    blocked_reason: str | None
    before: int
    after: int
    note: str
    #: The proposal PR (or needs-human issue), when one was opened.
    number: int | None = None


@dataclass(frozen=True, slots=True)
class Dashboard:
    """Everything the site shows."""

    as_of: datetime | None
    problems: tuple[str, ...]
    outcomes: int
    outcome_source: str
    branches: tuple[BranchView, ...]
    flaky: tuple[FlakyRow, ...]
    flaky_total: int
    failures: tuple[FailureRow, ...]
    prs: PRFigures
    proposals: tuple[ProposalRow, ...]
    proposal_status: tuple[tuple[str, int], ...]

    @property
    def default_branch(self) -> BranchView | None:
        """The branch shown first (the caller orders them)."""
        return self.branches[0] if self.branches else None


def collect(source: StateSource, default_branch: str = "main", as_of: datetime | None = None) -> Dashboard:
    """Read every state file under ``source`` once and compute the dashboard's figures.

    :param as_of: the time the pages say the state is from; by default the newest time the state holds.
    """
    tally = OutcomeTally()
    names: dict[str, Named] = {}
    latest: list[datetime] = []
    places = with_history = 0

    prs = PRCollector()
    for record in source.prs():
        prs.add(record)
        for iteration in record.iterations:
            for finding in iteration.findings:
                if finding.fingerprint not in names:
                    label = finding_label(finding.test_id, finding.path, finding.message)
                    names[finding.fingerprint] = Named(label, finding.kind, finding.tool or "")
        places += 1
        with_history += bool(history_of(record))
        tally.add_place(pr_outcomes(record))
        tally.mark(marks(history_of(record)))

    index = source.shared("index", EffectIndex)
    branches: list[BranchView] = []
    for branch in source.branches():
        branches.append(branch_view(branch, index.entries))
        for breakage in branch.breakages:
            for finding in breakage.findings:
                label = finding_label(finding.test_id, finding.path, finding.message)
                names.setdefault(finding.fingerprint, Named(label, finding.kind, finding.tool or ""))
        # The newest time any row of the branch's page shows: a run, a break opening or ending, a revert.
        latest.extend(run.at for run in branch.runs[-1:])
        latest.extend(t for b in branch.breakages for t in (b.opened_at, b.resolved_at) if t is not None)
        latest.extend(r.opened_at for r in branch.reverts)
        places += 1
        with_history += bool(history_of(branch))
        tally.add_place(branch_outcomes(branch))
        tally.mark(dict.fromkeys(branch.flaky, True) | marks(history_of(branch)))
    branches.sort(key=lambda b: (b.name != default_branch, -b.runs, b.name))

    learnings = source.shared("learnings", LearningBook)
    triage = source.shared("triage", TriageBook)
    book = source.shared("proposals", ProposalBook)
    defects = source.shared("defects", DefectLog)
    issues = _issues_by_fingerprint(index, triage)
    latest.extend(s.last_seen for s in tally.stats.values() if s.last_seen is not None)
    latest.extend(p.created_at for p in book.proposals)
    proposals = tuple(_proposal_rows(book, defects, index))
    flaky = sorted((s for s in tally.stats.values() if s.flaky), key=_cost, reverse=True)
    return Dashboard(
        as_of=as_of or max(latest, default=None),
        problems=tuple(source.problems),
        outcomes=tally.outcomes,
        outcome_source=_source_note(places, with_history),
        branches=tuple(branches),
        flaky=tuple(_flaky_row(s, names, issues) for s in flaky[:MAX_ROWS]),
        flaky_total=len(flaky),
        failures=tuple(_failure_rows(tally, names, learnings)),
        prs=prs.figures(),
        proposals=proposals,
        proposal_status=tuple(sorted(Counter(p.status for p in proposals).items(), key=lambda kv: (-kv[1], kv[0]))),
    )


def _cost(stats: TestStats) -> tuple[int, int, str]:
    # What a flaky test costs CI: each failing run is at least one rerun of its job. The state keeps no test
    # durations, so runs are the unit; the flake rate breaks ties.
    return (stats.failures, stats.flaky_commits, stats.test)


def _source_note(places: int, with_history: int) -> str:
    if not places:
        return "no PR or branch file yet"
    if with_history == places:
        return "the outcome history of every PR and branch"
    derived = "PR iterations and branch runs"
    return f"the outcome history of {with_history} of {places} files, {derived} elsewhere" if with_history else derived


def _issues_by_fingerprint(index: EffectIndex, triage: TriageBook) -> dict[str, int]:
    found: dict[str, int] = {}
    for watched in triage.issues.values():
        number = index.entries.get(watched.key)
        if number is not None:
            found.setdefault(watched.fingerprint, number)
    for key, number in index.entries.items():
        # A flaky-test issue (issue 18) is keyed ``flaky:<component>:<fingerprint[:16]>[~generation]``; it wins over
        # a risk issue for the same test, and a newer generation over an older one (the index keeps both).
        kind, _, ident = key.partition(":")
        if kind == "flaky":
            found[ident.split("~")[0].rpartition(":")[2]] = number
    return found


def _named(fingerprint: str, names: dict[str, Named]) -> Named:
    return names.get(fingerprint) or Named(fingerprint, "", "")


def _flaky_row(stats: TestStats, names: dict[str, Named], issues: dict[str, int]) -> FlakyRow:
    return FlakyRow(
        fingerprint=stats.test,
        label=_named(stats.test, names).label,
        flake_rate=stats.flake_rate,
        flips=stats.flips,
        last_flip=stats.last_flip,
        failures=stats.failures,
        pr_failures=stats.pr_failures,
        branch_failures=stats.branch_failures,
        issue=issues.get(stats.test) or issues.get(stats.test[:16]),
    )


def _failure_rows(tally: OutcomeTally, names: dict[str, Named], learnings: LearningBook) -> list[FailureRow]:
    fixes = {fix.fingerprint: fix for fix in sorted(learnings.fixes, key=lambda f: f.at)}
    rules = {rule.id: rule.text for rule in learnings.rules}
    ranked = sorted((s for s in tally.stats.values() if s.failures), key=lambda s: (-s.failures, s.test))
    rows = []
    for stats in ranked[:MAX_ROWS]:
        named = _named(stats.test, names)
        fix = fixes.get(stats.test)
        rows.append(
            FailureRow(
                fingerprint=stats.test,
                label=named.label,
                kind=named.kind,
                tool=named.tool,
                failures=stats.failures,
                last_seen=stats.last_seen,
                # The pair's summary names the failure; the fix is what the fixing commit changed.
                fix=_changed(fix.files) if fix else "",
                fix_sha=fix.fixed_sha if fix else "",
                rule=rules.get(fix.rule, "") if fix and fix.rule else "",
            )
        )
    return rows


def _changed(files: list[str]) -> str:
    if not files:
        return "fixed"
    more = f" and {len(files) - 3} more" if len(files) > 3 else ""
    return "changed " + ", ".join(files[:3]) + more


def _proposal_rows(book: ProposalBook, defects: DefectLog, index: EffectIndex) -> list[ProposalRow]:
    by_key: dict[str, list[datetime]] = {}
    for entry in defects.entries:
        by_key.setdefault(f"{entry.component}/{entry.defect_type}", []).append(entry.at)
    rows = []
    for proposal in sorted(book.proposals, key=lambda p: p.created_at, reverse=True)[:MAX_ROWS]:
        start = proposal.created_at
        watch = (proposal.watch_until - start) if proposal.watch_until and proposal.watch_until > start else None
        span = watch or DEFAULT_WATCH
        times = by_key.get(proposal.key, [])
        rows.append(
            ProposalRow(
                id=proposal.id,
                key=proposal.key,
                level=proposal.level,
                status=proposal.status,
                created_at=start,
                blocked_reason=proposal.blocked_reason,
                before=sum(1 for t in times if start - span <= t < start),
                after=sum(1 for t in times if start <= t < start + span),
                note=proposal.note,
                number=index.entries.get(f"proposal:{proposal.id}")
                or index.entries.get(f"needs-human:proposal-{proposal.id}"),
            )
        )
    return rows
