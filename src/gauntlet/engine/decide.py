"""The engine's single entry point: route an observation to the step that handles it.

A comment runs its commands, a closed PR compacts its record, a merge queue run is judged against the branch
it merges into, a PR run is a gauntlet iteration, and anything else is a run on a branch. Every change to state
goes through here.
"""

from __future__ import annotations

from datetime import datetime

import numpy as np

from gauntlet.config import Config
from gauntlet.effects.models import Plan
from gauntlet.engine.branch_run import step_branch
from gauntlet.engine.comment_command import step_comment
from gauntlet.engine.merge_queue import step_merge_group
from gauntlet.engine.pull_request import step_closed, step_pull_request
from gauntlet.models import Observation
from gauntlet.state.models import Scope, State

__all__ = ["BRANCH_RUN_FILES", "decide", "scope_of"]

#: The repository-wide files a branch run reads and writes (``step_branch``): never the proposals (the scan's and
#: the commands') nor the bandit (the PR comments'), which would cost a call each for nothing.
BRANCH_RUN_FILES = frozenset({"defects", "learnings", "index", "triage"})


def scope_of(obs: Observation) -> Scope:
    """The state files an observation needs: its PR's, or its branch's (a comment on an issue: neither)."""
    if obs.comment is not None:
        # The default branch's record too: /gauntlet flaky marks a test in its outcome history.
        return Scope(pr=obs.comment.issue_number if obs.comment.is_pull_request else None, branch=obs.default_branch)
    if obs.queue_base is not None:
        return Scope(base=obs.queue_base)  # read for provenance, never written: a queue run records nothing
    if obs.pr is not None:
        return Scope(pr=obs.pr, base=obs.default_branch)  # the base's outcome history gives provenance
    return Scope(branch=obs.branch or obs.default_branch, shared=BRANCH_RUN_FILES, branch_run=True)


def decide(
    state: State, obs: Observation, config: Config, now: datetime, rng: np.random.Generator
) -> tuple[State, Plan]:
    """Return the new state and the plan for one observation.

    Pure: the same arguments (and an equally seeded ``rng``) give the same result.
    ``state`` is not modified.

    :param state: the slice of state :func:`scope_of` names, as loaded.
    :param obs: what the run saw.
    :param config: the repository configuration.
    :param now: the time of the run (never read from a clock here).
    :param rng: the only source of randomness (the rule bandit draws from it).
    """
    if obs.comment is not None:
        return step_comment(state, obs, config, now, rng)
    if obs.closed:
        return step_closed(state, now)
    if obs.queue_base is not None:
        return step_merge_group(state, obs, config, now)
    if obs.pr is not None:
        return step_pull_request(state, obs, config, now, rng)
    return step_branch(state, obs, config, now)
