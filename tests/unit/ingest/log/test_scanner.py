"""The streaming scanner: line numbers, block boundaries, hostile input, bounded memory and time."""

from __future__ import annotations

import io
import random
import time
import tracemalloc

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from logscan_helpers import ChunkyReader, findings

from gauntlet.ingest.limits import DEFAULT_LIMITS, Limits
from gauntlet.ingest.log import scan
from gauntlet.ingest.log.scanner import BLOCK_BYTES, count_newlines, iter_blocks

FAILURE = b"src/app.c:12:5: error: 'count' undeclared (first use in this function)"
EXIT = b"##[error]Process completed with exit code 1."
NOISE = st.sampled_from(
    [
        b"gcc -O2 -Wall -c src/x.c -o build/x.o",
        b"tests/test_api.py::test_error_handling PASSED [ 10%]",
        b"Downloading numpy-1.26.4.whl (18.2 MB)",
        b"",
        b"\x1b[32m  PASS \x1b[0m src/a.test.js",
        b"[INFO] Tests run: 3, Failures: 0, Errors: 0, Skipped: 0",
        b"  45% [=======>        ]\r  46% [========>       ]",
    ]
)


class EndlessBytes(io.RawIOBase):
    """``total`` bytes of ``pattern`` with no newline, produced as they are read (nothing held)."""

    def __init__(self, pattern: bytes, total: int, tail: bytes = b"") -> None:
        self._pattern = pattern * (65536 // len(pattern) + 1)
        self._left = total
        self._tail = tail

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        if self._left <= 0:
            tail, self._tail = self._tail, b""
            return tail
        piece = self._pattern[: min(self._left, 65536)]
        self._left -= len(piece)
        return piece


def test_line_numbers_count_raw_newlines() -> None:
    log = b"one\ntwo\n" + FAILURE + b"\nfour\n"
    [finding] = findings(log)
    assert finding.log_lines == (3, 3)
    assert finding.path == "src/app.c" and finding.line == 12


def test_a_failure_across_a_block_boundary_is_found_at_its_line() -> None:
    lines = [b"noise line %d" % i for i in range(200_000)]
    lines.insert(150_000, FAILURE)
    [finding] = findings(b"\n".join(lines) + b"\n")
    assert finding.log_lines == (150_001, 150_001)


def test_unclosed_step_headers_do_not_use_up_the_lines_read() -> None:
    # Step framing that never closes (``##[group]Run`` after ``##[group]Run``) was read line by line up to
    # each header's limit, which spent the hostile-input budget of fed lines before the log's real end.
    header = b"##[group]Run make\n" + b"echo step\n" * 250
    [finding] = findings(header * 2600 + FAILURE + b"\n" + EXIT + b"\n")
    assert finding.path == "src/app.c" and finding.line == 12
    assert finding.log_lines[0] <= 2600 * 251 + 1 <= finding.log_lines[1]


def test_a_step_header_ends_at_its_endgroup_however_long_its_lines() -> None:
    # The header's ``##[endgroup]`` (found among the prefilter's candidates) lies beyond the bytes looked at
    # first; the failure right after it is the step's output, not its script.
    header = b"##[group]Run make\n" + b"echo %s\n" % (b"x" * 300) * 150 + b"##[endgroup]\n"
    [finding] = findings(header + FAILURE + b"\n" + EXIT + b"\n")
    assert finding.path == "src/app.c" and finding.log_lines == (153, 153)


def test_iterables_of_lines_without_newlines_are_lines() -> None:
    [finding] = list(scan([b"a", b"b", FAILURE], DEFAULT_LIMITS))
    assert finding.log_lines == (3, 3)


def test_the_last_line_needs_no_newline() -> None:
    [finding] = findings(b"a\n" + FAILURE)
    assert finding.log_lines == (2, 2)


def test_a_50_mb_line_costs_bounded_memory_and_time() -> None:
    stream = EndlessBytes(b"x", 50 * 1024 * 1024, tail=b"\n" + FAILURE + b"\n")
    tracemalloc.start()
    started = time.perf_counter()
    result = list(scan(stream, DEFAULT_LIMITS))
    elapsed = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert [f.log_lines for f in result] == [(2, 2)]
    assert peak < 32 * 1024 * 1024
    assert elapsed < 10


def test_endless_carriage_return_progress_is_bounded() -> None:
    stream = EndlessBytes(b"\r 45% [=====>     ] 12.3 MB/s", 20 * 1024 * 1024)
    started = time.perf_counter()
    assert list(scan(stream, DEFAULT_LIMITS)) == []
    assert time.perf_counter() - started < 10


def test_long_lines_are_cut_to_the_limit() -> None:
    limits = Limits(max_line_bytes=100)
    [finding] = findings(FAILURE + b" " + b"y" * 10_000 + b"\nnext\n", limits)
    assert finding.log_lines == (1, 1)
    assert len(finding.excerpt) <= 100


def test_nul_bytes_invalid_utf8_and_ansi_garbage_never_crash() -> None:
    garbage = bytes(range(256)) * 50 + b"\x1b[" * 1000 + b"\xff\xfe\x00error:\x00\n" + b"\x1b]0;title\x07" * 100
    for finding in findings(garbage + FAILURE + b"\n"):
        assert "\x00" not in finding.message


def test_finding_count_is_capped() -> None:
    limits = Limits(max_findings=5)
    log = b"".join(b"src/f%d.c:1:1: error: bad thing %d\n" % (i, i) for i in range(50))
    assert len(findings(log, limits)) == 5


def test_a_flood_of_one_tools_errors_is_cut_to_its_first_ones() -> None:
    log = b"".join(b"src/f%d.c:1:1: error: bad thing %d\n" % (i, i) for i in range(50))
    assert len(findings(log)) == 10


def test_iter_blocks_keeps_whole_lines() -> None:
    data = b"".join(b"line %d %s\n" % (i, b"x" * (i % 300)) for i in range(40_000))
    assert len(data) > 4 * BLOCK_BYTES
    for source in (io.BytesIO(data), ChunkyReader(data, [BLOCK_BYTES // 3, BLOCK_BYTES])):  # a file, a pipe
        blocks = list(iter_blocks(source, DEFAULT_LIMITS))
        assert b"".join(block[:end] for block, end in blocks) == data
        assert all(block[end - 1 : end] == b"\n" for block, end in blocks)


def test_a_file_that_seeks_reads_as_a_stream_does() -> None:
    """A seekable file re-reads a block's unfinished last line; a pipe carries it over: same lines, same findings."""
    rng = random.Random(3)
    lines = []
    for i in range(60_000):
        shape = rng.random()
        if shape < 0.001:
            lines.append(b"y" * rng.choice([70_000, 300_000, 1_500_000]))  # over the line cap, over a block
        elif shape < 0.003:
            lines.append(FAILURE.replace(b"12:5", b"%d:5" % i))
        else:
            lines.append(b"noise %d " % i + b"z" * rng.randrange(120))
    data = b"\n".join(lines) + b"\n"
    assert len(data) > 3 * BLOCK_BYTES
    from_file = findings(data)
    from_pipe = list(scan(ChunkyReader(data, [BLOCK_BYTES]), DEFAULT_LIMITS))
    assert from_file == from_pipe
    assert [f.log_lines for f in from_file] == [(n + 1, n + 1) for n, line in enumerate(lines) if b"error" in line][:10]


def _logs() -> st.SearchStrategy[list[bytes]]:
    return st.lists(st.one_of(NOISE, st.just(FAILURE), st.binary(max_size=80)), max_size=60)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=_logs())
def test_any_log_yields_well_formed_findings(lines: list[bytes]) -> None:
    data = b"\n".join(lines)
    total = data.count(b"\n") + 1
    for finding in findings(data):
        assert finding.log_lines is not None
        first, last = finding.log_lines
        assert 1 <= first <= last <= total
        assert last - first < DEFAULT_LIMITS.max_span_lines
        assert len(finding.message) <= DEFAULT_LIMITS.max_message_chars
        assert len(finding.excerpt) <= DEFAULT_LIMITS.max_excerpt_chars


@settings(max_examples=50, deadline=None)
@given(lines=_logs(), sizes=st.lists(st.integers(min_value=1, max_value=300), min_size=1, max_size=8))
def test_how_the_stream_is_read_changes_nothing(lines: list[bytes], sizes: list[int]) -> None:
    data = b"\n".join(lines)
    whole = findings(data)
    assert list(scan(ChunkyReader(data, sizes), DEFAULT_LIMITS)) == whole


@settings(max_examples=50, deadline=None)
@given(before=st.lists(NOISE, max_size=40), after=st.lists(NOISE, max_size=40))
def test_a_failure_among_noise_is_found_exactly_once_at_its_line(before: list[bytes], after: list[bytes]) -> None:
    lines = [*before, FAILURE, *after]
    data = b"\n".join(lines) + b"\n"
    result = findings(data)
    assert len(result) == 1
    assert result[0].log_lines == (len(before) + 1, len(before) + 1)


def test_newline_counts_agree_with_and_without_numpy() -> None:
    block = b"".join(b"x" * (i % 97) + b"\n" for i in range(5000))
    for start, end in [(0, len(block)), (10, 70_000), (5, 6)]:
        expected = block.count(b"\n", start, end)
        assert count_newlines(block, start, end) == expected
        assert count_newlines(block, start, end, big=True) == expected
