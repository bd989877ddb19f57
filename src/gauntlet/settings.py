"""Run settings: what one ``gauntlet run`` was asked to do, from the command line or the action's inputs."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict

__all__ = ["Settings"]


class Settings(BaseModel):
    """Options of one run (DESIGN §8). Built only by :mod:`gauntlet.cli`, which reads the environment."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    event_name: str | None = None
    event_path: Path | None = None
    logs: tuple[str, ...] = ()
    findings: tuple[str, ...] = ()
    workspace: Path = Path()
    #: The Action's ``logs`` and ``findings`` globs must stay in the workspace; the command line reads any
    #: path it is given.
    inputs_in_workspace: bool = False
    config: Path = Path(".github/gauntlet.yml")
    state_dir: Path | None = Path(".gauntlet")
    state_branch: str | None = None
    dry_run: bool = False
    now: datetime | None = None
    repository: str | None = None
    sha: str | None = None
    run_id: str = "0"
    run_attempt: str = "1"
    #: The runner's ``GITHUB_WORKFLOW`` and ``GITHUB_JOB``: CI's own names when Gauntlet is a step of the CI job.
    workflow: str = ""
    job: str = ""
    fail_step: bool = False
    #: Read the pull request's review comments and reviews as findings (where the run may read GitHub).
    review_comments: bool = True
