"""What the Action reads from GitHub once the state is loaded, because only the state says it is needed.

- The **fix diff** (learning): what changed since the last commit where a failure was seen. Read only
  when the observation may fix something: a failure of the PR's last iteration (or of the branch job's
  last red run) that this observation no longer shows. One compare call,
  ``GET /repos/{owner}/{repo}/compare/{base}...{head}``, gives every file changed in between, not just the
  head commit's (a fix pushed in two commits, the last touching the README, is still the fix).
- **What a PR's push changed** (the components it exercised, their code owners): the same compare from
  the PR's previous iteration (on its first, from its base), so an iteration that fixes something pays one
  call for both; without either, the head commit's files.
- The **proposal PRs** (self-healing): what GitHub says about each pending proposal's PR (open, merged,
  closed), one call each, so a merge starts the watch and a closed PR rejects the proposal.

The pipeline calls them inside its commit retries (:class:`gauntlet.pipeline.StateReads`); the engine
receives their answers as observation facts and stays pure.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from gauntlet.github.client import GitHubClient, NotFound
from gauntlet.github.hub import Hub
from gauntlet.github.proposals import proposal_pr_facts
from gauntlet.models import FixDiff, Observation, ProposalPRFact, evolve
from gauntlet.observe.github_facts import Remote
from gauntlet.pipeline import StateReads
from gauntlet.state.models import State

__all__ = ["failing_before", "fix_diff_reader", "pushed_since", "state_reads"]

_BLOCKING = frozenset({"critical", "major"})


def failing_before(state: State, obs: Observation) -> str | None:
    """The commit whose failures ``obs`` may have fixed (the one a fix diff starts from), or ``None``."""
    if obs.comment is not None:
        return None  # a command comment is no CI result: it fixes nothing
    now_failing = {f.fingerprint for f in obs.findings}
    if obs.pr is not None:
        record = state.pr
        earlier = [it for it in (record.iterations if record else []) if it.head_sha != obs.head_sha]
        if not earlier:
            return None
        last = earlier[-1]
        blocking = {f.fingerprint for f in last.findings if f.severity in _BLOCKING and f.kind != "infra"}
        return last.head_sha if blocking - now_failing else None
    if state.branch is None:
        return None
    job = obs.job_key
    runs = [r for r in state.branch.runs if r.job == job and r.head_sha != obs.head_sha]
    if not runs or runs[-1].green or not set(runs[-1].failing) - now_failing:
        return None
    return runs[-1].head_sha


def pushed_since(state: State, obs: Observation) -> str | None:
    """The commit a PR observation's change is read from: the PR's previous iteration, else its base."""
    if obs.pr is None or obs.comment is not None or obs.closed:
        return None
    earlier = [it for it in (state.pr.iterations if state.pr else []) if it.head_sha != obs.head_sha]
    return earlier[-1].head_sha if earlier else obs.base_sha


def fix_diff_reader(
    request: Callable[[str], Any], repository: str, owners: Callable[[Observation], dict[str, str]] | None = None
) -> Callable[[State, Observation], Observation]:
    """An ``enrich`` step for :func:`gauntlet.pipeline.run`: the fix diff when the state says there may be one,
    and what a PR's push changed (one compare serves both).

    :param request: ``GET`` a REST path, returning the decoded JSON (the GitHub client's).
    :param repository: ``owner/name``.
    :param owners: the code owners of an observation's findings and changed files (the checkout's CODEOWNERS).
    """
    read: dict[str, tuple[str, ...]] = {}  # a commit retry runs the engine again: one call per diff

    def files_of(path: str) -> tuple[str, ...]:
        if path not in read:
            data = request(path)
            entries = data.get("files") if isinstance(data, dict) else None
            read[path] = tuple(str(f["filename"]) for f in entries or () if isinstance(f, dict) and f.get("filename"))
        return read[path]

    def enrich(state: State, obs: Observation) -> Observation:
        base = failing_before(state, obs)
        since = pushed_since(state, obs)
        unknown = obs.pr is not None and obs.comment is None and not obs.closed and not obs.changed_files
        if unknown and (since is not None or base is None):
            # What the push changed; with no earlier commit known, the head commit's own files.
            where = f"compare/{since}...{obs.head_sha}" if since is not None else f"commits/{obs.head_sha}"
            changed = files_of(f"/repos/{repository}/{where}")
            obs = evolve(obs, changed_files=changed)
            if owners is not None:
                obs = evolve(obs, owners=owners(obs))
        if base is None:
            return obs
        files = files_of(f"/repos/{repository}/compare/{base}...{obs.head_sha}")
        return evolve(obs, fix_diff=FixDiff(base_sha=base, head_sha=obs.head_sha, files=files))

    return enrich


def state_reads(remote: Remote | None, owners: Callable[[Observation], dict[str, str]] | None = None) -> StateReads:
    """The state-dependent reads for a run that may read GitHub (none without it).

    :param owners: the code owners of an observation's findings and changed files.
    """
    if remote is None:
        return StateReads()

    def proposals(state: State) -> tuple[ProposalPRFact, ...]:
        # The loaded state's index knows each proposal PR's number: one call each.
        hub = Hub(
            client=remote.client,
            repo=remote.client.repo(remote.repository),
            bot_login=remote.bot_login,
            known=state.index.entries.get,
        )
        return proposal_pr_facts(hub, state)

    return StateReads(
        fix_diff=fix_diff_reader(partial(_get_or_nothing, remote.client), remote.repository, owners),
        proposal_prs=proposals,
    )


def _get_or_nothing(client: GitHubClient, path: str) -> object:
    """``GET`` ``path``; a 404 (a compare whose base was force-pushed away) is nothing known, not a failure."""
    try:
        return client.request("GET", path)
    except NotFound:
        return {}
