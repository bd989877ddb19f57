"""The run report: what ``gauntlet run --json`` prints and the action's ``report`` output (DESIGN §8)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from gauntlet.effects.base import EffectResult
from gauntlet.effects.models import Plan
from gauntlet.models import InputProblem
from gauntlet.vocabulary import Decision, HealthVerdict, ProvenanceReport, RecoveryVerdict

__all__ = ["EffectLine", "RunReport", "SetupProblem"]


class EffectLine(BaseModel):
    """One effect as the report lists it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: str
    key: str
    status: str
    #: The comment id, issue or PR number the effect wrote or found (the outputs read it from here).
    number: int | None = None
    url: str | None = None


class SetupProblem(BaseModel):
    """A way the repository is set up that keeps Gauntlet from doing its job, found by the run (it went on).

    ``merge_group_missing``: the default branch has a merge queue and requires the Gauntlet check, but the workflow
    that would report it (``path``) does not run on ``merge_group`` (``action/queue_setup.py``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["merge_group_missing"]
    path: str
    message: str


class RunReport(BaseModel):
    """One run's outcome: ``decision``, ``recovery``, ``health``, ``proposals``, ``effects``, ``api_calls``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    decision: Decision | None
    recovery: RecoveryVerdict
    health: HealthVerdict
    provenance: ProvenanceReport = ProvenanceReport()
    proposals: tuple[str, ...] = ()
    effects: tuple[EffectLine, ...] = ()
    api_calls: int = 0
    #: GitHub's primary rate-limit quota left after the run (``None``: not on GitHub, or not reported).
    quota_remaining: int | None = None
    #: The GraphQL points left after the run's start query (its own budget; ``None``: no query answered).
    graphql_remaining: int | None = None
    check_failed: bool = False
    #: Input files that were not read (the run went on with the others).
    input_problems: tuple[InputProblem, ...] = ()
    #: How the repository is set up wrong, as far as the run could tell (said in the job summary too).
    setup_problems: tuple[SetupProblem, ...] = ()

    @classmethod
    def of(
        cls,
        plan: Plan,
        results: list[EffectResult],
        *,
        api_calls: int = 0,
        input_problems: tuple[InputProblem, ...] = (),
    ) -> RunReport:
        """Build the report from the engine's plan and the effects' results (and the inputs not read)."""
        failed = any(getattr(effect, "conclusion", None) == "failure" for effect in plan.effects)
        return cls(
            decision=plan.decision,
            recovery=plan.recovery,
            health=plan.health,
            provenance=plan.provenance,
            proposals=plan.proposals,
            effects=tuple(
                EffectLine(type=r.type, key=r.key, status=r.status, number=r.number, url=r.url) for r in results
            ),
            api_calls=api_calls,
            check_failed=failed,
            input_problems=input_problems,
        )
