"""Proposals after they are made (DESIGN §3): landed or rejected, watched from the merge, escalated, verified.

Theory of operation. The scan passes what GitHub says about each pending proposal's PR
(:class:`~gauntlet.models.ProposalPRFact`, read at the edge); nothing here looks it up::

    pending,  PR open or unknown          -> pending (nothing landed, nothing is watched)
    pending,  PR closed without merging   -> rejected (the key rests for the cooldown from now)
    pending,  PR merged                   -> watching, for watch_days from the merge
    watching, the key recurs since merge  -> escalated one level (PATCH → MINOR → MAJOR): a comment on
                                             the proposal PR; a MAJOR also files the needs-human issue
    watching, the watch is over:
        the component observed fewer than min_observations times -> unverified (never "passed")
        occasions a day grew over the rate before the merge       -> rolled_back (a PR undoing it)
        otherwise                                                 -> verified

Rates count occasions (distinct PRs, or days on a branch), like the thresholds.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from gauntlet.config import SelfHealConfig
from gauntlet.effects.models import CommentOnPR, Effect
from gauntlet.effects.views import ReplyView
from gauntlet.engine.defects import KeyCounts, counts_by_key, observations_of
from gauntlet.engine.selfheal import NEXT_LEVEL, ProposalOutcome, evidence_of, higher, proposal_effect, reaches
from gauntlet.models import ProposalPRFact, evolve
from gauntlet.state.shared import DefectLog, Proposal, ProposalBook

__all__ = ["escalate", "land", "settle", "verify"]


def settle(
    book: ProposalBook,
    log: DefectLog,
    facts: Iterable[ProposalPRFact],
    *,
    repository: str,
    base: str,
    config: SelfHealConfig,
    now: datetime,
) -> list[ProposalOutcome]:
    """Land, escalate and verify, in that order; each step sees the book the one before left."""
    steps = [land(book, log, facts, config=config, now=now)]
    steps.append(escalate(steps[-1].book, log, repository=repository, base=base, config=config, now=now))
    steps.append(verify(steps[-1].book, log, repository=repository, base=base, config=config, now=now))
    return steps


def land(
    book: ProposalBook, log: DefectLog, facts: Iterable[ProposalPRFact], *, config: SelfHealConfig, now: datetime
) -> ProposalOutcome:
    """Move pending proposals whose PR was merged to ``watching``, and closed-unmerged ones to ``rejected``."""
    by_id = {f.proposal_id: f for f in facts}
    proposals: list[Proposal] = []
    changed: list[str] = []
    messages: list[str] = []
    for p in book.proposals:
        fact = by_id.get(p.id)
        if p.status != "pending" or fact is None or fact.state == "open":
            proposals.append(evolve(p, pr=fact.number) if fact and p.pr is None else p)
            continue
        if fact.state == "closed":
            note = f"proposal PR #{fact.number} was closed without merging"
            settled = evolve(p, status="rejected", pr=fact.number, decided_at=now, note=note)
        else:
            merged = fact.merged_at or now
            before = counts_by_key(log, merged - timedelta(days=config.window_days), merged)
            baseline = len(before.get((p.component, p.defect_type), KeyCounts()).occasions) / config.window_days
            note = (
                f"proposal PR #{fact.number} merged {merged:%Y-%m-%d %H:%M} UTC, watched for {config.watch_days} days"
            )
            settled = evolve(
                p,
                status="watching",
                pr=fact.number,
                merged_at=merged,
                watch_until=merged + timedelta(days=config.watch_days),
                baseline_rate=baseline,
                note=note,
            )
        proposals.append(settled)
        changed.append(p.id)
        messages.append(f"{p.id} {settled.status}: {settled.note}")
    return ProposalOutcome(book=evolve(book, proposals=proposals), changed=tuple(changed), messages=tuple(messages))


def escalate(
    book: ProposalBook, log: DefectLog, *, repository: str, base: str, config: SelfHealConfig, now: datetime
) -> ProposalOutcome:
    """Raise a watched proposal one level when its key recurs (over a threshold again) since the merge."""
    proposals: list[Proposal] = []
    effects: list[Effect] = []
    changed: list[str] = []
    messages: list[str] = []
    for p in book.proposals:
        since = p.escalated_at or p.merged_at
        if p.status != "watching" or since is None:
            proposals.append(p)
            continue
        counts = counts_by_key(log, since, now).get((p.component, p.defect_type), KeyCounts())
        reached = reaches(counts, config)
        if reached is None:
            proposals.append(p)
            continue
        level = higher(reached, NEXT_LEVEL[p.level])
        note = f"escalated {p.level} → {level}: {p.key} recurred on {len(counts.occasions)} occasions since"
        note += " the merge" if p.escalated_at is None else " the last escalation"
        raised = evolve(
            p,
            **{
                "level": level,
                "escalated_at": now,
                "note": note,
                "evidence": evidence_of(counts, config.window_days),
                **(
                    {"status": "needs_human", "watch_until": None}
                    if level == "MAJOR"
                    else {"watch_until": now + timedelta(days=config.watch_days)}
                ),
            },
        )
        if raised.pr is not None:
            outcome = (
                "a human is needed: Gauntlet filed a needs-human issue"
                if level == "MAJOR"
                else f"the watch restarts now, for {config.watch_days} days"
            )
            effects.append(
                CommentOnPR(
                    issue_number=raised.pr,
                    ident=f"{p.id}:escalated-{level}",
                    view=ReplyView(
                        command=f"{p.id} escalated {p.level} → {level}", outcome=outcome, details=tuple(raised.evidence)
                    ),
                )
            )
        if level == "MAJOR":
            effects.append(proposal_effect(raised, repository, base))
        proposals.append(raised)
        changed.append(p.id)
        messages.append(f"{p.id} {note}")
    return ProposalOutcome(
        book=evolve(book, proposals=proposals),
        effects=tuple(effects),
        changed=tuple(changed),
        messages=tuple(messages),
    )


def verify(
    book: ProposalBook, log: DefectLog, *, repository: str, base: str, config: SelfHealConfig, now: datetime
) -> ProposalOutcome:
    """Settle every watched proposal whose watch has ended: ``verified``, ``rolled_back`` or ``unverified``."""
    proposals: list[Proposal] = []
    effects: list[Effect] = []
    changed: list[str] = []
    messages: list[str] = []
    for p in book.proposals:
        if p.status != "watching" or p.watch_until is None or now < p.watch_until:
            proposals.append(p)
            continue
        start = p.escalated_at or p.merged_at or (p.watch_until - timedelta(days=config.watch_days))
        seen = observations_of(log, p.component, start, p.watch_until)
        after = counts_by_key(log, start, p.watch_until).get((p.component, p.defect_type), KeyCounts())
        days = max((p.watch_until - start).total_seconds() / 86400, 1.0)
        rate = len(after.occasions) / days
        if seen < config.min_observations:
            note = (
                f"{p.component} was observed {seen} time(s) during the watch; "
                f"{config.min_observations} are needed to tell whether the rules helped"
            )
            settled = evolve(p, status="unverified", note=note)
        elif rate > p.baseline_rate:
            note = f"{p.key} grew from {p.baseline_rate:.2f} to {rate:.2f} occasions a day during the watch"
            settled = evolve(p, status="rolled_back", note=note)
            effects.append(proposal_effect(settled, repository, base, rollback=True))
        else:
            note = (
                f"{p.key} went from {p.baseline_rate:.2f} to {rate:.2f} occasions a day over {seen} "
                f"observations of {p.component} during the watch"
            )
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
