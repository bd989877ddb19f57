"""Self-healing (DESIGN §3): recurring defects become proposals (:mod:`gauntlet.engine.verification` settles them).

Theory of operation. Every observation adds its defects to the defect log, once
per place (``pr:12``, ``branch:main``) and fingerprint. The scheduled scan
groups the log by (component, defect type) over ``window_days`` and counts
*occasions* (distinct PRs, or days on a branch) per priority. A key seen on
fewer than ``min_occasions`` occasions is not recurring and makes nothing; one
that recurs is compared against the thresholds::

    ≥1 P0             -> MAJOR   a needs-human issue, never automatic
    ≥1 P1 or ≥5 P2    -> MINOR   a proposal PR promoting the learned rules
    ≥3 P2             -> PATCH   a proposal PR promoting the learned rules

A key with an active proposal (pending, watching, needs-human or blocked) gets
no second one, whichever scan made it. A proposal PR is ``pending`` until it is
merged; what happens after (the watch, escalation, verification, rollback) is
:mod:`gauntlet.engine.verification`'s.

Limits (a per-key cooldown, a daily cap per level, no learned rules to promote)
do not drop a proposal: it is recorded as ``blocked`` with its
``blocked_reason`` and retried by later scans. ``enabled: false`` turns all of
this off.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from gauntlet.config import SelfHealConfig
from gauntlet.effects.models import Effect, FileIssue, OpenProposalPR
from gauntlet.effects.views import IssueView, ProposalView
from gauntlet.engine.defects import (
    KeyCounts,
    compact_defects,
    component_of,
    counts_by_key,
    occasion_of,
    record_defects,
    summary_of,
)
from gauntlet.models import Priority, evolve
from gauntlet.state.base import keep_last
from gauntlet.state.shared import (
    MAX_PROPOSALS,
    BlockedReason,
    DefectLog,
    Proposal,
    ProposalBook,
    ProposalLevel,
)

__all__ = [
    "ACTIVE",
    "NEXT_LEVEL",
    "ProposalOutcome",
    "approve",
    "compact_defects",
    "compact_proposals",
    "component_of",
    "counts_by_key",
    "evidence_of",
    "higher",
    "level_for",
    "made",
    "proposal_effect",
    "propose",
    "reaches",
    "record_defects",
    "reject",
    "summary_of",
]

#: Statuses that keep a key from getting a second proposal.
ACTIVE = frozenset({"pending", "watching", "needs_human", "blocked"})
_FINAL = frozenset({"escalated", "verified", "rolled_back", "unverified", "rejected", "lapsed"})
NEXT_LEVEL: dict[ProposalLevel, ProposalLevel] = {"PATCH": "MINOR", "MINOR": "MAJOR", "MAJOR": "MAJOR"}
_RANK: dict[ProposalLevel, int] = {"PATCH": 0, "MINOR": 1, "MAJOR": 2}
#: The rules a proposal promotes, at most.
MAX_RULES_PER_PROPOSAL = 5
#: Defects a proposal lists as its evidence, at most (one per occasion).
MAX_EVIDENCE_LINES = 10


@dataclass(frozen=True)
class ProposalOutcome:
    """The proposals after a scan step or a command, the effects that carry it out, and what happened."""

    book: ProposalBook
    effects: tuple[Effect, ...] = ()
    changed: tuple[str, ...] = ()
    messages: tuple[str, ...] = field(default=())


def level_for(counts: Mapping[Priority, int], config: SelfHealConfig) -> ProposalLevel | None:
    """The proposal level the counts reach, or ``None`` below every threshold."""
    if counts.get("P0", 0) >= config.major_p0:
        return "MAJOR"
    if counts.get("P1", 0) >= config.minor_p1 or counts.get("P2", 0) >= config.minor_p2:
        return "MINOR"
    if counts.get("P2", 0) >= config.patch_p2:
        return "PATCH"
    return None


def reaches(counts: KeyCounts, config: SelfHealConfig) -> ProposalLevel | None:
    """The level a key's window reaches: a recurrence (``min_occasions`` occasions) over a threshold, or ``None``."""
    if len(counts.occasions) < config.min_occasions:
        return None
    return level_for(counts.priorities, config)


