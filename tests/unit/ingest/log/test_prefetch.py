"""The prefilter's pass in a child process: the same findings as the scanner alone, whatever happens to it."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from gauntlet.ingest.limits import DEFAULT_LIMITS, Limits
from gauntlet.ingest.log import prefetch as prefetch_module
from gauntlet.ingest.log import scan
from gauntlet.ingest.log.locator import Span, locate, read_step_back
from gauntlet.ingest.log.prefetch import (
    HIT,
    UNKNOWN,
    Ahead,
    Blocks,
    Prefetched,
    _Header,
    read_ahead,
    read_ahead_paths,
)
from gauntlet.ingest.log.prefilter import searcher
from gauntlet.ingest.log.scanner import BLOCK_BYTES, CONTEXT_BEFORE, iter_blocks
from gauntlet.untrusted import Masks

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the child is forked")

LOG = b"".join(
    [
        b"2026-11-29T12:00:00.0000000Z ##[group]Run pytest\n",
        b"2026-11-29T12:00:00.0000000Z pytest\n",
        b"2026-11-29T12:00:00.0000000Z ##[endgroup]\n",
        b"::add-mask::hunter2-secret\n",
        b"tests/test_api.py::test_error_handling PASSED [ 10%]\n" * 30_000,
        b"\x1b[31mFAILED\x1b[0m tests/test_calc.py::test_divide - ZeroDivisionError: hunter2-secret\n",
        b"src/app.c:12:5: error: 'count' undeclared (first use in this function)\n",
        b"Downloading numpy-1.26.4.whl (18.2 MB)\n" * 30_000,
        b"make: *** [Makefile:4: app] Error 1\n",
        b"##[error]Process completed with exit code 1.\n",
        b"a last line without a newline: error: at the end",
    ]
)


@pytest.fixture
def log_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The log above as a file the child is started for (a small one: the size threshold is lowered)."""
    monkeypatch.setattr(prefetch_module, "MIN_BYTES", 0)
    monkeypatch.setattr(prefetch_module, "_cores", lambda: 2)
    path = tmp_path / "job.log"
    path.write_bytes(LOG)
    assert len(LOG) > 2 * BLOCK_BYTES  # several blocks, and lines cut at their ends
    return path


def _dumps(stream: object, masks: Masks | None = None) -> list[str]:
    return [finding.model_dump_json() for finding in scan(stream, masks=masks)]  # type: ignore[arg-type]


def _same_with_the_child(path: Path, log: bytes) -> list[str]:
    """Write ``log`` to ``path`` and check that scanning the file (with its read-ahead child) finds what
    scanning the bytes alone does; returns those findings."""
    path.write_bytes(log)
    alone = _dumps(io.BytesIO(log))
    with path.open("rb") as stream:
        assert _dumps(stream) == alone
    return alone


@pytest.mark.parametrize("backend", ["auto", "stdlib"])
def test_same_findings_as_the_scanner_alone(log_file: Path, backend: str) -> None:
    alone = [f.model_dump_json() for f in scan(io.BytesIO(LOG), backend=backend)]
    with log_file.open("rb") as stream:
        ahead = read_ahead(stream, DEFAULT_LIMITS, backend, iter_blocks, CONTEXT_BEFORE)
        assert ahead is not None
        ahead.close()
    with log_file.open("rb") as stream:
        assert [f.model_dump_json() for f in scan(stream, backend=backend)] == alone
    assert len(alone) >= 2


