"""Self-healing (DESIGN §3): recurring defects become proposals, proposals are verified or rolled back.

Theory of operation. Every observation adds its defects to the defect log, once
per place (``pr:12``, ``branch:main``) and fingerprint. The scheduled scan
groups the log by (component, defect type) over ``window_days`` and compares
the priorities against the thresholds::

    ≥1 P0             -> MAJOR   a needs-human issue, never automatic
    ≥1 P1 or ≥5 P2    -> MINOR   a proposal PR promoting the learned rules
    ≥3 P2             -> PATCH   a proposal PR promoting the learned rules

A key with an active proposal (open, needs-human or blocked) gets no second one,
whichever scan made it. While an open proposal is watched (``watch_days``), the
key crossing a threshold again with defects seen since the proposal is a
recurrence: the proposal is escalated one level (PATCH → MINOR → MAJOR). When
the watch ends the defect rate over the watch is compared with the rate before:
not grown → ``verified``, grown → ``rolled_back`` (a revert PR of the
promotion), no observation at all during the watch → ``unverified``.

Limits (a per-key cooldown, a daily cap per level, no learned rules to promote)
do not drop a proposal: it is recorded as ``blocked`` with its
``blocked_reason`` and retried by later scans. ``enabled: false`` turns all of
this off.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from gauntlet.config import SelfHealConfig
from gauntlet.effects.models import Effect, FileIssue, OpenProposalPR
from gauntlet.effects.views import IssueView, ProposalView
from gauntlet.engine.defects import compact_defects, component_of, counts_by_key, record_defects, summary_of
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
    "ProposalOutcome",
    "approve",
    "compact_defects",
    "compact_proposals",
    "component_of",
    "counts_by_key",
    "level_for",
    "propose",
    "record_defects",
    "reject",
    "summary_of",
    "verify",
]

#: Statuses that keep a key from getting a second proposal.
ACTIVE = frozenset({"open", "needs_human", "blocked"})
_FINAL = frozenset({"escalated", "verified", "rolled_back", "unverified", "rejected", "lapsed"})
_NEXT: dict[ProposalLevel, ProposalLevel] = {"PATCH": "MINOR", "MINOR": "MAJOR", "MAJOR": "MAJOR"}
_RANK: dict[ProposalLevel, int] = {"PATCH": 0, "MINOR": 1, "MAJOR": 2}
#: The rules a proposal promotes, at most.
MAX_RULES_PER_PROPOSAL = 5


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
        reached = level_for(counts, config)
        if reached is None:
            continue
        reached_keys.add((component, defect_type))
        level: ProposalLevel = reached
        active = _latest(proposals, component, defect_type, ACTIVE)
        escalated_from: str | None = None
        if active is not None and active.status == "open":
            since = counts_by_key(log, active.created_at, now).get((component, defect_type), Counter())
            if level_for(since, config) is None:
                continue  # watched, no recurrence: nothing new to say
            level = _higher(level, _NEXT[active.level])
            escalated_from = active.id
        elif active is not None and active.status == "needs_human":
            continue
        elif active is not None and active.status == "blocked":
            escalated_from = active.escalated_from
            level = _higher(level, active.level)
        ident = active.id if active is not None and active.status == "blocked" else f"SH-{number}"
        if ident == f"SH-{number}":
            number += 1
        promoted = list(rules.get(defect_type, ()))[:MAX_RULES_PER_PROPOSAL]
        blocked = _blocked_reason(proposals, component, defect_type, level, promoted, config, now)
        proposal = Proposal(
            id=ident,
            component=component,
            defect_type=defect_type,
            level=level,
            status="blocked" if blocked else ("needs_human" if level == "MAJOR" else "open"),
            created_at=now,
            rules=promoted,
            evidence=_evidence(counts, config.window_days),
            blocked_reason=blocked,
            baseline_rate=sum(counts.values()) / config.window_days,
            watch_until=None if blocked or level == "MAJOR" else now + timedelta(days=config.watch_days),
            escalated_from=escalated_from,
        )
        proposals = [p for p in proposals if p.id != ident]
        if escalated_from is not None and not blocked:
            proposals = [
                evolve(p, status="escalated") if p.id == escalated_from and p.status == "open" else p for p in proposals
            ]
            messages.append(
                f"{escalated_from} escalated to {ident} ({level}): {proposal.key} recurred during the watch"
            )
        proposals.append(proposal)
        changed.append(ident)
        if blocked:
            messages.append(f"{ident} ({level}) {proposal.key} blocked: {blocked}")
            continue
        effects.append(_effect(proposal, repository, base))
        messages.append(f"{ident} ({level}) proposed for {proposal.key}")
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


def verify(
    book: ProposalBook, log: DefectLog, *, repository: str, base: str, config: SelfHealConfig, now: datetime
) -> ProposalOutcome:
    """Settle every open proposal whose watch has ended: ``verified``, ``rolled_back`` or ``unverified``."""
    proposals: list[Proposal] = []
    effects: list[Effect] = []
    changed: list[str] = []
    messages: list[str] = []
    for p in book.proposals:
        if p.status != "open" or p.watch_until is None or now < p.watch_until:
            proposals.append(p)
            continue
        start = p.watch_until - timedelta(days=config.watch_days)
        observed = any(start.date().isoformat() <= day <= p.watch_until.date().isoformat() for day in log.activity)
        after = counts_by_key(log, start, p.watch_until).get((p.component, p.defect_type), Counter())
        rate = sum(after.values()) / config.watch_days
        if not observed:
            settled = evolve(p, status="unverified", note="no runs were observed during the watch")
        elif rate > p.baseline_rate:
            note = f"{p.key} grew from {p.baseline_rate:.2f} to {rate:.2f} defects a day during the watch"
            settled = evolve(p, status="rolled_back", note=note)
            effects.append(_effect(settled, repository, base, rollback=True))
        else:
            note = f"{p.key} went from {p.baseline_rate:.2f} to {rate:.2f} defects a day during the watch"
            settled = evolve(p, status="verified", note=note)
        proposals.append(settled)
        changed.append(p.id)
        messages.append(f"{p.id} {settled.status}: {settled.note}")
    return ProposalOutcome(
        book=evolve(book, proposals=proposals),
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

    A MAJOR (needs-human) or a proposal a limit blocked becomes an open proposal PR,
    watched from now; an open one records the approval. Nothing happens to a final one,
    nor to a proposal with no learned rules to promote.
    """
    proposal = _find(book, proposal_id)
    if proposal is None:
        return ProposalOutcome(book=book, messages=(f"no proposal {proposal_id}",))
    if proposal.status in _FINAL:
        return ProposalOutcome(book=book, messages=(f"{proposal_id} is already {proposal.status}",))
    stamped = evolve(proposal, decided_by=by, decided_at=now)
    if proposal.status == "open":
        return _replace(book, stamped, (), f"{proposal_id} approved by {by}")
    if not proposal.rules:
        return ProposalOutcome(book=book, messages=(f"{proposal_id} has no learned rules to promote yet",))
    promoted = evolve(stamped, status="open", blocked_reason=None, watch_until=now + timedelta(days=config.watch_days))
    effect = _effect(promoted, repository, base)
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
        if p.status == "blocked" or (p.component, p.defect_type) != (component, defect_type):
            continue
        if now - max(p.created_at, p.decided_at or p.created_at) < rest:
            return "cooldown"
    if level == "MAJOR":
        return None
    cap = config.max_patch_per_day if level == "PATCH" else config.max_minor_per_day
    today = sum(
        1 for p in proposals if p.level == level and p.status != "blocked" and now - p.created_at < timedelta(days=1)
    )
    if today >= cap:
        return "daily_limit"
    if not rules:
        return "no_rules"
    return None