def propose(
    book: ProposalBook,
    log: DefectLog,
    rules: Mapping[str, Sequence[str]],
    *,
    repository: str,
    base: str,
    config: SelfHealConfig,
    now: datetime,
) -> ProposalOutcome:
    """Turn the keys over a threshold into proposals, escalations or blocked records.

    :param rules: learned rule texts per defect type, best first (what a proposal promotes).
    :param repository: ``owner/name``, for the bodies.
    :param base: the branch proposal PRs target.
    """
    start = now - timedelta(days=config.window_days)
    window = counts_by_key(log, start, now)
    proposals = list(book.proposals)
    number = book.next_number
    effects: list[Effect] = []
    changed: list[str] = []
    messages: list[str] = []
    reached_keys: set[tuple[str, str]] = set()
    for (component, defect_type), in_window in sorted(window.items()):
        counts = _unsettled(log, proposals, (component, defect_type), in_window, start, now)
        reached = reaches(counts, config)
        if reached is None:
            if level_for(counts.priorities, config) is not None:
                messages.append(_not_recurring(component, defect_type, counts, config))
            continue
        reached_keys.add((component, defect_type))
        level: ProposalLevel = reached
        active = _latest(proposals, component, defect_type, ACTIVE)
        escalated_from: str | None = None
        if active is not None and active.status in ("pending", "watching", "needs_human"):
            continue  # the proposal in flight answers this key; a watched one escalates in verification
        if active is not None and active.status == "blocked":
            escalated_from = active.escalated_from
            level = higher(level, active.level)
        ident = active.id if active is not None else f"SH-{number}"
        if active is None:
            number += 1
        promoted = list(rules.get(defect_type, ()))[:MAX_RULES_PER_PROPOSAL]
        blocked = _blocked_reason(proposals, component, defect_type, level, promoted, config, now)
        proposal = Proposal(
            id=ident,
            component=component,
            defect_type=defect_type,
            level=level,
            status="blocked" if blocked else ("needs_human" if level == "MAJOR" else "pending"),
            created_at=now,
            rules=promoted,
            evidence=evidence_of(counts, config.window_days),
            blocked_reason=blocked,
            baseline_rate=len(counts.occasions) / config.window_days,
            escalated_from=escalated_from,
        )
        proposals = [p for p in proposals if p.id != ident]
        proposals.append(proposal)
        changed.append(ident)
        if blocked:
            messages.append(f"{ident} ({level}) {proposal.key} blocked: {blocked}")
            continue
        effects.append(proposal_effect(proposal, repository, base))
        why = f"{len(counts.occasions)} occasions in {config.window_days} days"
        messages.append(f"{ident} ({level}) proposed for {proposal.key}: {why}")
    for p in [p for p in proposals if p.status == "blocked" and (p.component, p.defect_type) not in reached_keys]:
        note = f"its defects no longer reach a threshold (blocked by {p.blocked_reason})"
        proposals = [evolve(q, status="lapsed", note=note) if q.id == p.id else q for q in proposals]
        changed.append(p.id)
        messages.append(f"{p.id} lapsed: {note}")
    return ProposalOutcome(
        book=evolve(book, proposals=_bounded(proposals), next_number=number),
        effects=tuple(effects),
        changed=tuple(changed),
        messages=tuple(messages),
    )


def approve(
    book: ProposalBook,
    proposal_id: str,
    *,
    by: str,
    repository: str,
    base: str,
    config: SelfHealConfig,
    now: datetime,
) -> ProposalOutcome:
    """``/gauntlet approve <id>``: a maintainer promotes a proposal a human had to decide on.

    A MAJOR (needs-human) or a proposal a limit blocked becomes a proposal PR (``pending``: its watch
    starts when it is merged); a pending or watched one records the approval. Nothing happens to a final
    one, nor to a proposal with no learned rules to promote.
    """
    proposal = _find(book, proposal_id)
    if proposal is None:
        return ProposalOutcome(book=book, messages=(f"no proposal {proposal_id}",))
    if proposal.status in _FINAL:
        return ProposalOutcome(book=book, messages=(f"{proposal_id} is already {proposal.status}",))
    stamped = evolve(proposal, decided_by=by, decided_at=now)
    if proposal.status in ("pending", "watching"):
        return _replace(book, stamped, (), f"{proposal_id} approved by {by}")
    if not proposal.rules:
        return ProposalOutcome(book=book, messages=(f"{proposal_id} has no learned rules to promote yet",))
    promoted = evolve(stamped, status="pending", blocked_reason=None, watch_until=None)
    effect = proposal_effect(promoted, repository, base)
    return _replace(book, promoted, (effect,), f"{proposal_id} approved by {by}: proposal PR opened")


