"""The slice of state one run works on, and where each part lives on the state branch (DESIGN §4)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from gauntlet.state.branch import BranchRecord, branch_slug
from gauntlet.state.events import Event
from gauntlet.state.pr import PRRecord
from gauntlet.state.shared import BanditTable, DefectLog, EffectIndex, LearningBook, ProposalBook
from gauntlet.state.triage import TriageBook

__all__ = ["SHARED_FILES", "Scope", "State", "branch_path", "pr_path"]

#: Repository-wide files, by attribute of :class:`State`.
SHARED_FILES: dict[str, str] = {
    "defects": "v1/defects.json",
    "proposals": "v1/proposals.json",
    "learnings": "v1/learnings.json",
    "bandit": "v1/bandit.json",
    "index": "v1/index.json",
    "triage": "v1/triage.json",
}


def pr_path(number: int) -> str:
    """Path of a PR's file on the state branch."""
    return f"v1/prs/{number}.json"


def branch_path(name: str) -> str:
    """Path of a branch's file on the state branch."""
    return f"v1/branches/{branch_slug(name)}.json"


class Scope(BaseModel):
    """Which per-PR or per-branch file a run needs besides the shared ones."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pr: int | None = None
    branch: str | None = None
    #: The default branch whose record a PR run reads (never writes) for provenance.
    base: str | None = None


class State(BaseModel):
    """Everything the engine may read or change in one run.

    ``events`` holds only the audit lines this run adds; the log itself is never read back.
    """

    model_config = ConfigDict(extra="forbid")

    pr: PRRecord | None = None
    branch: BranchRecord | None = None
    #: A PR run's read-only view of the default branch's record (its outcome history, for provenance).
    base: BranchRecord | None = None
    defects: DefectLog = DefectLog()
    proposals: ProposalBook = ProposalBook()
    learnings: LearningBook = LearningBook()
    bandit: BanditTable = BanditTable()
    index: EffectIndex = EffectIndex()
    triage: TriageBook = TriageBook()
    events: list[Event] = []

    def files(self) -> dict[str, BaseModel]:
        """Every file this state holds, by path on the state branch."""
        found: dict[str, BaseModel] = {path: getattr(self, name) for name, path in SHARED_FILES.items()}
        if self.pr is not None:
            found[pr_path(self.pr.number)] = self.pr
        if self.branch is not None:
            found[branch_path(self.branch.name)] = self.branch
        return found
