"""Effects: what a run wants done on GitHub, as frozen data with a stable key (DESIGN §2).

Applying the same effect twice changes nothing the second time: every backend
finds the earlier result by the effect's key (hidden marker, fixed branch name
or state index) before acting.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from gauntlet.effects.views import RunView
from gauntlet.engine.verdicts import Decision, HealthVerdict, RecoveryVerdict

__all__ = ["CheckAnnotation", "Effect", "Plan", "SetCheck", "UpsertComment", "WriteSummary"]


class _Effect(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    @property
    def key(self) -> str:
        """The stable identity of this effect: the same key is never acted on twice."""
        raise NotImplementedError


class UpsertComment(_Effect):
    """The one sticky comment on a PR, found by marker and edited in place."""

    type: Literal["upsert_comment"] = "upsert_comment"
    pr: int
    view: RunView

    @property
    def key(self) -> str:
        return f"pr-comment:{self.pr}"


class CheckAnnotation(BaseModel):
    """One line-level annotation on a check run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    start_line: int
    end_line: int
    annotation_level: Literal["notice", "warning", "failure"]
    title: str
    message: str


class SetCheck(_Effect):
    """The check run on the head SHA: conclusion by ``fail_on``, summary and annotations."""

    type: Literal["set_check"] = "set_check"
    name: str = "Gauntlet"
    head_sha: str
    conclusion: Literal["success", "failure", "neutral"]
    title: str
    view: RunView
    annotations: tuple[CheckAnnotation, ...] = ()

    @property
    def key(self) -> str:
        return f"check:{self.name}:{self.head_sha}"


class WriteSummary(_Effect):
    """The job summary (``$GITHUB_STEP_SUMMARY``)."""

    type: Literal["write_summary"] = "write_summary"
    view: RunView

    @property
    def key(self) -> str:
        return "summary"


Effect = Annotated[UpsertComment | SetCheck | WriteSummary, Field(discriminator="type")]


class Plan(BaseModel):
    """What the engine decided and the effects that carry it out, in the order they are applied."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    decision: Decision | None = None
    recovery: RecoveryVerdict = RecoveryVerdict()
    health: HealthVerdict = HealthVerdict()
    proposals: tuple[str, ...] = ()
    effects: tuple[Effect, ...] = ()
