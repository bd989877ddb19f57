"""What a default-branch run reads from GitHub once its state is loaded, because only the state says it is needed.

Theory of operation. A default-branch run's decision may rest on two things GitHub knows and the state does not:

- the **history**: the first-parent commits from the run's head, newest first, each with the files it changed
  (``GET commits/{sha}``, one call each). The culprit search needs the commits since the job's last-good commit
  (that one included: it bounds the suspects); older ones cannot be suspects, so the walk stops there (at
  :data:`HISTORY` commits at most). It is read when the run is red, when a breakage is open (a green run ends
  it: was its culprit reverted?), when a revert PR is open (a person may have reverted the culprit by hand),
  and when an accepted-risk issue watches a file (a change to it ends the issue). A green run with none of
  these reads only its head commit: the components its change touched count as observed, which the
  verification of a watched proposal needs (``engine/defects.py``, ``seen``).
- the **revert PRs** Gauntlet opened: the branch record and the index hold their numbers, so each one not yet
  settled (open) is read by number when the history is (:func:`gauntlet.github.reverts.revert_pr_facts`);
  nothing is listed.

:func:`branch_reads` gives the step the pipeline runs on each loaded state (:class:`gauntlet.pipeline.StateReads`);
a commit retry re-runs it and reads nothing twice. Runs on other branches, PR runs and commands read none of this.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from gauntlet.config import Config
from gauntlet.effects.models import OpenRevertPR
from gauntlet.engine.branch_run import recorded, verified_green
from gauntlet.github.hub import Hub
from gauntlet.github.reverts import revert_pr_facts
from gauntlet.models import CommitFact, Observation, evolve
from gauntlet.observe.github_facts import Remote
from gauntlet.state.branch import BranchRecord, same_commit
from gauntlet.state.models import State

__all__ = ["HISTORY", "branch_reads", "known_reverts", "needed"]

#: Default-branch commits read for the culprit search at most, newest first (one call each).
HISTORY = 10


def known_reverts(branch: BranchRecord, index: Mapping[str, int]) -> dict[str, int]:
    """The revert PRs whose state GitHub may have changed: culprit -> PR number (pure).

    Those the branch record holds as open (not yet seen merged or closed; one Gauntlet withdrew is closed, and
    the engine decides on that alone), and those only the index knows (a run that opened one died before saving
    the record).
    """
    known: dict[str, int] = {}
    for revert in branch.reverts:
        # The record learns its PR's number from these reads; until then the index has it.
        number = revert.number if revert.number is not None else index.get(OpenRevertPR.key_of(revert.culprit))
        if revert.status == "open" and not revert.withdrawn and number is not None:
            known[revert.culprit] = number
    for key, number in index.items():
        culprit = key.removeprefix("revert:")
        if key.startswith("revert:") and not any(same_commit(r.culprit, culprit) for r in branch.reverts):
            known[culprit] = number
    return known


def needed(state: State, obs: Observation, config: Config) -> str:
    """What the run needs read (pure): ``history`` (and revert PRs), ``head`` (its own commit), or ``none``.

    :param config: the repository configuration (``fail_on`` decides what is red).
    """
    branch = state.branch
    if branch is None or obs.pr is not None or obs.comment is not None or not obs.on_default_branch:
        return "none"
    if recorded(branch, obs):
        return "none"  # delivered again: the engine changes nothing
    watching = any(w.path and w.job is None and not w.closed for w in state.triage.issues.values())
    if (
        not verified_green(obs, config)
        or any(b.open for b in branch.breakages)
        or known_reverts(branch, state.index.entries)
        or watching
    ):
        return "history"
    return "head"


def _stops(branch: BranchRecord, obs: Observation) -> set[str]:
    """The commits the history must reach: the job's last-good, the branch's, and each open breakage's."""
    stops = {branch.good.get(obs.job_key), branch.last_good, *(b.last_good for b in branch.breakages if b.open)}
    return {sha for sha in stops if sha}


def branch_reads(remote: Remote, config: Config) -> Callable[[State, Observation], Observation]:
    """The state-dependent reads of a default-branch run, as an ``enrich`` step for :func:`gauntlet.pipeline.run`.

    :param remote: GitHub, where the run reads it.
    :param config: the repository configuration (``fail_on`` decides what is red).
    """
    read: dict[str, CommitFact] = {}  # a commit retry runs the engine again: each commit is read once

    def commit(sha: str) -> CommitFact:
        if sha not in read:
            read[sha] = CommitFact.from_api(remote.client.request("GET", f"/repos/{remote.repository}/commits/{sha}"))
        return read[sha]

    def enrich(state: State, obs: Observation) -> Observation:
        need = needed(state, obs, config)
        if need == "none" or obs.commits or state.branch is None:
            return obs
        if need == "head":
            return evolve(obs, commits=(commit(obs.head_sha),))
        history = _history(commit, obs.head_sha, _stops(state.branch, obs))
        hub = Hub(client=remote.client, repo=remote.client.repo(remote.repository), bot_login=remote.bot_login)
        facts = revert_pr_facts(hub, known_reverts(state.branch, state.index.entries))
        return evolve(obs, commits=history, revert_prs=facts)

    return enrich


def _history(commit: Callable[[str], CommitFact], head: str, stops: set[str]) -> tuple[CommitFact, ...]:
    """First-parent history from ``head``, newest first, until every stop is reached (or :data:`HISTORY`)."""
    commits: list[CommitFact] = []
    waiting = set(stops)
    sha: str | None = head
    while sha is not None and len(commits) < HISTORY:
        commits.append(commit(sha))
        waiting = {stop for stop in waiting if not same_commit(stop, sha)}
        if stops and not waiting:
            break
        sha = commits[-1].parents[0] if commits[-1].parents else None
    return tuple(commits)
