"""The prefilter: both backends find the same lines; every fixture scans the same with either."""

from __future__ import annotations

from pathlib import Path

import pytest

from gauntlet.ingest.log import prefilter

FIXTURES = Path(__file__).parents[4] / "tests" / "fixtures" / "logs"
LOGS = sorted(FIXTURES.glob("*/*/input.log"))


def _confirmed(chunk: bytes, backend: str) -> list[int]:
    """Candidate lines that pass the trigger check: what the scanner would parse."""
    from gauntlet.ingest.log.text import clean_line

    kept = []
    for offset in prefilter.candidate_offsets(chunk, backend=backend):
        end = chunk.find(b"\n", offset)
        if prefilter.is_trigger(clean_line(chunk[offset : end if end != -1 else len(chunk)])):
            kept.append(offset)
    return kept


@pytest.mark.skipif(prefilter._HYPERSCAN is None, reason="Hyperscan is not available here")
@pytest.mark.parametrize("log", LOGS, ids=[f"{p.parent.parent.name}/{p.parent.name}" for p in LOGS])
def test_backends_confirm_the_same_lines(log: Path) -> None:
    chunk = log.read_bytes()
    assert _confirmed(chunk, "hyperscan") == _confirmed(chunk, "stdlib")


def test_false_anchors_are_not_confirmed() -> None:
    chunk = b"tests/test_x.py::test_error_handling PASSED\n[INFO] Failures: 0, Errors: 0\ngcc -Werror -c a.c\n"
    assert _confirmed(chunk, "stdlib") == []


def test_grep_pattern_lists_every_anchor() -> None:
    pattern = prefilter.grep_pattern()
    for anchor in prefilter.ANCHORS:
        assert anchor.decode().replace("[", "\\[") in pattern


@pytest.mark.parametrize("backend", ["stdlib", "hyperscan"])
def test_checkers_without_failure_words_are_confirmed(backend: str) -> None:
    """golangci-lint and bandit print no keyword; a plain log of theirs has no exit line to lend context."""
    if backend == "hyperscan" and prefilter._HYPERSCAN is None:
        pytest.skip("Hyperscan is not available here")
    lines = [b"main.go:5:2: ineffectual assignment to x (ineffassign)\n", b">> Issue: [B404:blacklist] Consider it.\n"]
    chunk = b"ok  \tdemo/pkg\t0.01s\n" + b"".join(lines) + b"   Severity: Low   Confidence: High\n"
    assert _confirmed(chunk, backend) == [chunk.index(line) for line in lines]
