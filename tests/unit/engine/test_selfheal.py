"""Self-healing: defect counting, thresholds, limits, cooldown, escalation, verification, approve and reject."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from gauntlet.config import SelfHealConfig
from gauntlet.effects.models import FileIssue, OpenProposalPR
from gauntlet.engine import selfheal
from gauntlet.models import Finding, Kind, Priority, Severity
from gauntlet.state.shared import DefectLog, ProposalBook

NOW = datetime(2026, 11, 2, 12, tzinfo=UTC)
CONFIG = SelfHealConfig()
RULES = {"lint": ["Run ruff before pushing."], "test_failure": ["Run the tests."], "type_error": ["Run mypy."]}


def finding(
    fp: str,
    *,
    priority: Priority = "P2",
    kind: Kind = "lint",
    severity: Severity = "minor",
    path: str = "src/app/calc.py",
) -> Finding:
    return Finding(fingerprint=fp, source="log", kind=kind, severity=severity, priority=priority, path=path, message=fp)


def log_with(*batches: tuple[datetime, list[Finding]], place: str = "pr:1") -> DefectLog:
    log = DefectLog()
    for i, (at, findings) in enumerate(batches):
        log = selfheal.record_defects(log, findings, f"{place}-{i}", at)
    return log


def propose(log: DefectLog, book: ProposalBook | None = None, now: datetime = NOW, config: SelfHealConfig = CONFIG):
    return selfheal.propose(book or ProposalBook(), log, RULES, repository="o/r", base="main", config=config, now=now)


@pytest.mark.parametrize(
    ("counts", "level"),
    [
        ({"P0": 1}, "MAJOR"),
        ({"P1": 1, "P2": 9}, "MINOR"),
        ({"P2": 5}, "MINOR"),
        ({"P2": 3}, "PATCH"),
        ({"P2": 2}, None),
        ({}, None),
    ],
)
def test_thresholds(counts: dict[Priority, int], level: str | None) -> None:
    assert selfheal.level_for(counts, CONFIG) == level


def test_thresholds_are_configurable() -> None:
    assert selfheal.level_for({"P2": 2}, SelfHealConfig(patch_p2=2)) == "PATCH"


def test_three_p2_make_a_patch_proposal_pr_with_the_learned_rules() -> None:
    log = log_with((NOW - timedelta(days=1), [finding("a"), finding("b"), finding("c")]))
    out = propose(log)
    [proposal] = out.book.proposals
    assert (proposal.id, proposal.level, proposal.status, proposal.key) == ("SH-1", "PATCH", "open", "app/lint")
    assert proposal.watch_until == NOW + timedelta(days=7)
    [effect] = out.effects
    assert isinstance(effect, OpenProposalPR)
    assert effect.rules == ("Run ruff before pushing.",) and effect.rollback_of is None


def test_defects_outside_the_window_do_not_count() -> None:
    log = log_with((NOW - timedelta(days=15), [finding("a"), finding("b"), finding("c")]))
    assert propose(log).book.proposals == []


def test_p0_is_a_needs_human_issue_never_a_pr() -> None:
    log = log_with((NOW, [finding("a", priority="P0", kind="test_failure", severity="critical")]))
    out = propose(log, now=NOW + timedelta(minutes=1))
    [proposal] = out.book.proposals
    assert (proposal.level, proposal.status) == ("MAJOR", "needs_human")
    [effect] = out.effects
    assert isinstance(effect, FileIssue) and effect.kind == "needs-human"


def test_an_open_proposal_is_never_duplicated_by_a_later_scan() -> None:
    log = log_with((NOW - timedelta(days=1), [finding("a"), finding("b"), finding("c")]))
    first = propose(log)
    second = propose(log, first.book, now=NOW + timedelta(days=2))
    assert len(second.book.proposals) == 1 and second.effects == ()


def test_recurrence_during_the_watch_escalates_patch_to_minor_to_major() -> None:
    log = log_with((NOW - timedelta(days=1), [finding("a"), finding("b"), finding("c")]))
    book = propose(log).book
    later = NOW + timedelta(days=2)
    log = log_with(
        (NOW - timedelta(days=1), [finding("a"), finding("b"), finding("c")]),
        (later - timedelta(hours=1), [finding("d"), finding("e"), finding("f")]),
    )
    out = propose(log, book, now=later)
    statuses = {p.id: (p.level, p.status, p.escalated_from) for p in out.book.proposals}
    assert statuses == {"SH-1": ("PATCH", "escalated", None), "SH-2": ("MINOR", "open", "SH-1")}
    even_later = later + timedelta(days=2)
    log = selfheal.record_defects(log, [finding(x) for x in "ghi"], "pr:9", even_later - timedelta(hours=1))
    out = propose(log, out.book, now=even_later)
    assert out.book.proposals[-1].level == "MAJOR" and out.book.proposals[-1].status == "needs_human"


def test_cooldown_blocks_an_escalation_within_24_hours_and_a_later_scan_retries_it() -> None:
    log = log_with((NOW - timedelta(hours=2), [finding(x) for x in "abc"]))
    book = propose(log, now=NOW - timedelta(hours=1)).book
    log = selfheal.record_defects(log, [finding(x) for x in "def"], "pr:7", NOW - timedelta(minutes=30))
    out = propose(log, book)
    blocked = out.book.proposals[-1]
    assert (blocked.status, blocked.blocked_reason, blocked.escalated_from) == ("blocked", "cooldown", "SH-1")
    assert out.effects == ()
    retried = propose(log, out.book, now=NOW + timedelta(days=1))
    assert retried.book.proposals[-1].id == blocked.id
    assert retried.book.proposals[-1].status == "open" and len(retried.effects) == 1


def test_daily_limit_records_blocked_reason() -> None:
    config = SelfHealConfig(max_patch_per_day=1)
    findings = [finding(f"{c}{i}", path=f"src/{c}/x.py") for c in ("alpha", "beta") for i in range(3)]
    out = propose(log_with((NOW - timedelta(hours=1), findings)), config=config)
    assert [(p.component, p.status, p.blocked_reason) for p in out.book.proposals] == [
        ("alpha", "open", None),
        ("beta", "blocked", "daily_limit"),
    ]


def test_no_learned_rules_blocks_a_patch() -> None:
    findings = [finding(f"x{i}", kind="dependency") for i in range(3)]
    out = propose(log_with((NOW - timedelta(hours=1), findings)))
    assert out.book.proposals[0].blocked_reason == "no_rules"


def open_proposal() -> tuple[DefectLog, ProposalBook]:
    log = log_with((NOW - timedelta(days=1), [finding(x) for x in "abc"]))
    return log, propose(log).book


def verify(log: DefectLog, book: ProposalBook, now: datetime):
    return selfheal.verify(book, log, repository="o/r", base="main", config=CONFIG, now=now)


def test_verification_waits_for_the_end_of_the_watch() -> None:
    log, book = open_proposal()
    assert verify(log, book, NOW + timedelta(days=6)).book == book


def test_no_growth_is_verified() -> None:
    log, book = open_proposal()
    log = selfheal.record_defects(log, [], "pr:5", NOW + timedelta(days=3))
    out = verify(log, book, NOW + timedelta(days=7))
    assert out.book.proposals[0].status == "verified" and out.effects == ()


def test_growth_is_rolled_back_with_a_revert_of_the_promotion() -> None:
    log, book = open_proposal()
    log = selfheal.record_defects(log, [finding("d"), finding("e")], "pr:5", NOW + timedelta(days=3))
    out = verify(log, book, NOW + timedelta(days=7, hours=1))
    assert out.book.proposals[0].status == "rolled_back"
    [effect] = out.effects
    assert isinstance(effect, OpenProposalPR) and effect.rollback_of == "SH-1"
    assert effect.key == "proposal:SH-1:rollback"


def test_no_data_during_the_watch_is_unverified_never_passed() -> None:
    log, book = open_proposal()
    out = verify(log, book, NOW + timedelta(days=8))
    assert out.book.proposals[0].status == "unverified"


def test_approve_a_major_opens_the_proposal_pr_and_starts_the_watch() -> None:
    log = log_with((NOW, [finding("a", priority="P0", kind="test_failure", severity="critical")]))
    book = propose(log, now=NOW + timedelta(minutes=1)).book
    out = selfheal.approve(book, "sh-1", by="alice", repository="o/r", base="main", config=CONFIG, now=NOW)
    [proposal] = out.book.proposals
    assert (proposal.status, proposal.decided_by, proposal.watch_until) == ("open", "alice", NOW + timedelta(days=7))
    assert isinstance(out.effects[0], OpenProposalPR)


def test_approve_and_reject_refuse_unknown_and_final_proposals() -> None:
    _, book = open_proposal()
    out = selfheal.approve(book, "SH-9", by="a", repository="o/r", base="main", config=CONFIG, now=NOW)
    assert out.book == book and out.messages == ("no proposal SH-9",)
    rejected = selfheal.reject(book, "SH-1", by="bob", reason="noisy", now=NOW)
    assert rejected.book.proposals[0].status == "rejected"
    again = selfheal.reject(rejected.book, "SH-1", by="bob", reason="", now=NOW)
    assert again.messages == ("SH-1 is already rejected",)


def test_a_rejected_key_rests_for_the_cooldown() -> None:
    log, book = open_proposal()
    rejected = selfheal.reject(book, "SH-1", by="bob", reason="", now=NOW + timedelta(hours=30)).book
    assert propose(log, rejected, now=NOW + timedelta(hours=31)).book == rejected  # its defects were answered
    log = selfheal.record_defects(log, [finding(x) for x in "xyz"], "pr:8", NOW + timedelta(hours=40))
    out = propose(log, rejected, now=NOW + timedelta(hours=41))
    assert (out.book.proposals[-1].id, out.book.proposals[-1].blocked_reason) == ("SH-2", "cooldown")
    later = propose(log, out.book, now=NOW + timedelta(hours=55))
    assert (later.book.proposals[-1].id, later.book.proposals[-1].status) == ("SH-2", "open")


def test_a_blocked_proposal_whose_defects_left_the_window_lapses() -> None:
    config = SelfHealConfig(max_patch_per_day=1)
    findings = [finding(f"{c}{i}", path=f"src/{c}/x.py") for c in ("alpha", "beta") for i in range(3)]
    log = log_with((NOW - timedelta(hours=1), findings))
    book = propose(log, config=config).book
    assert [p.status for p in book.proposals] == ["open", "blocked"]
    later = propose(log, book, now=NOW + timedelta(days=15), config=config)
    lapsed = later.book.proposals[-1]
    assert (lapsed.status, lapsed.blocked_reason) == ("lapsed", "daily_limit")
    assert later.changed == ("SH-2",) and later.effects == ()
