"""Bounded JSON: capped arrays, depth and size limits."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from gauntlet.errors import InputError
from gauntlet.ingest import ingest_file
from gauntlet.ingest.jsondoc import load_json, load_json_lines
from gauntlet.ingest.limits import DEFAULT_LIMITS


def test_arrays_keep_their_first_items_and_count_the_rest() -> None:
    body = b'{"a": [1, 2, 3, {"b": [4, 5, 6]}, [7, [8]], "x"], "c": null, "d": [[1], [2], [3]], "e": {"f": [true]}}'
    document = load_json(io.BytesIO(body), "x", max_bytes=1000, max_items=2)
    assert document == {"a": [1, 2], "c": None, "d": [[1], [2]], "e": {"f": [True]}}
    assert (document["a"].dropped, document["d"].dropped, document["e"]["f"].dropped) == (4, 1, 0)


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (b"[" * 65 + b"]" * 65, "nested deeper than 64"),
        (b'{"a": "' + b"x" * 2000 + b'"}', "larger than 1000 bytes"),
        (b'"\xe9"', "not valid JSON"),
        (b"[1] [2]", "not valid JSON"),
        (b"", "not valid JSON"),
    ],
)
def test_limits_and_garbage(body: bytes, error: str) -> None:
    with pytest.raises(InputError, match=error):
        load_json(io.BytesIO(body), "x", max_bytes=1000, max_items=10)


def test_json_lines() -> None:
    values = list(load_json_lines(io.BytesIO(b'{"a": 1}\n\n[2]\n3'), "x", max_bytes=1000, max_line_bytes=100))
    assert values == [{"a": 1}, [2], 3]
    with pytest.raises(InputError, match="line 2: not valid JSON"):
        list(load_json_lines(io.BytesIO(b'{"a": 1}\n{'), "x", max_bytes=1000, max_line_bytes=100))


def test_numbers_beyond_pythons_int_limit_are_null_and_strings_untouched() -> None:
    huge = b"9" * 5000
    body = (
        b'{"line": '
        + huge
        + b', "text": "'
        + huge
        + b'", "id": 123456789012345678901234567890, "x": -'
        + huge
        + b".5e3}"
    )
    document = load_json(io.BytesIO(body), "x", max_bytes=100_000, max_items=10)
    assert document == {"line": None, "text": huge.decode(), "id": 123456789012345678901234567890, "x": None}


def test_lone_utf16_surrogates_are_replaced_and_pairs_kept() -> None:
    body = rb'{"a": "x\ud800y", "b": "\udc00", "c": "\ud83d\ude00", "d": ["\uDBFF"]}'
    assert load_json(io.BytesIO(body), "r.json", max_bytes=1_000, max_items=10) == {
        "a": "x\ufffdy",
        "b": "\ufffd",
        "c": "\U0001f600",
        "d": ["\ufffd"],
    }
    lines = list(load_json_lines(io.BytesIO(b'{"a": "\\udc01 z"}\n'), "r.jsonl", max_bytes=1_000, max_line_bytes=100))
    assert lines == [{"a": "\ufffd z"}]


def test_a_review_file_with_lone_surrogates_is_read_not_crashed_on(tmp_path: Path) -> None:
    review = tmp_path / "review.json"
    review.write_bytes(
        rb'[{"reviewer": "r", "severity": "critical", "category": "security", "location": "a.py:1",'
        rb' "description": "bad \ud800 text \udfff end"}]'
    )
    [finding] = ingest_file(review, "auto", DEFAULT_LIMITS, root=tmp_path)
    assert finding.message == "bad \ufffd text \ufffd end"
    finding.model_dump_json().encode("utf-8")  # writable as it is printed and kept
