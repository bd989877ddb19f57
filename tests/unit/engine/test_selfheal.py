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
    """Each batch at its own place (one occasion each)."""
    log = DefectLog()
    for i, (at, findings) in enumerate(batches):
        log = selfheal.record_defects(log, findings, f"{place}-{i}", at)
    return log


def on_prs(at: datetime, findings: list[Finding], first: int = 1, log: DefectLog | None = None) -> DefectLog:
    log = log or DefectLog()
    for i, f in enumerate(findings):
        log = selfheal.record_defects(log, [f], f"pr:{first + i}", at)
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


def test_three_p2_on_three_prs_make_a_patch_proposal_pr_with_the_learned_rules() -> None:
    log = on_prs(NOW - timedelta(days=1), [finding("a"), finding("b"), finding("c")])
    out = propose(log)
    [proposal] = out.book.proposals
    assert (proposal.id, proposal.level, proposal.status, proposal.key) == ("SH-1", "PATCH", "pending", "src/app/lint")
    assert proposal.watch_until is None  # the watch starts when the PR is merged
    [effect] = out.effects
    assert isinstance(effect, OpenProposalPR)
    assert effect.rules == ("Run ruff before pushing.",) and effect.rollback_of is None
    # The evidence names the defects, one per occasion, not only counts.
    assert effect.view.evidence[0] == "3 occasions in the last 14 days (3 × P2)"
    assert effect.view.evidence[1:] == (
        "P2 on PR #1: src/app/calc.py: a",
        "P2 on PR #2: src/app/calc.py: b",
        "P2 on PR #3: src/app/calc.py: c",
    )


def test_one_pr_with_many_failures_is_one_occasion_and_makes_no_proposal() -> None:
    many = [finding(x, priority=p) for x in "abcdef" for p in ("P1",)]
    out = propose(log_with((NOW - timedelta(hours=1), many)))
    assert out.book.proposals == [] and out.effects == ()
    assert out.messages == (
        "src/app/lint: no proposal, seen on 1 occasion(s) (a proposal needs a recurrence: 2 distinct PRs or days)",
    )


def test_one_failure_repeated_on_a_branch_in_one_day_is_one_occasion() -> None:
    log = DefectLog()
    for hour in range(5):
        log = selfheal.record_defects(
            log, [finding(f"x{hour}", priority="P1")], "branch:main", NOW - timedelta(hours=hour + 1)
        )
    assert propose(log).book.proposals == []
    log = selfheal.record_defects(log, [finding("y", priority="P1")], "branch:main", NOW - timedelta(days=1, hours=6))
    assert [p.level for p in propose(log).book.proposals] == ["MINOR"]  # two days: a recurrence


def test_defects_outside_the_window_do_not_count() -> None:
    log = on_prs(NOW - timedelta(days=15), [finding("a"), finding("b"), finding("c")])
    assert propose(log).book.proposals == []


def test_p0_is_a_needs_human_issue_never_a_pr_and_lists_its_defects_and_rules() -> None:
    p0 = [finding(x, priority="P0", kind="test_failure", severity="critical") for x in "ab"]
    out = propose(on_prs(NOW, p0), now=NOW + timedelta(minutes=1))
    [proposal] = out.book.proposals
    assert (proposal.level, proposal.status) == ("MAJOR", "needs_human")
    [effect] = out.effects
    assert isinstance(effect, FileIssue) and effect.kind == "needs-human"
    assert effect.view.evidence == (
        "2 occasions in the last 14 days (2 × P0)",
        "P0 on PR #1: src/app/calc.py: a",
        "P0 on PR #2: src/app/calc.py: b",
        "rule it would promote: Run the tests.",
    )
    assert "/gauntlet approve SH-1" in effect.view.resolve


def test_a_pending_proposal_is_never_duplicated_by_a_later_scan() -> None:
    log = on_prs(NOW - timedelta(days=1), [finding("a"), finding("b"), finding("c")])
    first = propose(log)
    log = on_prs(NOW + timedelta(days=1), [finding(x) for x in "def"], first=10, log=log)
    second = propose(log, first.book, now=NOW + timedelta(days=2))
    assert len(second.book.proposals) == 1 and second.effects == ()


