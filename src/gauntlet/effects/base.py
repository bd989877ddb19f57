"""Applying a plan: the shared find-then-perform logic every backend relies on.

A backend supplies only :meth:`Backend.find` (the earlier result of an effect,
by key) and :meth:`Backend.perform` (act, given what was found). :func:`apply`
runs them in plan order, so re-running a plan is a no-op. A report (sticky comment, check, summary)
planned after an issue it names learns that issue's number from the earlier result before it is written.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict

from gauntlet.effects.models import Effect, SetCheck, UpsertComment, WriteSummary

__all__ = ["Backend", "EffectResult", "Existing", "Status", "apply", "unchanged"]

Status = Literal["created", "updated", "unchanged", "planned", "skipped", "failed"]


class Existing(BaseModel):
    """What an effect already produced: its number or id, address and current body."""

    model_config = ConfigDict(frozen=True)

    number: int | None = None
    url: str | None = None
    body: str | None = None


class EffectResult(BaseModel):
    """The outcome of one effect, as the run report lists it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: str
    key: str
    status: Status
    number: int | None = None
    url: str | None = None
    detail: str = ""
    #: What the effect's target holds now, in its handler's terms (a digest of a comment's body): kept in the
    #: PR's record, so the next run can tell whether it must change without reading it (``Written``).
    version: str | None = None


def unchanged(effect: Effect, existing: Existing, version: str | None = None) -> EffectResult:
    """The result of an effect whose target already holds what it would write."""
    return EffectResult(
        type=effect.type,
        key=effect.key,
        status="unchanged",
        number=existing.number,
        url=existing.url,
        version=version,
    )


class Backend(Protocol):
    """Where effects land: GitHub, a local folder, or nowhere (dry run)."""

    def find(self, effect: Effect) -> Existing | None:
        """Return the earlier result of ``effect`` (found by its key), or ``None``."""
        ...

    def perform(self, effect: Effect, existing: Existing | None) -> EffectResult:
        """Carry out ``effect``; update ``existing`` in place of creating a second one."""
        ...


def apply(effects: Iterable[Effect], backend: Backend) -> list[EffectResult]:
    """Apply effects in order, each found first so a repeat creates nothing new.

    A report is completed with the numbers of the issues filed before it (:meth:`RunView.with_issues`).
    """
    results: list[EffectResult] = []
    numbers: dict[str, int] = {}
    for planned in effects:
        effect = planned
        if isinstance(planned, UpsertComment | SetCheck | WriteSummary) and numbers:
            effect = planned.model_copy(update={"view": planned.view.with_issues(numbers)})
        result = backend.perform(effect, backend.find(effect))
        if result.number is not None:
            numbers[result.key] = result.number
        results.append(result)
    return results
