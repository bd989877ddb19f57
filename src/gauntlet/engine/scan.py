"""The scheduled scan (`gauntlet scan`, on `schedule`/`workflow_dispatch`): self-healing, verification, compaction.

One pass, pure like the rest of the engine::

    settle     pending proposals whose PR merged start watching, closed ones are rejected; watched ones
               escalate on a recurrence or, once the watch ended, are verified / rolled_back / unverified
    propose    recurring keys over a threshold -> proposals or blocked records
    compact    drop defects, rules, arms and proposals no window reaches any more
    health     the repository's health, with its reasons

``paused: true`` or ``selfheal.enabled: false`` skips verify and propose (nothing
automatic happens) but still compacts and reports.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from gauntlet.config import Config
from gauntlet.effects.base import EffectResult
from gauntlet.effects.models import Plan
from gauntlet.engine import bandit, health, learning, selfheal, verification
from gauntlet.models import ProposalPRFact, evolve
from gauntlet.report import EffectLine
from gauntlet.state.events import Event
from gauntlet.state.models import State
from gauntlet.state.shared import Proposal
from gauntlet.vocabulary import HealthVerdict

__all__ = ["ProposalLine", "ScanOutcome", "ScanReport", "scan"]


@dataclass(frozen=True)
class ScanOutcome:
    """The new state, the plan (effects, repository health, proposals touched) and what happened, in words."""

    state: State
    plan: Plan
    messages: tuple[str, ...] = ()


def scan(
    state: State,
    config: Config,
    now: datetime,
    *,
    repository: str,
    base: str,
    proposal_prs: Sequence[ProposalPRFact] = (),
) -> ScanOutcome:
    """Run one self-healing scan over the shared state (and the default branch's record, if loaded).

    :param state: the shared files, plus ``branch`` for the default branch's health.
    :param repository: ``owner/name``, for the bodies Gauntlet writes.
    :param base: the default branch, which proposal PRs target.
    :param proposal_prs: what GitHub says about the pending proposals' PRs (none known: they stay pending).
    """
    active = config.selfheal.enabled and not config.paused
    learnings = learning.sync_curated(state.learnings, config.selfheal.curated_rules, now)
    steps: list[selfheal.ProposalOutcome] = []
    book = state.proposals
    if active:
        steps.extend(
            verification.settle(
                book,
                state.defects,
                proposal_prs,
                repository=repository,
                base=base,
                config=config.selfheal,
                now=now,
            )
        )
        steps.append(
            selfheal.propose(
                steps[-1].book,
                state.defects,
                learning.rules_by_class(learnings, now),
                repository=repository,
                base=base,
                config=config.selfheal,
                now=now,
            )
        )
        book = steps[-1].book
    off = "self-healing is paused" if config.paused else "self-healing is off (selfheal.enabled: false)"
    messages = [m for step in steps for m in step.messages] if active else [off]
    changed = [c for step in steps for c in step.changed]
    effects = [e for step in steps for e in step.effects]
    learnings = learning.compact_learnings(learnings, now)
    status = health.assess_repository(state.branch, book, config.health, now, watch_days=config.selfheal.watch_days)
    # What the scan concluded, in words, for the audit log (and for whoever reads the state branch).
    said = Event(at=now, kind="scan", key="scan", data={"messages": messages})
    events = [*state.events, *_events(book.proposals, changed, now), said]
    new = evolve(
        state,
        defects=selfheal.compact_defects(state.defects, config.selfheal, now),
        proposals=selfheal.compact_proposals(book),
        learnings=learnings,
        bandit=bandit.forget(state.bandit, learnings.rules),
        events=events,
    )
    plan = Plan(health=status, proposals=tuple(changed), effects=tuple(effects))
    return ScanOutcome(state=new, plan=plan, messages=tuple(messages))


class ProposalLine(BaseModel):
    """One proposal as ``gauntlet scan --json`` reports it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    level: str
    component: str
    defect_type: str
    status: str
    blocked_reason: str | None = None
    rules: tuple[str, ...] = ()
    note: str = ""

    @classmethod
    def of(cls, proposal: Proposal) -> ProposalLine:
        """The reported fields of ``proposal``."""
        return cls.model_validate(proposal.model_dump(include=set(cls.model_fields)))


class ScanReport(BaseModel):
    """What ``gauntlet scan --json`` prints: proposals touched by this scan, every active one, health, effects."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    proposals: tuple[ProposalLine, ...] = ()
    active: tuple[ProposalLine, ...] = ()
    messages: tuple[str, ...] = ()
    health: HealthVerdict = HealthVerdict()
    effects: tuple[EffectLine, ...] = ()

    @classmethod
    def of(cls, outcome: ScanOutcome, results: Iterable[EffectResult]) -> ScanReport:
        """Build the report from a scan's outcome and the effects' results."""
        book = outcome.state.proposals.proposals
        touched = set(outcome.plan.proposals)
        return cls(
            proposals=tuple(ProposalLine.of(p) for p in book if p.id in touched),
            active=tuple(ProposalLine.of(p) for p in book if p.status in selfheal.ACTIVE),
            messages=outcome.messages,
            health=outcome.plan.health,
            effects=tuple(EffectLine(type=r.type, key=r.key, status=r.status, url=r.url) for r in results),
        )

    def text(self) -> str:
        """The report for a terminal: what happened, then every active proposal, then health."""
        lines = list(self.messages) or ["nothing to propose or verify"]
        lines.extend(
            f"  {p.id:6} {p.level:5} {p.status:11} {p.component}/{p.defect_type}"
            + (f" ({p.blocked_reason})" if p.blocked_reason else "")
            for p in self.active
        )
        lines.append(f"health: {self.health.status}" + "".join(f"; {r}" for r in self.health.reasons))
        lines.extend(f"  {e.status:9} {e.type:17} {e.key}" for e in self.effects)
        return "\n".join(lines)


def _events(proposals: Iterable[Proposal], changed: list[str], now: datetime) -> list[Event]:
    touched = set(changed)
    return [
        Event(
            at=now,
            kind="proposal",
            key=f"proposal:{p.id}",
            data={"status": p.status, "level": p.level, "key": p.key, "blocked_reason": p.blocked_reason},
        )
        for p in proposals
        if p.id in touched
    ]