def _effect(proposal: Proposal, repository: str, base: str, *, rollback: bool = False) -> Effect:
    if proposal.level == "MAJOR" and not rollback and proposal.status == "needs_human":
        return FileIssue(
            kind="needs-human",
            ident=f"proposal-{proposal.id}",
            title=f"Recurring {proposal.defect_type} in {proposal.component} needs a human ({proposal.id})",
            labels=("gauntlet", "needs-human"),
            view=IssueView(
                repository=repository,
                summary=f"{proposal.key} keeps recurring at P0 priority",
                severity="critical",
                why="A MAJOR self-healing proposal is never applied automatically.",
                decision=f"Gauntlet proposes {proposal.id} at level MAJOR.",
                evidence=tuple(proposal.evidence),
                resolve=f"Fix the cause, then `/gauntlet approve {proposal.id}` to promote the learned rules "
                f"or `/gauntlet reject {proposal.id} <reason>`.",
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
    in_window: Counter[Priority],
    start: datetime,
    now: datetime,
) -> Counter[Priority]:
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
    return counts_by_key(log, max(settled), now).get(key, Counter())


def _higher(a: ProposalLevel, b: ProposalLevel) -> ProposalLevel:
    return a if _RANK[a] >= _RANK[b] else b


def _evidence(counts: Mapping[Priority, int], days: int) -> list[str]:
    parts = ", ".join(f"{counts[p]} × {p}" for p in ("P0", "P1", "P2") if counts.get(p))
    return [f"{parts} in the last {days} days"]


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
