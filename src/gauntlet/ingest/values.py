"""Plain values out of untrusted documents: a wrong type or an absurd number becomes ``None``, never an error.

Numbers arrive as text with any number of digits (an XML attribute, a log's ``file:line``): they are
checked as text first, so Python's limit on converting long digit strings to ``int`` (4,300 digits,
``ValueError``) is never reached. Text loses what no UTF-8 body can carry (lone surrogates, which make
posting raise ``UnicodeEncodeError``) and NULs.
"""

from __future__ import annotations

import re
from typing import Any

from gauntlet.untrusted import scrub

__all__ = ["MAX_POSITION", "as_text", "json_index", "json_position", "position", "xml_position"]

#: Line and column numbers are 1-based and fit in 31 bits; anything else is not a position.
MAX_POSITION = 2**31 - 1
_LIMIT = MAX_POSITION + 1
# At most ten ASCII digits (``str.isdigit`` also takes ``²`` and other digits ``int`` refuses).
_DIGITS = re.compile(r"\s*\+?0*([0-9]{1,10})\s*")


def as_text(value: Any) -> str | None:
    """``value`` if it is a non-empty string (scrubbed)."""
    return scrub(value) if isinstance(value, str) and value else None


def position(value: int | str | None) -> int | None:
    """A 1-based line or column from a number or digit text, or ``None`` when it cannot be one.

    :param value: an ``int`` or text as a tool wrote it; text of more than ten digits is never converted.
    """
    if isinstance(value, str):
        match = _DIGITS.fullmatch(value)
        value = int(match.group(1)) if match else None
    if value is None or isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if 0 < value < _LIMIT else None


def json_position(value: Any) -> int | None:
    """A 1-based line or column from a JSON number."""
    number = json_index(value)
    return number if number else None


def json_index(value: Any) -> int | None:
    """A 0-based index from a JSON number (SARIF's ``ruleIndex``, ``artifactLocation.index``)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not -_LIMIT < value < _LIMIT:  # also inf and nan
        return None
    number = int(value)
    return number if 0 <= number < _LIMIT else None


def xml_position(value: str | None) -> int | None:
    """A 1-based line or column from an XML attribute."""
    return position(value)
