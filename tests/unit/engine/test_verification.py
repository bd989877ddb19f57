"""Proposals after they are made: pending until merged, rejected when closed, watched from the merge, verified."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from gauntlet.config import SelfHealConfig
from gauntlet.effects.models import CommentOnPR, FileIssue, OpenProposalPR
from gauntlet.engine import selfheal, verification
from gauntlet.models import Finding, ProposalPRFact
from gauntlet.state.shared import DefectLog, ProposalBook

NOW = datetime(2026, 11, 2, 12, tzinfo=UTC)
CONFIG = SelfHealConfig()
RULES = {"lint": ["Run ruff before pushing."]}
MERGED = NOW + timedelta(days=1)


def lint(fp: str) -> Finding:
    return Finding(
        fingerprint=fp, source="log", kind="lint", severity="minor", priority="P2", path="src/app/calc.py", message=fp
    )


def on_prs(log: DefectLog, at: datetime, fps: str, first: int) -> DefectLog:
    for i, fp in enumerate(fps):
        log = selfheal.record_defects(log, [lint(fp)], f"pr:{first + i}", at)
    return log


def observed(log: DefectLog, at: datetime, times: int, first: int = 100) -> DefectLog:
    """Green runs that changed the component: observations with no defect."""
    for i in range(times):
        log = selfheal.record_defects(log, [], f"pr:{first + i}", at, changed=["src/app/calc.py"])
    return log


def pending() -> tuple[DefectLog, ProposalBook]:
    log = on_prs(DefectLog(), NOW - timedelta(days=1), "abc", 1)
    book = selfheal.propose(ProposalBook(), log, RULES, repository="o/r", base="main", config=CONFIG, now=NOW).book
    assert book.proposals[0].status == "pending"
    return log, book


def settle(log: DefectLog, book: ProposalBook, now: datetime, *facts: ProposalPRFact) -> ProposalBook:
    steps = verification.settle(book, log, facts, repository="o/r", base="main", config=CONFIG, now=now)
    return steps[-1].book


def merged_fact() -> ProposalPRFact:
    return ProposalPRFact(proposal_id="SH-1", number=4, state="merged", merged_at=MERGED)


def test_a_proposal_pr_nobody_merged_stays_pending_and_is_never_verified() -> None:
    log, book = pending()
    log = observed(log, NOW + timedelta(days=3), 5)
    open_pr = ProposalPRFact(proposal_id="SH-1", number=4, state="open")
    for later in (NOW + timedelta(days=8), NOW + timedelta(days=30)):
        [p] = settle(log, book, later, open_pr).proposals
        assert (p.status, p.pr, p.watch_until) == ("pending", 4, None)
    assert settle(log, book, NOW + timedelta(days=30)).proposals[0].status == "pending"  # no fact: nothing known


def test_closed_unmerged_is_rejected_and_the_key_rests_for_the_cooldown() -> None:
    log, book = pending()
    closed = ProposalPRFact(proposal_id="SH-1", number=4, state="closed")
    later = NOW + timedelta(days=2)
    book = settle(log, book, later, closed)
    [p] = book.proposals
    assert (p.status, p.note) == ("rejected", "proposal PR #4 was closed without merging")
    log = on_prs(log, later + timedelta(hours=1), "xyz", 20)
    out = selfheal.propose(
        book, log, RULES, repository="o/r", base="main", config=CONFIG, now=later + timedelta(hours=2)
    )
    assert (out.book.proposals[-1].status, out.book.proposals[-1].blocked_reason) == ("blocked", "cooldown")


def test_the_watch_starts_at_the_merge_and_quiet_enough_watch_is_verified() -> None:
    log, book = pending()
    book = settle(log, book, NOW + timedelta(days=2), merged_fact())
    [p] = book.proposals
    assert (p.status, p.merged_at, p.watch_until) == ("watching", MERGED, MERGED + timedelta(days=7))
    log = observed(log, MERGED + timedelta(days=3), 3)
    assert settle(log, book, MERGED + timedelta(days=6)).proposals[0].status == "watching"
    [p] = settle(log, book, MERGED + timedelta(days=7)).proposals
    assert p.status == "verified" and "over 3 observations of src/app" in p.note


def test_too_few_observations_of_the_component_is_unverified() -> None:
    log, book = pending()
    book = settle(log, book, NOW + timedelta(days=2), merged_fact())
    log = observed(log, MERGED + timedelta(days=3), 2)
    log = selfheal.record_defects(log, [], "pr:50", MERGED + timedelta(days=3), changed=["docs/other.md"])
    [p] = settle(log, book, MERGED + timedelta(days=8)).proposals
    assert p.status == "unverified"
    assert p.note == "src/app was observed 2 time(s) during the watch; 3 are needed to tell whether the rules helped"


def test_grown_defects_roll_back_with_a_pr_undoing_the_promotion() -> None:
    config = SelfHealConfig(patch_p2=9, minor_p2=9)  # no escalation: only the rate grows
    log, book = pending()
    steps = verification.settle(
        book, log, [merged_fact()], repository="o/r", base="main", config=config, now=NOW + timedelta(days=2)
    )
    log = on_prs(log, MERGED + timedelta(days=2), "defg", 30)
    steps = verification.settle(
        steps[-1].book, log, [], repository="o/r", base="main", config=config, now=MERGED + timedelta(days=7)
    )
    [p] = steps[-1].book.proposals
    assert p.status == "rolled_back"
    [effect] = [e for s in steps for e in s.effects]
    assert isinstance(effect, OpenProposalPR) and effect.rollback_of == "SH-1"


def test_a_recurrence_after_the_merge_comments_on_the_pr_and_a_major_files_the_issue() -> None:
    log, book = pending()
    book = settle(log, book, NOW + timedelta(days=2), merged_fact())
    log = on_prs(log, MERGED + timedelta(days=1), "def", 30)
    steps = verification.settle(
        book, log, [], repository="o/r", base="main", config=CONFIG, now=MERGED + timedelta(days=1, hours=1)
    )
    [p] = steps[-1].book.proposals
    assert (p.level, p.status) == ("MINOR", "watching")
    [note] = [e for s in steps for e in s.effects]
    assert isinstance(note, CommentOnPR) and note.issue_number == 4 and note.key == "note:SH-1:escalated-MINOR"
    assert note.view.command == "SH-1 escalated PATCH → MINOR"
    assert "P2 on PR #30: src/app/calc.py: d" in note.view.details
    log = on_prs(log, MERGED + timedelta(days=2), "ghi", 40)
    steps = verification.settle(
        steps[-1].book, log, [], repository="o/r", base="main", config=CONFIG, now=MERGED + timedelta(days=2, hours=1)
    )
    [p] = steps[-1].book.proposals
    assert (p.level, p.status) == ("MAJOR", "needs_human")
    effects = [e for s in steps for e in s.effects]
    assert [type(e) for e in effects] == [CommentOnPR, FileIssue]
    assert isinstance(effects[1], FileIssue) and effects[1].key == "needs-human:proposal-SH-1"


def test_a_pending_proposal_does_not_escalate_before_it_lands() -> None:
    log, book = pending()
    log = on_prs(log, NOW + timedelta(days=1), "defghi", 30)
    steps = verification.settle(
        book, log, [], repository="o/r", base="main", config=CONFIG, now=NOW + timedelta(days=2)
    )
    assert steps[-1].book == book and not [e for s in steps for e in s.effects]