def reject(book: ProposalBook, proposal_id: str, *, by: str, reason: str, now: datetime) -> ProposalOutcome:
    """``/gauntlet reject <id> [reason]``: stop a proposal; its key rests for the cooldown from now."""
    proposal = _find(book, proposal_id)
    if proposal is None:
        return ProposalOutcome(book=book, messages=(f"no proposal {proposal_id}",))
    if proposal.status in _FINAL:
        return ProposalOutcome(book=book, messages=(f"{proposal_id} is already {proposal.status}",))
    rejected = evolve(proposal, status="rejected", decided_by=by, decided_at=now, note=reason, watch_until=None)
    return _replace(book, rejected, (), f"{proposal_id} rejected by {by}" + (f": {reason}" if reason else ""))


def compact_proposals(book: ProposalBook) -> ProposalBook:
    """Keep the book bounded: final proposals go first, oldest first."""
    bounded = _bounded(book.proposals)
    return book if len(bounded) == len(book.proposals) else evolve(book, proposals=bounded)


def _blocked_reason(
    proposals: list[Proposal],
    component: str,
    defect_type: str,
    level: ProposalLevel,
    rules: list[str],
    config: SelfHealConfig,
    now: datetime,
) -> BlockedReason | None:
    rest = timedelta(hours=config.cooldown_hours)
    for p in proposals:
        # A proposal only ever blocked rests nothing, but a rejection rests its key, whatever it was.
        if (not made(p) and p.status != "rejected") or (p.component, p.defect_type) != (component, defect_type):
            continue
        if now - max(p.created_at, p.decided_at or p.created_at) < rest:
            return "cooldown"
    if level == "MAJOR":
        return None
    cap = config.max_patch_per_day if level == "PATCH" else config.max_minor_per_day
    today = sum(1 for p in proposals if p.level == level and made(p) and now - p.created_at < timedelta(days=1))
    if today >= cap:
        return "daily_limit"
    if not rules:
        return "no_rules"
    return None


def made(proposal: Proposal) -> bool:
    """Whether ``proposal`` was made (its PR or issue opened), not only recorded as blocked.

    A blocked proposal keeps its ``blocked_reason`` when it lapses or is rejected; one made when a
    later scan unblocks it is recorded afresh without one. Only made ones use a day's cap or rest a key
    (and rejected ones: a maintainer said no): a proposal that never opened anything must not hold back
    one that would.
    """
    return proposal.blocked_reason is None


def proposal_effect(proposal: Proposal, repository: str, base: str, *, rollback: bool = False) -> Effect:
    """The effect a proposal takes: a needs-human issue for a MAJOR, else its PR (or the PR rolling it back)."""
    if proposal.level == "MAJOR" and not rollback and proposal.status == "needs_human":
        rules = [f"rule it would promote: {rule}" for rule in proposal.rules] or ["no rule learned for it yet"]
        return FileIssue(
            kind="needs-human",
            ident=f"proposal-{proposal.id}",
            title=f"Recurring {proposal.defect_type} in {proposal.component} needs a human ({proposal.id})",
            labels=("gauntlet", "needs-human"),
            view=IssueView(
                repository=repository,
                summary=f"{proposal.key} keeps recurring, at P0 priority (critical on the default branch, or security)",
                severity="critical",
                why="A MAJOR self-healing proposal is never applied automatically: a human decides.",
                decision=f"Gauntlet proposes {proposal.id} at level MAJOR"
                + (f" ({proposal.note})" if proposal.note else "")
                + ".",
                evidence=(*proposal.evidence, *rules),
                resolve=f"Fix the cause, then comment `/gauntlet approve {proposal.id}` to open a PR promoting "
                f"the rules, or `/gauntlet reject {proposal.id} <reason>`.",
            ),
        )
    return OpenProposalPR(
        proposal_id=proposal.id,
        base=base,
        rules=tuple(proposal.rules),
        rollback_of=proposal.id if rollback else None,
        view=ProposalView(
            repository=repository,
            proposal_id=proposal.id,
            level=proposal.level,
            component=proposal.component,
            defect_type=proposal.defect_type,
            rules=tuple(proposal.rules),
            evidence=(*proposal.evidence, *((proposal.note,) if rollback and proposal.note else ())),
        ),
    )


