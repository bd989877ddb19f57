"""Triage: a watched issue ends on evidence (its job no longer reports it, or its code changed), never by time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from gauntlet.config import Config
from gauntlet.effects.bodies import body_of
from gauntlet.effects.models import CloseIssue, FileIssue
from gauntlet.engine.decide import decide
from gauntlet.engine.triage import BranchEvidence, triage, watch
from gauntlet.models import CommitFact, Finding, Observation
from gauntlet.state.branch import BranchRecord
from gauntlet.state.models import State
from gauntlet.state.triage import MAX_WATCHED, TriageBook, WatchedIssue

T0 = datetime(2026, 11, 1, tzinfo=UTC)
FP = "3f9a02c1d4e5f607"
KEY = f"risk:{FP}"


def watched(fp: str = FP, since: datetime = T0, **extra: object) -> WatchedIssue:
    return WatchedIssue.model_validate(
        {"kind": "risk", "ident": fp, "fingerprint": fp, "title": f"accepted risk {fp}", "since": since, **extra}
    )


def book(*issues: WatchedIssue) -> TriageBook:
    return TriageBook(issues={i.key: i for i in issues})


def run_of(job: str, *seen: str, complete: bool = True, **extra: object) -> BranchEvidence:
    return BranchEvidence(seen=set(seen), job=job, complete=complete, head_sha="c" * 40, **extra)  # type: ignore[arg-type]


def test_time_alone_never_closes_an_issue() -> None:
    start = book(watched(job="test"), watched("e" * 16, path="src/app.py"))
    for days in (14, 60, 365):
        assert triage(start, run_of("lint"), T0 + timedelta(days=days), "o/r") == (start, ())


def test_a_run_of_the_same_job_that_no_longer_reports_it_closes_the_issue() -> None:
    start = book(watched(job="test"))
    assert triage(start, run_of("test", FP), T0 + timedelta(days=1), "o/r")[1] == ()
    assert triage(start, run_of("test", complete=False), T0 + timedelta(days=1), "o/r")[1] == ()  # cut short
    closed, (close,) = triage(start, run_of("test"), T0 + timedelta(days=1), "o/r")
    assert isinstance(close, CloseIssue) and close.key == KEY
    assert "`test` ran on `main` at ccccccc and no longer reports this finding" in body_of(close)
    assert closed.issues[KEY].closed
    assert triage(closed, run_of("test"), T0 + timedelta(days=2), "o/r") == (closed, ())  # not closed twice


def commit(sha: str, at: datetime, *files: str, message: str = "Change") -> CommitFact:
    return CommitFact.of(sha=sha * 40, message=message, author=None, files=files, parents=(), at=at)


def test_a_review_finding_closes_when_the_code_at_its_location_changed_after_acceptance() -> None:
    start = book(watched(path="src/app.py", pr=12))
    later = T0 + timedelta(hours=1)
    quiet = [
        commit("d", T0 - timedelta(hours=1), "src/app.py"),  # before the risk was accepted
        commit("e", later, "README.md"),  # another file
        commit("f", later, "src/app.py", message="Change x (#12)"),  # the accepted PR itself, squashed
        commit("a", later, "src/app.py", message="Merge pull request #12 from o/topic"),
    ]
    assert triage(start, run_of("test", commits=quiet), T0 + timedelta(days=1), "o/r")[1] == ()
    changed = [commit("b", later, "src/app.py", message="Rework x (#13)"), *quiet]
    _, (close,) = triage(start, run_of("test", commits=changed), T0 + timedelta(days=1), "o/r")
    assert "the code at `src/app.py` changed on `main` in bbbbbbb" in body_of(close)


def test_a_change_in_the_second_the_risk_was_accepted_counts_commit_dates_have_whole_seconds() -> None:
    accepted = T0 + timedelta(seconds=5, microseconds=400_000)
    start = book(watched(path="src/app.py", since=accepted))
    same_second = [commit("b", T0 + timedelta(seconds=5), "src/app.py")]
    _, (close,) = triage(start, run_of("test", commits=same_second), T0 + timedelta(days=1), "o/r")
    assert isinstance(close, CloseIssue)
    before = [commit("d", T0 + timedelta(seconds=4), "src/app.py")]
    assert triage(start, run_of("test", commits=before), T0 + timedelta(days=1), "o/r")[1] == ()


def test_a_finding_that_comes_back_reopens_its_issue_once() -> None:
    closed, _ = triage(book(watched(job="test")), run_of("test"), T0 + timedelta(days=1), "o/r")
    back_at = T0 + timedelta(days=2)
    reopened, (reopen,) = triage(closed, run_of("test", FP), back_at, "o/r")
    assert isinstance(reopen, FileIssue) and reopen.key == KEY and reopen.recurrence_note is not None
    assert not reopened.issues[KEY].closed and reopened.issues[KEY].last_seen == back_at
    assert triage(reopened, run_of("test", FP), back_at + timedelta(hours=1), "o/r")[1] == ()


def test_watching_a_known_issue_keeps_its_history() -> None:
    closed = book(watched(last_seen=T0, closed=True))
    again = watch(closed, watched(since=T0 + timedelta(days=30)))
    entry = again.issues[KEY]
    assert (entry.closed, entry.since, entry.last_seen) == (False, T0, T0)


def test_the_book_is_bounded_dropping_the_oldest_closed_first() -> None:
    issues = [watched(f"{i:016x}", since=T0 + timedelta(minutes=i), closed=True) for i in range(MAX_WATCHED)]
    grown = watch(book(*issues), watched("f" * 16))
    assert len(grown.issues) == MAX_WATCHED
    assert f"risk:{0:016x}" not in grown.issues and f"risk:{'f' * 16}" in grown.issues


def branch_run(
    state: State, findings: tuple[Finding, ...], now: datetime, run_id: str, commits: tuple[CommitFact, ...] = ()
) -> tuple[State, list[str]]:
    obs = Observation(
        repository="o/r",
        event="push",
        branch="main",
        head_sha="b" * 40,
        run_id=run_id,
        job="test",
        findings=findings,
        commits=commits,
    )
    new, plan = decide(state, obs, Config(), now, np.random.default_rng(0))
    return new, [e.key for e in plan.effects if e.type in ("close_issue", "file_issue")]


def test_the_default_branch_step_closes_and_reopens() -> None:
    failing = (Finding(fingerprint=FP, source="log", kind="test_failure", severity="critical", message="boom"),)
    state = State(branch=BranchRecord(name="main"), triage=book(watched(job="test")))
    state, keys = branch_run(state, (), T0 + timedelta(days=1), "1")
    assert keys == [KEY] and state.triage.issues[KEY].closed
    assert [e.kind for e in state.events].count("triage") == 1
    state, keys = branch_run(state, failing, T0 + timedelta(days=2), "2")
    assert keys == [KEY] and not state.triage.issues[KEY].closed


def test_the_default_branch_step_closes_a_review_finding_when_its_file_changed() -> None:
    state = State(branch=BranchRecord(name="main"), triage=book(watched(path="src/app.py")))
    untouched = commit("d", T0 + timedelta(hours=2), "README.md")
    _, keys = branch_run(state, (), T0 + timedelta(days=1), "1", (untouched,))
    assert keys == []
    touched = commit("e", T0 + timedelta(hours=3), "src/app.py")
    _, keys = branch_run(state, (), T0 + timedelta(days=1), "2", (touched, untouched))
    assert keys == [KEY]


def test_other_branches_say_nothing_about_the_default_branch() -> None:
    obs = Observation(repository="o/r", event="push", branch="feature", head_sha="b" * 40, job="test")
    state = State(branch=BranchRecord(name="feature"), triage=book(watched(job="test")))
    new, plan = decide(state, obs, Config(), T0 + timedelta(days=30), np.random.default_rng(0))
    assert new.triage == state.triage and not [e for e in plan.effects if e.type == "close_issue"]


def test_paused_triage_does_nothing() -> None:
    state = State(branch=BranchRecord(name="main"), triage=book(watched(job="test")))
    obs = Observation(repository="o/r", event="push", branch="main", head_sha="b" * 40, job="test")
    new, plan = decide(state, obs, Config(paused=True), T0 + timedelta(days=99), np.random.default_rng(0))
    assert new.triage == state.triage and not [e for e in plan.effects if e.type == "close_issue"]
