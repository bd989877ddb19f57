"""The slice of state one run works on, and where each part lives on the state branch (DESIGN §4)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from gauntlet.state.branch import BranchRecord
from gauntlet.state.events import Event
from gauntlet.state.pr import PRRecord
from gauntlet.state.shared import BanditTable, DefectLog, EffectIndex, LearningBook, ProposalBook
from gauntlet.state.triage import TriageBook
from gauntlet.vocabulary import SHARED_FILES, branch_path, pr_path

__all__ = ["Scope", "State", "pr_path"]


class Scope(BaseModel):
    """Which per-PR or per-branch file a run needs besides the shared ones."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pr: int | None = None
    branch: str | None = None
    #: The default branch whose record a PR run reads (never writes) for provenance.
    base: str | None = None
    #: Read the shards runs left (``v1/shards/``) and fold them in: the scheduled scan (state/shards.py).
    shards: bool = False
    #: A run on ``branch`` itself (not a command on one of its issues): like a PR run, it writes its own record
    #: only, and what it adds to the shared files travels in the record as a pending shard.
    branch_run: bool = False
    #: The repository-wide files the run reads, by :class:`State` field (``None``: all of them). The others keep
    #: their defaults in the loaded state and are never written: a file not read cannot be overwritten.
    shared: frozenset[str] | None = None


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