def _unsettled(
    log: DefectLog,
    proposals: list[Proposal],
    key: tuple[str, str],
    in_window: KeyCounts,
    start: datetime,
    now: datetime,
) -> KeyCounts:
    """The window's defects of a key that no settled proposal has answered yet.

    Defects up to the end of a settled proposal's watch (or its rejection) were its business;
    only later ones can make a new proposal.
    """
    settled = [
        p.watch_until or p.decided_at or p.created_at
        for p in proposals
        if (p.component, p.defect_type) == key and p.status in _FINAL - {"escalated"}
    ]
    if not settled or max(settled) <= start:
        return in_window
    return counts_by_key(log, max(settled), now).get(key, KeyCounts())


def higher(a: ProposalLevel, b: ProposalLevel) -> ProposalLevel:
    return a if _RANK[a] >= _RANK[b] else b


def evidence_of(counts: KeyCounts, days: int) -> list[str]:
    """What a proposal shows for itself: the occasions per priority, then the defects, one per occasion."""
    parts = ", ".join(f"{counts.priorities[p]} × {p}" for p in ("P0", "P1", "P2") if counts.priorities.get(p))
    lines = [f"{len(counts.occasions)} occasions in the last {days} days ({parts})"]
    shown: set[str] = set()
    for e in sorted(counts.entries, key=lambda e: (e.at, e.place, e.fingerprint)):
        occasion = occasion_of(e)
        if occasion in shown:
            continue
        shown.add(occasion)
        where = f"PR #{e.place[3:]}" if e.place.startswith("pr:") else f"{e.place[7:]} on {e.at:%Y-%m-%d}"
        lines.append(f"{e.priority} on {where}: {e.summary or e.fingerprint}")
        if len(lines) > MAX_EVIDENCE_LINES:
            lines.append(f"and {len(counts.occasions) - len(shown)} more occasion(s)")
            break
    return lines


def _not_recurring(component: str, defect_type: str, counts: KeyCounts, config: SelfHealConfig) -> str:
    return (
        f"{component}/{defect_type}: no proposal, seen on {len(counts.occasions)} occasion(s) "
        f"(a proposal needs a recurrence: {config.min_occasions} distinct PRs or days)"
    )


def _latest(proposals: list[Proposal], component: str, defect_type: str, statuses: frozenset[str]) -> Proposal | None:
    matching = [p for p in proposals if (p.component, p.defect_type) == (component, defect_type)]
    live = [p for p in matching if p.status in statuses]
    return live[-1] if live else None


def _find(book: ProposalBook, proposal_id: str) -> Proposal | None:
    return next((p for p in book.proposals if p.id.lower() == proposal_id.strip().lower()), None)


def _replace(book: ProposalBook, proposal: Proposal, effects: tuple[Effect, ...], message: str) -> ProposalOutcome:
    proposals = [proposal if p.id == proposal.id else p for p in book.proposals]
    return ProposalOutcome(
        book=evolve(book, proposals=proposals),
        effects=effects,
        changed=(proposal.id,),
        messages=(message,),
    )


def _bounded(proposals: list[Proposal]) -> list[Proposal]:
    excess = len(proposals) - MAX_PROPOSALS
    if excess <= 0:
        return proposals
    final = [p.id for p in proposals if p.status in _FINAL][:excess]
    drop = set(final)
    kept = [p for p in proposals if p.id not in drop]
    return keep_last(kept, MAX_PROPOSALS)
