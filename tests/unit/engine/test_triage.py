"""Triage: a watched issue closes when its finding leaves the default branch for the window, reopens when it returns."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from gauntlet.config import CommandsConfig, Config
from gauntlet.effects.bodies import body_of
from gauntlet.effects.models import CloseIssue, FileIssue
from gauntlet.engine.decide import decide
from gauntlet.engine.triage import triage, triage_scan, watch
from gauntlet.models import Finding, Observation
from gauntlet.state.branch import BranchRecord
from gauntlet.state.models import State
from gauntlet.state.triage import MAX_WATCHED, TriageBook, WatchedIssue

T0 = datetime(2026, 11, 1, tzinfo=UTC)
FP = "3f9a02c1d4e5f607"


def watched(fp: str = FP, since: datetime = T0, **extra: object) -> WatchedIssue:
    return WatchedIssue.model_validate(
        {"kind": "risk", "ident": fp, "fingerprint": fp, "title": f"accepted risk {fp}", "since": since, **extra}
    )


def book(*issues: WatchedIssue) -> TriageBook:
    return TriageBook(issues={i.key: i for i in issues})


def test_unseen_for_the_window_closes_with_a_comment() -> None:
    start = book(watched())
    kept, effects = triage(start, set(), T0 + timedelta(days=13), 14, "o/r")
    assert (kept, effects) == (start, ())
    closed, effects = triage(start, set(), T0 + timedelta(days=14), 14, "o/r")
    (close,) = effects
    assert isinstance(close, CloseIssue)
    assert close.key == f"risk:{FP}"
    assert "14 days" in body_of(close)
    assert closed.issues[f"risk:{FP}"].closed


def test_a_closed_issue_is_not_closed_again() -> None:
    closed, _ = triage(book(watched()), set(), T0 + timedelta(days=20), 14, "o/r")
    again, effects = triage(closed, set(), T0 + timedelta(days=40), 14, "o/r")
    assert (again, effects) == (closed, ())


def test_being_seen_restarts_the_window() -> None:
    seen_at = T0 + timedelta(days=10)
    seen, effects = triage(book(watched()), {FP}, seen_at, 14, "o/r")
    assert effects == ()
    assert seen.issues[f"risk:{FP}"].last_seen == seen_at
    _, effects = triage(seen, set(), seen_at + timedelta(days=13), 14, "o/r")
    assert effects == ()
    _, effects = triage(seen, set(), seen_at + timedelta(days=14), 14, "o/r")
    assert [e.type for e in effects] == ["close_issue"]


def test_a_finding_that_comes_back_reopens_its_issue_once() -> None:
    closed, _ = triage(book(watched()), set(), T0 + timedelta(days=15), 14, "o/r")
    back_at = T0 + timedelta(days=16)
    reopened, effects = triage(closed, {FP}, back_at, 14, "o/r")
    (reopen,) = effects
    assert isinstance(reopen, FileIssue)
    assert reopen.key == f"risk:{FP}"
    assert reopen.recurrence_note is not None
    assert not reopened.issues[f"risk:{FP}"].closed
    _, effects = triage(reopened, {FP}, back_at + timedelta(hours=1), 14, "o/r")
    assert effects == ()


def test_watching_a_known_issue_keeps_its_history() -> None:
    closed = book(watched(last_seen=T0, closed=True))
    again = watch(closed, watched(since=T0 + timedelta(days=30)))
    entry = again.issues[f"risk:{FP}"]
    assert (entry.closed, entry.since, entry.last_seen) == (False, T0, T0)


def test_the_book_is_bounded_dropping_the_oldest_closed_first() -> None:
    issues = [watched(f"{i:016x}", since=T0 + timedelta(minutes=i), closed=True) for i in range(MAX_WATCHED)]
    full = book(*issues)
    grown = watch(full, watched("f" * 16))
    assert len(grown.issues) == MAX_WATCHED
    assert f"risk:{0:016x}" not in grown.issues
    assert f"risk:{'f' * 16}" in grown.issues


def branch_run(state: State, findings: tuple[Finding, ...], now: datetime, run_id: str) -> tuple[State, list[str]]:
    obs = Observation(
        repository="o/r", event="push", branch="main", head_sha="b" * 40, run_id=run_id, findings=findings
    )
    new, plan = decide(state, obs, Config(commands=CommandsConfig(triage_days=7)), now, np.random.default_rng(0))
    return new, [e.key for e in plan.effects if e.type in ("close_issue", "file_issue")]


def test_the_default_branch_step_closes_and_reopens() -> None:
    failing = (Finding(fingerprint=FP, source="log", kind="test_failure", severity="critical", message="boom"),)
    state = State(branch=BranchRecord(name="main"), triage=book(watched()))
    state, keys = branch_run(state, (), T0 + timedelta(days=8), "1")
    assert keys == [f"risk:{FP}"]
    assert state.triage.issues[f"risk:{FP}"].closed
    assert [e.kind for e in state.events].count("triage") == 1
    state, keys = branch_run(state, failing, T0 + timedelta(days=9), "2")
    assert keys == [f"risk:{FP}"]
    assert not state.triage.issues[f"risk:{FP}"].closed


def test_other_branches_say_nothing_about_the_default_branch() -> None:
    obs = Observation(repository="o/r", event="push", branch="feature", head_sha="b" * 40)
    state = State(branch=BranchRecord(name="feature"), triage=book(watched()))
    new, plan = decide(state, obs, Config(), T0 + timedelta(days=30), np.random.default_rng(0))
    assert new.triage == state.triage
    assert not [e for e in plan.effects if e.type == "close_issue"]


def test_the_scan_closes_stale_issues_but_reopens_nothing() -> None:
    state = State(triage=book(watched(), watched("e" * 16, closed=True)))
    new, effects = triage_scan(state, Config(), T0 + timedelta(days=14), "o/r")
    assert [(e.type, e.key) for e in effects] == [("close_issue", f"risk:{FP}")]
    assert all(issue.closed for issue in new.triage.issues.values())
    assert triage_scan(new, Config(), T0 + timedelta(days=15), "o/r") == (new, ())


def test_paused_triage_does_nothing() -> None:
    state = State(triage=book(watched()))
    assert triage_scan(state, Config(paused=True), T0 + timedelta(days=99), "o/r") == (state, ())
