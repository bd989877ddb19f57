"""What the sandbox serves and which of it a set of validated responses covered (used by conftest.py)."""

from __future__ import annotations

from collections.abc import Iterable

from gauntlet.sandbox import shapes

__all__ = ["served_operations", "uncovered"]


def served_operations() -> set[tuple[str, str]]:
    """Every ``(METHOD, template)`` the trimmed OpenAPI description lists: what the sandbox serves."""
    return {(method.upper(), template) for template, item in shapes.spec()["paths"].items() for method in item}


def uncovered(seen: Iterable[tuple[str, str, int]]) -> list[tuple[str, str]]:
    """The served operations no validated response (status below 400) exercised, sorted."""
    succeeded = {(m, t) for m, t, status in seen if status < 400}
    return sorted(served_operations() - succeeded)
