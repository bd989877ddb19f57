"""Values from untrusted documents: wrong types and absurd numbers become None."""

from __future__ import annotations

from typing import Any

import pytest

from gauntlet.ingest.values import as_text, json_index, json_position, xml_position


@pytest.mark.parametrize(("value", "expected"), [("x", "x"), ("", None), (3, None), (None, None), (["x"], None)])
def test_as_text(value: Any, expected: str | None) -> None:
    assert as_text(value) == expected


@pytest.mark.parametrize(
    ("value", "position", "index"),
    [
        (1, 1, 1),
        (0, None, 0),
        (12.0, 12, 12),
        (-1, None, None),
        (True, None, None),
        ("3", None, None),
        (2**31, None, None),
    ],
)
def test_json_numbers(value: Any, position: int | None, index: int | None) -> None:
    assert (json_position(value), json_index(value)) == (position, index)


@pytest.mark.parametrize(
    ("value", "expected"), [("7", 7), (" 7 ", 7), ("0", None), ("-2", None), ("x", None), (None, None)]
)
def test_xml_position(value: str | None, expected: int | None) -> None:
    assert xml_position(value) == expected
