"""``v1/branches/<slug>.json``: runs of one branch, its last-good commit, breakages and reverts."""

from __future__ import annotations

import re
from datetime import datetime

from gauntlet.state.base import Record, StateFile

__all__ = ["BranchRecord", "RunRecord", "branch_slug"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def branch_slug(name: str) -> str:
    """File name for a branch (contract): ``/`` becomes ``--``, anything else unsafe is percent-encoded."""
    return "--".join(
        _UNSAFE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), part) for part in name.split("/")
    )


class RunRecord(Record):
    """One observed CI run on the branch."""

    observation: str
    head_sha: str
    at: datetime
    green: bool
    failing: list[str] = []


class BranchRecord(StateFile):
    """History of one branch."""

    name: str
    runs: list[RunRecord] = []
    last_good: str | None = None
