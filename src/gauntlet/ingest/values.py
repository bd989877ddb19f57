"""Plain values out of untrusted documents: a wrong type or an absurd number becomes ``None``, never an error."""

from __future__ import annotations

from typing import Any

__all__ = ["as_text", "json_index", "json_position", "xml_position"]

#: Line and column numbers are 1-based and fit in 31 bits; anything else is not a position.
_LIMIT = 2**31


def as_text(value: Any) -> str | None:
    """``value`` if it is a non-empty string."""
    return value if isinstance(value, str) and value else None


def json_position(value: Any) -> int | None:
    """A 1-based line or column from a JSON number."""
    number = json_index(value)
    return number if number else None


def json_index(value: Any) -> int | None:
    """A 0-based index from a JSON number (SARIF's ``ruleIndex``, ``artifactLocation.index``)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = int(value)
    return number if 0 <= number < _LIMIT else None


def xml_position(value: str | None) -> int | None:
    """A 1-based line or column from an XML attribute."""
    if value is None or not value.strip().isdigit():
        return None
    number = int(value)
    return number if 0 < number < _LIMIT else None