def test_daily_limit_records_blocked_reason() -> None:
    config = SelfHealConfig(max_patch_per_day=1)
    findings = [finding(f"{c}{i}", path=f"src/{c}/x.py") for c in ("alpha", "beta") for i in range(3)]
    out = propose(on_prs(NOW - timedelta(hours=1), findings), config=config)
    assert [(p.component, p.status, p.blocked_reason) for p in out.book.proposals] == [
        ("src/alpha", "pending", None),
        ("src/beta", "blocked", "daily_limit"),
    ]


def test_no_learned_rules_blocks_a_patch() -> None:
    findings = [finding(f"x{i}", kind="dependency") for i in range(3)]
    out = propose(on_prs(NOW - timedelta(hours=1), findings))
    assert out.book.proposals[0].blocked_reason == "no_rules"


def pending_proposal() -> tuple[DefectLog, ProposalBook]:
    log = on_prs(NOW - timedelta(days=1), [finding(x) for x in "abc"])
    return log, propose(log).book


def test_approve_a_major_opens_the_proposal_pr_pending_its_merge() -> None:
    p0 = [finding(x, priority="P0", kind="test_failure", severity="critical") for x in "ab"]
    book = propose(on_prs(NOW, p0), now=NOW + timedelta(minutes=1)).book
    out = selfheal.approve(book, "sh-1", by="alice", repository="o/r", base="main", config=CONFIG, now=NOW)
    [proposal] = out.book.proposals
    assert (proposal.status, proposal.decided_by, proposal.watch_until) == ("pending", "alice", None)
    assert isinstance(out.effects[0], OpenProposalPR)


def test_approve_and_reject_refuse_unknown_and_final_proposals() -> None:
    _, book = pending_proposal()
    out = selfheal.approve(book, "SH-9", by="a", repository="o/r", base="main", config=CONFIG, now=NOW)
    assert out.book == book and out.messages == ("no proposal SH-9",)
    rejected = selfheal.reject(book, "SH-1", by="bob", reason="noisy", now=NOW)
    assert rejected.book.proposals[0].status == "rejected"
    again = selfheal.reject(rejected.book, "SH-1", by="bob", reason="", now=NOW)
    assert again.messages == ("SH-1 is already rejected",)


def test_a_rejected_key_rests_for_the_cooldown() -> None:
    log, book = pending_proposal()
    rejected = selfheal.reject(book, "SH-1", by="bob", reason="", now=NOW + timedelta(hours=30)).book
    assert propose(log, rejected, now=NOW + timedelta(hours=31)).book == rejected  # its defects were answered
    log = on_prs(NOW + timedelta(hours=40), [finding(x) for x in "xyz"], first=8, log=log)
    out = propose(log, rejected, now=NOW + timedelta(hours=41))
    assert (out.book.proposals[-1].id, out.book.proposals[-1].blocked_reason) == ("SH-2", "cooldown")
    later = propose(log, out.book, now=NOW + timedelta(hours=55))
    assert (later.book.proposals[-1].id, later.book.proposals[-1].status) == ("SH-2", "pending")


def test_a_blocked_proposal_whose_defects_left_the_window_lapses() -> None:
    config = SelfHealConfig(max_patch_per_day=1)
    findings = [finding(f"{c}{i}", path=f"src/{c}/x.py") for c in ("alpha", "beta") for i in range(3)]
    log = on_prs(NOW - timedelta(hours=1), findings)
    book = propose(log, config=config).book
    assert [p.status for p in book.proposals] == ["pending", "blocked"]
    later = propose(log, book, now=NOW + timedelta(days=15), config=config)
    lapsed = later.book.proposals[-1]
    assert (lapsed.status, lapsed.blocked_reason) == ("lapsed", "daily_limit")
    assert later.changed == ("SH-2",) and later.effects == ()


def test_state_written_with_open_reads_as_pending() -> None:
    book = ProposalBook.model_validate(
        {
            "proposals": [
                {
                    "id": "SH-1",
                    "component": "c",
                    "defect_type": "lint",
                    "level": "PATCH",
                    "status": "open",
                    "created_at": NOW.isoformat(),
                }
            ]
        }
    )
    assert book.proposals[0].status == "pending"
