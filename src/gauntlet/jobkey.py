"""The key a CI job's history is kept under: ``<workflow>/<job>``, always CI's, never Gauntlet's own (DESIGN §3).

Where Gauntlet runs decides where the name comes from:

- as a step of the CI job (``pull_request``, ``push``, ``merge_group``): the runner's ``GITHUB_WORKFLOW`` and
  ``GITHUB_JOB``, which name that very job;
- from a ``workflow_run`` workflow of its own: the CI run's workflow name (the payload) and the jobs GitHub
  lists for that run, never the ``GITHUB_JOB`` of Gauntlet's own workflow.

A ``workflow_run`` sees the whole CI run, so with several jobs its key names them all, joined with ``+`` in
name order (``CI/lint+test``). Such a key *covers* each of its jobs: a step in job ``test`` compares with
it, so a PR seen from a step and a default branch seen from ``workflow_run`` share their history.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["covers", "joined"]

_JOINER = "+"


def joined(jobs: Iterable[str]) -> str:
    """The job part of the key of a run of ``jobs``: one job's name, or several in order joined with ``+``."""
    return _JOINER.join(sorted({name.replace(_JOINER, " ") for name in jobs if name}))


def covers(recorded: str, job: str) -> bool:
    """True when a run recorded as ``recorded`` saw the job ``job`` ran (the same key, or a whole CI run
    whose jobs include every one ``job`` names, in the same workflow)."""
    if recorded == job:
        return True
    workflow, _, names = recorded.partition("/")
    other_workflow, _, other_names = job.partition("/")
    if workflow != other_workflow or not names or not other_names:
        return False
    return set(other_names.split(_JOINER)) <= set(names.split(_JOINER))
