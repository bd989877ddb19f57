"""Issue triage: close the issue of a finding the default branch no longer shows, reopen it when it returns.

Theory of operation. Accepting a risk (``/gauntlet accept-risk``) or escalating a
finding to a human files an issue and *watches* it in ``v1/triage.json``
(:func:`watch`). Every default-branch run passes the fingerprints it saw to
:func:`triage` (:func:`triage_branch_run`); the scheduled scan passes none
(:func:`triage_scan`). For each watched issue::

    seen now, open          -> last_seen = now
    seen now, closed        -> reopen: FileIssue with a recurrence note (the issue is found by key)
    unseen for the window   -> CloseIssue with a comment saying why
    (window counted from the later of last_seen and since)

Pure: time is passed in; the effects find their issue again by key, so a
redelivered run plans nothing new.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta

from gauntlet.config import Config
from gauntlet.effects.models import CloseIssue, Effect, FileIssue
from gauntlet.effects.views import IssueView
from gauntlet.models import Observation, evolve
from gauntlet.state.events import Event
from gauntlet.state.models import State
from gauntlet.state.triage import MAX_WATCHED, TriageBook, WatchedIssue

__all__ = ["triage", "triage_branch_run", "triage_scan", "watch"]


def watch(book: TriageBook, issue: WatchedIssue) -> TriageBook:
    """Start watching ``issue`` (an already watched key keeps its history, and is open again)."""
    known = book.issues.get(issue.key)
    entry = issue if known is None else evolve(known, closed=False)
    issues = {**book.issues, issue.key: entry}
    if len(issues) > MAX_WATCHED:
        closed = sorted((w for w in issues.values() if w.closed), key=lambda w: w.last_seen or w.since)
        for stale in closed[: len(issues) - MAX_WATCHED]:
            del issues[stale.key]
    return evolve(book, issues=issues)


def triage(
    book: TriageBook, seen: Collection[str], now: datetime, window_days: int, repository: str
) -> tuple[TriageBook, tuple[Effect, ...]]:
    """Close what the default branch has not shown for ``window_days``; reopen what came back.

    :param book: the watched issues.
    :param seen: the fingerprints the default branch shows now (empty from the scheduled scan).
    :param now: the time of the run.
    :param window_days: ``commands.triage_days``.
    :param repository: ``owner/name``, for the reopened issue's body.
    :returns: the updated book and the effects, in key order.
    """
    window = timedelta(days=window_days)
    issues = dict(book.issues)
    effects: list[Effect] = []
    for key in sorted(issues):
        issue = issues[key]
        if issue.fingerprint in seen:
            if issue.closed:
                effects.append(_recurrence(issue, now, repository))
            issues[key] = evolve(issue, last_seen=now, closed=False)
        elif not issue.closed and now - max(issue.last_seen or issue.since, issue.since) >= window:
            effects.append(
                CloseIssue(
                    kind=issue.kind,
                    ident=issue.ident,
                    reason=f"this finding has not appeared on the default branch for {window_days} days. "
                    "Gauntlet reopens this issue if it comes back.",
                )
            )
            issues[key] = evolve(issue, closed=True)
    if issues == book.issues:
        return book, ()
    return evolve(book, issues=issues), tuple(effects)


def triage_branch_run(
    state: State, obs: Observation, config: Config, now: datetime
) -> tuple[State, tuple[Effect, ...]]:
    """Triage for one branch run: only a default-branch run says what the default branch shows.

    Nothing happens while ``paused``: the issues stay as they are until triage may act again.
    """
    if not obs.on_default_branch:
        return state, ()
    return _triage_state(state, {f.fingerprint for f in obs.findings}, config, now, obs.repository)


def triage_scan(state: State, config: Config, now: datetime, repository: str) -> tuple[State, tuple[Effect, ...]]:
    """Triage from the scheduled scan: close what the default branch has not shown for the window.

    The scan sees no run, so it reopens nothing; quiet default branches still get their issues closed.
    """
    return _triage_state(state, frozenset(), config, now, repository)


def _triage_state(
    state: State, seen: Collection[str], config: Config, now: datetime, repository: str
) -> tuple[State, tuple[Effect, ...]]:
    if config.paused or not state.triage.issues:
        return state, ()
    book, effects = triage(state.triage, seen, now, config.commands.triage_days, repository)
    if book is state.triage:
        return state, ()
    events = [*state.events, *(Event(at=now, kind="triage", key=e.key, data={"effect": e.type}) for e in effects)]
    return evolve(state, triage=book, events=events), effects


def _recurrence(issue: WatchedIssue, now: datetime, repository: str) -> FileIssue:
    return FileIssue(
        kind=issue.kind,
        ident=issue.ident,
        title=issue.title,
        view=IssueView(repository=repository, summary=issue.summary or issue.title, severity=issue.severity),
        recurrence_note=f"This finding appeared on the default branch again ({now:%Y-%m-%d %H:%M} UTC), "
        "so Gauntlet reopened this issue.",
    )
