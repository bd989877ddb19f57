"""Bounded JSON: capped arrays, depth and size limits."""

from __future__ import annotations

import io

import pytest

from gauntlet.errors import InputError
from gauntlet.ingest.jsondoc import load_json, load_json_lines


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


@pytest.mark.parametrize(
    "body",
    [
        rb'{"a": "bad \ud800 here", "b": "\udfff"}',  # lone surrogate escapes
        b'{"a": "bad \xed\xa0\x80 here", "b": "\xed\xbf\xbf"}',  # the same surrogates as raw (invalid) UTF-8
    ],
)
def test_lone_surrogates_become_replacement_characters(body: bytes) -> None:
    document = load_json(io.BytesIO(body), "r.json", max_bytes=10_000, max_items=10)
    assert document["a"].startswith("bad \ufffd") and document["a"].endswith(" here")
    assert "\ufffd" in document["b"]
    for value in document.values():
        value.encode("utf-8")  # no surrogate left to fail a comment, an issue or the state
    (line,) = load_json_lines(io.BytesIO(body), "r.jsonl", max_bytes=10_000, max_line_bytes=1000)
    assert line["a"].startswith("bad \ufffd")


def test_surrogate_pairs_and_escaped_backslashes_are_kept() -> None:
    body = rb'{"a": "\ud83d\ude00", "b": "\\ud800"}'
    document = load_json(io.BytesIO(body), "r.json", max_bytes=10_000, max_items=10)
    assert document == {"a": "\U0001f600", "b": "\\ud800"}
