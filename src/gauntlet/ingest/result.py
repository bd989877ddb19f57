"""What reading many inputs gives: the findings, and a problem per input that could not be read.

One bad file never stops the rest (DESIGN §6): :func:`gauntlet.ingest.ingest_paths`
keeps going and records each unreadable input here, so ``gauntlet ingest`` can
warn and ``gauntlet run`` can put a notice in the job summary and the run report.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from gauntlet.errors import InputError
from gauntlet.models import Finding, InputProblem

__all__ = ["IngestResult", "InputProblem", "UnknownFormat"]


class UnknownFormat(InputError):
    """A JSON or XML document of no format Gauntlet reads: skipped with a warning, never silently."""


class IngestResult(BaseModel):
    """The findings of every input that was read, in input order, and the problems of the others."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    findings: tuple[Finding, ...]
    problems: tuple[InputProblem, ...] = ()
    #: How many inputs were given.
    inputs: int = 0

    @property
    def nothing_read(self) -> bool:
        """True when there were inputs and every one of them failed with an error."""
        errors = sum(1 for p in self.problems if p.level == "error")
        return self.inputs > 0 and errors == self.inputs