def test_context_reaching_into_the_block_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prefetch_module, "MIN_BYTES", 0)
    monkeypatch.setattr(prefetch_module, "_cores", lambda: 2)
    noise = b"Collecting numpy==1.26.4 (from -r requirements.txt (line 3)) ok\n"
    assert len(noise) == 64  # whole lines fill the first block exactly: the failure is the next block's second line
    cause = b"curl: (7) Failed to connect to example.com port 443: Connection refused\n"
    log = noise * (BLOCK_BYTES // 64 - 3) + cause + noise * 3 + b"make: *** [Makefile:4: app] Error 1\n"
    log += noise * 100 + b"##[error]Process completed with exit code 2.\n"
    assert _same_with_the_child(tmp_path / "job.log", log)


CORPUS = sorted((Path(__file__).parents[3] / "fixtures" / "corpus").glob("*/*/input.log"))


def test_same_findings_on_the_corpus(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every real tool's log read with the child (forced on, whatever its size) as without it."""
    monkeypatch.setattr(prefetch_module, "MIN_BYTES", 0)
    monkeypatch.setattr(prefetch_module, "_cores", lambda: 2)
    assert len(CORPUS) > 100
    for path in CORPUS:
        with path.open("rb") as stream:
            assert _dumps(stream) == _dumps(io.BytesIO(path.read_bytes())), path


def test_a_flood_of_candidates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past MAX_DESCRIBED candidates in a block the child gives only line numbers: the scanner reads the rest."""
    monkeypatch.setattr(prefetch_module, "MIN_BYTES", 0)
    monkeypatch.setattr(prefetch_module, "_cores", lambda: 2)
    lines = [
        b"FAILURES: none yet, connection refused by peer",
        b"Traceback FAIL test_x",
        b"tests/test_api.py::test_error_handling FAILED",
        b"Killed FAIL",
        b"##[error]Process completed with exit code 1.",
    ]
    log = b"\n".join(lines[i % len(lines)] for i in range(3 * prefetch_module.MAX_DESCRIBED)) + b"\n"
    path = tmp_path / "flood.log"
    path.write_bytes(log)
    with path.open("rb") as stream:
        assert _dumps(stream) == _dumps(io.BytesIO(log))


def test_masks_registered_through_the_child(log_file: Path) -> None:
    masks = Masks()
    with log_file.open("rb") as stream:
        _dumps(stream, masks)
    assert masks.values == {"hunter2-secret"}


def test_starts_where_the_stream_stands(log_file: Path) -> None:
    skip = LOG.index(b"::add-mask::")
    with log_file.open("rb") as stream:
        stream.seek(skip)
        ahead = list(read_ahead(stream, DEFAULT_LIMITS, "auto", iter_blocks, CONTEXT_BEFORE) or [])
    assert sum(block.size for block in ahead) >= len(LOG) - skip


def test_a_child_that_stops_early_is_made_up_for(log_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    alone = _dumps(io.BytesIO(LOG))
    real = prefetch_module.read_ahead

    def first_block_only(source: object, limits: Limits, backend: str, blocks: Blocks, context: int) -> object:
        ahead = real(source, limits, backend, blocks, context)
        assert ahead is not None
        yield next(ahead)
        ahead.close()

    monkeypatch.setattr("gauntlet.ingest.log.reading.read_ahead", first_block_only)
    with log_file.open("rb") as stream:
        assert _dumps(stream) == alone


def test_no_child_for_small_files_pipes_or_one_core(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "small.log"
    path.write_bytes(LOG[:1000])
    with path.open("rb") as stream:
        assert read_ahead(stream, DEFAULT_LIMITS, "auto", iter_blocks, CONTEXT_BEFORE) is None  # under MIN_BYTES
    assert read_ahead(io.BytesIO(LOG), DEFAULT_LIMITS, "auto", iter_blocks, CONTEXT_BEFORE) is None
    monkeypatch.setattr(prefetch_module, "MIN_BYTES", 0)
    monkeypatch.setattr(prefetch_module, "_cores", lambda: 1)
    with path.open("rb") as stream:
        assert read_ahead(stream, DEFAULT_LIMITS, "auto", iter_blocks, CONTEXT_BEFORE) is None


def test_closing_early_reaps_the_child(log_file: Path) -> None:
    with log_file.open("rb") as stream:
        ahead = read_ahead(stream, DEFAULT_LIMITS, "auto", iter_blocks, CONTEXT_BEFORE)
        assert ahead is not None
        pid = ahead.pid
        next(ahead)
        ahead.close()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped: no child left behind


def test_read_ahead_paths_starts_one_child_for_the_first_big_log(
    log_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``gauntlet ingest`` starts the child before the parsers load: for the first log only, by content."""
    report = tmp_path / "report.json"
    report.write_text('{"runs": []}')  # SARIF, however big: no child
    second = tmp_path / "second.log"
    second.write_bytes(LOG)
    started = read_ahead_paths([report, tmp_path / "missing.log", log_file, second], "auto")
    assert list(started) == [log_file]
    started[log_file].close()
    assert read_ahead_paths([log_file], "sarif") == {}
    forced = read_ahead_paths([report], "log")  # forced: any file is a log
    assert list(forced) == [report]
    forced[report].close()


def test_ingest_paths_takes_the_child_started_early(log_file: Path, tmp_path: Path) -> None:
    """The findings of a log read with the child started before the parsers loaded are the scanner's alone."""
    from gauntlet.ingest import ingest_paths

    report = tmp_path / "report.json"
    report.write_text('{"runs": []}')
    alone = ingest_paths([log_file, report, log_file])
    ahead = read_ahead_paths([log_file], "auto")
    child = ahead[log_file]
    early = ingest_paths([log_file, report, log_file], ahead=ahead)
    assert child.pid == 0  # taken by the first reading and ended with it; the second reads alone
    assert early == alone
    assert len(early.findings) >= 2


def test_the_child_starts_before_pydantic_and_the_parsers_load() -> None:
    """What ``gauntlet ingest`` imports before it starts the child: no pydantic, no parser (docs/ci-logs.md)."""
    code = (
        "import sys, gauntlet.cli, gauntlet.ingest.log.prefetch; gauntlet.cli._parser(); "
        "print(sorted(m for m in ('pydantic', 'gauntlet.models', 'gauntlet.ingest.log.analyser') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def _step_headers_log() -> bytes:
    """Step headers of every shape, with failures inside and after them, over several blocks."""
    stamp = b"2026-11-29T12:00:00.0000000Z "
    noise = [stamp + b"Collecting numpy==1.26.%d (from -r requirements.txt)\n" % n for n in range(40)]
    parts: list[bytes] = []
    for step in range(400):
        parts.append(stamp + b"##[group]Run make test-%d\n" % step)
        parts.extend(noise[: step % 40])
        if step % 3 == 0:  # a failure inside the header (the runner claims it) or after it
            parts.append(stamp + b"src/app_%d.c:7:20: error: too many arguments to function 'add'\n" % step)
        if step % 5 == 0:
            parts.append(stamp + b"echo ##[endgroup] is not the header's end\n")
        if step % 7 != 0:  # else the header runs to its limit
            parts.append(stamp + b"##[endgroup]\n")
        parts.extend(noise * (step % 11))
        if step % 13 == 0:  # a block a parser is inside when the next step starts
            parts.append(stamp + b"=================================== FAILURES ===================================\n")
            parts.append(stamp + b"____ test_divide_%d ____\n" % step)
        if step % 17 == 0:
            parts.append(stamp + b"##[error]Process completed with exit code 1.\n")
    return b"".join(parts)


def test_same_findings_whatever_the_step_headers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The child follows the runner's step headers to leave their lines undescribed: the findings stay the
    scanner's alone, also where the scanner reads inside a header after all (a parser inside a block)."""
    monkeypatch.setattr(prefetch_module, "MIN_BYTES", 0)
    monkeypatch.setattr(prefetch_module, "_cores", lambda: 2)
    log = _step_headers_log()
    assert len(log) > 2 * BLOCK_BYTES
    assert len(_same_with_the_child(tmp_path / "steps.log", log)) > 20


def test_the_child_leaves_a_step_headers_lines_undescribed() -> None:
    stamp = b"2026-11-29T12:00:00.0000000Z "
    failure = stamp + b"src/app.c:7:20: error: too many arguments to function 'add'\n"
    header = [stamp + b"##[group]Run make\n", *[stamp + b"make -j%d\n" % n for n in range(250)]]
    header[100:100] = [failure]  # inside the header: the runner claims it, the scanner jumps over it
    block = b"".join([*header, failure])  # past the header's limit: read
    candidates = searcher("stdlib")(block)
    assert len(candidates) == 3
    description = prefetch_module._describe(block, len(block), candidates, 4096, CONTEXT_BEFORE, _Header())
    found = Ahead._read(SimpleNamespace(_pipe=io.BytesIO(description)))  # type: ignore[arg-type]
    assert found is not None
    assert list(found.kinds) == [HIT, UNKNOWN, HIT]
    assert set(found.cleaned) == {candidates[0], candidates[2], *found.starts}  # context of the last hit only
    assert all(start > candidates[1] for start in found.starts)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_read_ahead_paths_opens_no_named_pipe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Opening a named pipe waits for a writer (and reading it takes what the reader proper needs)."""
    monkeypatch.setattr(prefetch_module, "MIN_BYTES", 0)
    fifo = tmp_path / "job.log"
    os.mkfifo(fifo)
    assert read_ahead_paths([fifo], "log") == {}


def _described(log: bytes, backend: str = "auto") -> list[tuple[bytes, int, Prefetched, Span]]:
    """Each block of ``log`` as the child describes it, with the block before as the analyser holds it."""
    header = _Header()
    back: Span = (b"", 0, 1)
    described = []
    for block, limit in iter_blocks(io.BytesIO(log), DEFAULT_LIMITS):
        candidates = searcher(backend)(block)
        description = prefetch_module._describe(block, limit, candidates, 4096, CONTEXT_BEFORE, header, back)
        found = Ahead._read(SimpleNamespace(_pipe=io.BytesIO(description)))  # type: ignore[arg-type]
        assert found is not None
        described.append((block, limit, found, back))
        back = (block, limit, header.first + 1)
    return described


def test_the_child_locates_each_failed_step_as_the_analyser_would() -> None:
    """Every ``##[error]`` exit line's step, read back (into the block before too) and located."""
    stamp = b"2026-11-29T12:00:00.0000000Z "
    noise = stamp + b"Collecting numpy==1.26.4 (from -r requirements.txt (line 3)) ok\n"
    step = [stamp + b"##[group]Run make\n", stamp + b"make\n", stamp + b"##[endgroup]\n", *[noise] * 30]
    failed = [stamp + b"src/app.c:7:20: error: too many arguments to function 'add'\n", *[noise] * 5]
    exit_line = stamp + b"##[error]Process completed with exit code 2.\n"
    log = b"".join([*step, *failed, exit_line] * 1000)
    described = _described(log)
    assert len(described) > 2
    located = 0
    for block, limit, found, back in described:
        offset = block.find(exit_line, 0, limit)
        exits = {}
        while offset != -1:
            exits[back[2] + block.count(b"\n", 0, offset)] = offset
            offset = block.find(exit_line, offset + 1, limit)
        assert set(found.steps) == set(exits)
        for number, (lines, place) in found.steps.items():
            expected = read_step_back((block, exits[number], number), back)
            assert lines == expected
            assert place == locate(expected)
            assert place is not None
            assert place.message == "src/app.c:7:20: error: too many arguments to function 'add'"
            located += 1
    assert located == 1000


def test_the_child_with_the_standard_librarys_search_locates_no_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """That search keeps the child the slower process already: the analyser locates the steps itself."""
    monkeypatch.setattr(prefetch_module, "MIN_BYTES", 0)
    monkeypatch.setattr(prefetch_module, "_cores", lambda: 2)
    monkeypatch.setattr(prefetch_module, "AHEAD_BYTES", 0)  # however little it is ahead
    path = tmp_path / "job.log"
    path.write_bytes(LOG)
    for backend, steps in (("stdlib", 0), ("auto", 1)):
        with path.open("rb") as stream:
            ahead = read_ahead(stream, DEFAULT_LIMITS, backend, iter_blocks, CONTEXT_BEFORE)
            assert ahead is not None
            assert sum(len(found.steps) for found in ahead) == steps


def test_a_failed_step_read_back_into_the_block_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A step's exit on the first line of a block: the child reads its step from the block before too."""
    monkeypatch.setattr(prefetch_module, "MIN_BYTES", 0)
    monkeypatch.setattr(prefetch_module, "_cores", lambda: 2)
    noise = b"Collecting numpy==1.26.4 (from -r requirements.txt (line 3)) ok\n"
    cause = b"curl: (7) Failed to connect to example.com port 443: Connection refused\n"
    log = noise * (BLOCK_BYTES // 64 - 3) + cause + noise * 2 + b"##[error]Process completed with exit code 2.\n"
    log += noise * 100 + b"##[error]Process completed with exit code 1.\n"
    described = _described(log)
    assert described[1][2].steps  # read back from the second block's first line
    assert _same_with_the_child(tmp_path / "job.log", log)


def test_past_its_budget_of_lines_the_child_leaves_failed_steps_to_the_analyser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prefetch_module, "MIN_BYTES", 0)
    monkeypatch.setattr(prefetch_module, "_cores", lambda: 2)
    monkeypatch.setattr(prefetch_module, "MAX_STEP_LINES", 50)
    log = _step_headers_log() * 3
    assert all(len(found.steps) <= 2 for _, _, found, _ in _described(log))
    _same_with_the_child(tmp_path / "steps.log", log)


def test_a_child_not_ahead_of_the_parent_leaves_failed_steps_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the system tells how much waits in the pipe, the child locates steps only while it is ahead."""
    monkeypatch.setattr(prefetch_module, "MIN_BYTES", 0)
    monkeypatch.setattr(prefetch_module, "_cores", lambda: 2)
    log = _step_headers_log() * 3
    path = tmp_path / "steps.log"
    path.write_bytes(log)
    alone = _dumps(io.BytesIO(log))
    for ahead_bytes in (0, 1 << 40):
        monkeypatch.setattr(prefetch_module, "AHEAD_BYTES", ahead_bytes)
        with path.open("rb") as stream:
            ahead = read_ahead(stream, DEFAULT_LIMITS, "auto", iter_blocks, CONTEXT_BEFORE)
            assert ahead is not None
            located = sum(len(found.steps) for found in ahead)
        assert (located == 0) == bool(ahead_bytes and _system_tells())
        with path.open("rb") as stream:
            assert _dumps(stream) == alone


def _system_tells() -> bool:
    read_end, write_end = os.pipe()
    try:
        return prefetch_module._queued(write_end) is not None
    finally:
        os.close(read_end)
        os.close(write_end)


def test_how_much_waits_in_a_pipe() -> None:
    read_end, write_end = os.pipe()
    os.write(write_end, b"x" * 1000)
    queued = prefetch_module._queued(write_end)
    assert queued in (1000, None)  # None where the system does not tell (not Linux)
    os.close(read_end)
    os.close(write_end)
