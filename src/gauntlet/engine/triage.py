"""Issue triage: an issue for a finding ends on evidence that the finding is gone, and reopens when it returns.

Theory of operation. Accepting a risk (``/gauntlet accept-risk``) or escalating a
finding to a human files an issue and *watches* it in ``v1/triage.json``
(:func:`watch`), with the CI job that reported the finding (none for a review
finding) and its path. Every complete default-branch run passes what it shows
(:class:`BranchEvidence`) to :func:`triage`. For each watched issue::

    seen now, open                               -> last_seen = now
    seen now, closed                             -> reopen: FileIssue with a recurrence note
    unseen, a run of its job that would report   -> CloseIssue: the job no longer reports it
      it (same job, not cut short by infra)
    unseen, a review finding whose file changed  -> CloseIssue: the code at its location changed
      in the run's history since it was filed       (not by the merge of the PR it was accepted on)
    anything else                                -> nothing: time alone never closes an issue

Pure: time is passed in; the effects find their issue again by key, so a
redelivered run plans nothing new.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime

from gauntlet.config import Config
from gauntlet.effects.models import CloseIssue, Effect, FileIssue
from gauntlet.effects.views import IssueView
from gauntlet.models import CommitFact, Observation, evolve
from gauntlet.state.events import Event
from gauntlet.state.models import State
from gauntlet.state.triage import MAX_WATCHED, TriageBook, WatchedIssue

__all__ = ["BranchEvidence", "triage", "triage_branch_run", "watch"]


@dataclass(frozen=True)
class BranchEvidence:
    """What one default-branch run shows about watched findings."""

    #: The fingerprints the run reports.
    seen: Collection[str]
    #: The run's CI job (``Observation.job``) and whether it ran to the end (not cut short by infrastructure).
    job: str = ""
    complete: bool = True
    #: The default branch's name and head commit, for the closing comment.
    branch: str = "main"
    head_sha: str = ""
    #: The commits of the run's history, newest first: what changed on the default branch.
    commits: Sequence[CommitFact] = ()


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
    book: TriageBook, evidence: BranchEvidence, now: datetime, repository: str
) -> tuple[TriageBook, tuple[Effect, ...]]:
    """Close what the default branch shows is gone; reopen what came back.

    :param book: the watched issues.
    :param evidence: what the default-branch run shows.
    :param now: the time of the run.
    :param repository: ``owner/name``, for the reopened issue's body.
    :returns: the updated book and the effects, in key order.
    """
    issues = dict(book.issues)
    effects: list[Effect] = []
    for key in sorted(issues):
        issue = issues[key]
        if issue.fingerprint in evidence.seen:
            if issue.closed:
                effects.append(_recurrence(issue, now, repository))
            issues[key] = evolve(issue, last_seen=now, closed=False)
            continue
        reason = None if issue.closed else _gone(issue, evidence)
        if reason is not None:
            effects.append(CloseIssue(kind=issue.kind, ident=issue.ident, reason=reason))
            issues[key] = evolve(issue, closed=True)
    if issues == book.issues:
        return book, ()
    return evolve(book, issues=issues), tuple(effects)


def _gone(issue: WatchedIssue, evidence: BranchEvidence) -> str | None:
    """Why the evidence shows the finding gone, or ``None`` when it shows nothing about it."""
    again = "Gauntlet reopens this issue if the finding comes back."
    if issue.job is not None:
        if evidence.complete and evidence.job == issue.job:
            return (
                f"`{issue.job}` ran on `{evidence.branch}` at {evidence.head_sha[:7]} and no longer reports this "
                f"finding. {again}"
            )
        return None
    change = next((c for c in evidence.commits if _changes(c, issue)), None)
    if change is not None:
        return f"the code at `{issue.path}` changed on `{evidence.branch}` in {change.sha[:7]}. {again}"
    return None


def _changes(commit: CommitFact, issue: WatchedIssue) -> bool:
    """True when ``commit`` changed the file of a review finding after its risk was accepted.

    The merge of the PR the risk was accepted on (GitHub's ``Merge pull request #N`` or a squash's
    ``… (#N)``) lands the accepted code itself: that is no change of it.
    """
    # A commit's date has whole seconds: one in the second the risk was accepted counts as after it.
    if not issue.path or issue.path not in commit.files or commit.at < issue.since.replace(microsecond=0):
        return False
    merged_pr = issue.pr is not None and (
        commit.subject.startswith(f"Merge pull request #{issue.pr} ") or commit.subject.endswith(f"(#{issue.pr})")
    )
    return not merged_pr


def triage_branch_run(
    state: State, obs: Observation, config: Config, now: datetime, *, complete: bool = True
) -> tuple[State, tuple[Effect, ...]]:
    """Triage for one branch run: only a default-branch run says what the default branch shows.

    Nothing happens while ``paused``: the issues stay as they are until triage may act again.

    :param complete: False when infrastructure cut the run short: what it did not report proves nothing.
    """
    if not obs.on_default_branch or config.paused or not state.triage.issues:
        return state, ()
    evidence = BranchEvidence(
        seen={f.fingerprint for f in obs.findings},
        job=obs.job,
        complete=complete,
        branch=obs.branch or obs.default_branch,
        head_sha=obs.head_sha,
        commits=obs.commits,
    )
    book, effects = triage(state.triage, evidence, now, obs.repository)
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
