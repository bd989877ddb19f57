"""Circular-fix detection (DESIGN §3): new commits keep arriving, the same failures keep coming back.

Theory of operation: the input is one *failing set* per head SHA, oldest first —
the fingerprints of the blocking findings of that commit. Two sets are "the
same" when their Jaccard similarity reaches ``similarity`` (1.0, the default,
means equal sets). Only fingerprints are compared, never messages or other free
text, so a reworded assertion or a shifted line number changes nothing. Two
patterns count, both ending at the newest SHA::

    repeat       S  S  S          the same non-empty set on `window` consecutive new SHAs
    oscillation  A  B  A  B       two different non-empty sets alternating over 4 SHAs

A green commit (empty set) in between breaks either pattern: something was fixed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = ["CircularFix", "detect", "similarity"]

Pattern = Literal["repeat", "oscillation"]
_OSCILLATION = 4


class CircularFix(BaseModel):
    """A detected circular fix: which pattern, over which SHAs, on which fingerprints."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pattern: Pattern
    shas: tuple[str, ...]
    fingerprints: tuple[str, ...]

    @property
    def reason(self) -> str:
        """A sentence a person can read."""
        shas = ", ".join(sha[:7] for sha in self.shas)
        count = len(self.fingerprints)
        if self.pattern == "repeat":
            return f"the same {count} failure(s) came back on {len(self.shas)} new commits in a row ({shas})"
        return f"the failures alternate between two sets on the last {len(self.shas)} commits ({shas})"


def similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard similarity of two fingerprint sets (two empty sets are identical)."""
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def detect(
    history: Sequence[tuple[str, frozenset[str]]], *, window: int = 3, threshold: float = 1.0
) -> CircularFix | None:
    """Return the circular fix the newest SHAs show, or ``None``.

    :param history: ``(head_sha, failing fingerprints)`` per distinct head SHA, oldest first.
    :param window: how many consecutive SHAs with the same set make a repeat (at least 2).
    :param threshold: the similarity at which two sets count as the same (0 < threshold <= 1).
    :raises ValueError: ``threshold`` is outside (0, 1] (the configuration model prevents it).
    """
    if not 0 < threshold <= 1:
        raise ValueError(f"similarity threshold must be in (0, 1], got {threshold}")

    def same(a: frozenset[str], b: frozenset[str]) -> bool:
        return similarity(a, b) >= threshold

    recent = list(history)[-max(window, _OSCILLATION) :]
    tail = recent[-window:]
    if len(tail) == window and tail[-1][1] and all(same(tail[-1][1], s) for _, s in tail):
        return CircularFix(pattern="repeat", shas=_shas(tail), fingerprints=tuple(sorted(tail[-1][1])))
    quad = recent[-_OSCILLATION:]
    if len(quad) == _OSCILLATION:
        (_, a1), (_, b1), (_, a2), (_, b2) = quad
        if a1 and b1 and same(a1, a2) and same(b1, b2) and not same(a1, b1):
            return CircularFix(pattern="oscillation", shas=_shas(quad), fingerprints=tuple(sorted(a2 | b2)))
    return None


def _shas(items: Sequence[tuple[str, frozenset[str]]]) -> tuple[str, ...]:
    return tuple(sha for sha, _ in items)
