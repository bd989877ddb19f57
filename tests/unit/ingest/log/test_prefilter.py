"""The prefilter: every backend finds the same lines; every log scans to the same findings with each."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gauntlet.ingest.log import prefilter, scan

FIXTURES = Path(__file__).parents[4] / "tests" / "fixtures"
# The tool fixtures and the real-tool corpus: every log a test knows the findings of.
LOGS = sorted([*FIXTURES.glob("logs/*/*/input.log"), *FIXTURES.glob("corpus/*/*/input.log")])
IDS = [f"{p.parents[2].name}/{p.parent.parent.name}/{p.parent.name}" for p in LOGS]
BACKENDS = list(prefilter.BACKENDS)


def _loaded(backend: str) -> None:
    if not prefilter.loads(backend):
        pytest.skip(f"{backend} is not installed here")


def _confirmed(chunk: bytes, backend: str) -> list[int]:
    """Candidate lines that pass the trigger check: what the scanner would parse."""
    from gauntlet.ingest.log.text import clean_line

    kept = []
    for offset in prefilter.candidate_offsets(chunk, backend=backend):
        end = chunk.find(b"\n", offset)
        if prefilter.is_trigger(clean_line(chunk[offset : end if end != -1 else len(chunk)])):
            kept.append(offset)
    return kept


@pytest.mark.parametrize("backend", ["ahocorasick", "hyperscan"])
def test_backends_confirm_the_same_lines_as_the_stdlib_search(backend: str) -> None:
    _loaded(backend)
    for log in LOGS:
        chunk = log.read_bytes()
        assert _confirmed(chunk, backend) == _confirmed(chunk, "stdlib"), log


@pytest.mark.parametrize("backend", ["ahocorasick", "hyperscan"])
def test_every_log_scans_to_the_same_findings_with_each_backend(backend: str) -> None:
    """The fast paths change nothing but speed: the same findings as the standard library's search gives."""
    _loaded(backend)
    for log in LOGS:
        data = log.read_bytes()
        reference = [f.model_dump() for f in scan(io.BytesIO(data), backend="stdlib")]
        assert [f.model_dump() for f in scan(io.BytesIO(data), backend=backend)] == reference, log


@pytest.mark.parametrize("backend", BACKENDS)
def test_false_anchors_are_not_confirmed(backend: str) -> None:
    _loaded(backend)
    chunk = (
        b"tests/test_x.py::test_error_handling PASSED\n[INFO] Failures: 0, Errors: 0\ngcc -Werror -c a.c\n"
        b"test result: ok. 3 passed; 0 failed\n+ exit 0\n--- PASS: TestRetryOnFailure_3 (0.01s)\n"
    )
    assert _confirmed(chunk, backend) == []


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_failure_word_at_the_very_end_is_a_candidate(backend: str) -> None:
    """Hyperscan's ``$`` matches at the end of the data; the other searches must see that line too."""
    _loaded(backend)
    chunk = b"ok\nmake: *** [all] Error"
    assert prefilter.candidate_offsets(chunk, backend=backend) == [3]


@pytest.mark.parametrize("backend", BACKENDS)
def test_other_words_on_a_line_are_still_checked(backend: str) -> None:
    """A rejected occurrence (``test_fail_fast``) does not hide a real one later on its line."""
    _loaded(backend)
    chunk = b"noise\ntest_fail_fast ... 1 failed, Failures: 2\n"
    assert prefilter.candidate_offsets(chunk, backend=backend) == [6]


def test_a_backend_that_did_not_load_falls_back() -> None:
    chunk = b"x\nerror: boom\n"
    assert prefilter.candidate_offsets(chunk, backend="no-such-search") == [2]


def test_grep_pattern_lists_every_anchor() -> None:
    pattern = prefilter.grep_pattern()
    for anchor in prefilter.ANCHORS:
        assert anchor.decode().replace("[", "\\[").replace(".", "\\.") in pattern


@pytest.mark.parametrize("backend", BACKENDS)
def test_checkers_without_failure_words_are_confirmed(backend: str) -> None:
    """golangci-lint and bandit print no keyword; a plain log of theirs has no exit line to lend context."""
    _loaded(backend)
    lines = [b"main.go:5:2: ineffectual assignment to x (ineffassign)\n", b">> Issue: [B404:blacklist] Consider it.\n"]
    chunk = b"ok  \tdemo/pkg\t0.01s\n" + b"".join(lines) + b"   Severity: Low   Confidence: High\n"
    assert _confirmed(chunk, backend) == [chunk.index(line) for line in lines]


@pytest.mark.parametrize(
    ("hidden", "loaded"),
    [(["ahocorasick_rs"], ["hyperscan", "stdlib"]), (["ahocorasick_rs", "hyperscan"], ["stdlib"])],
)
def test_a_missing_library_leaves_the_next_search(hidden: list[str], loaded: list[str]) -> None:
    """As on a platform without its wheels: the module cannot be imported, the next search runs."""
    if "hyperscan" in loaded and not prefilter.loads("hyperscan"):
        pytest.skip("Hyperscan is not installed here")
    code = (
        "import sys\n"
        + "".join(f"sys.modules[{name!r}] = None\n" for name in hidden)
        + "from gauntlet.ingest.log import prefilter\n"
        + "print(*[n for n in prefilter.BACKENDS if prefilter.loads(n)], prefilter.candidate_offsets(b'x\\nerror: y'))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == [*loaded, "[2]"]


def _may_start_as_fed(raws: list[bytes]) -> list[bool]:
    """``may_start`` of each raw line, told which lines :func:`prefilter.wordy_lines` found wordy."""
    from gauntlet.ingest.log.text import clean_line

    wordy = prefilter.wordy_lines(raws)
    return [prefilter.may_start(clean_line(raw), wordy=index in wordy) for index, raw in enumerate(raws)]


def _may_start_every_shape(raws: list[bytes]) -> list[bool]:
    from gauntlet.ingest.log.text import clean_line

    return [prefilter.may_start(clean_line(raw)) for raw in raws]


def test_lines_without_words_may_start_a_block_only_by_their_start() -> None:
    """Taking the words' search for a line's shapes anywhere in it changes no line of any log."""
    _loaded("ahocorasick")
    for log in LOGS:
        raws = log.read_bytes().split(b"\n")
        for first in range(0, len(raws), 30):
            window = raws[first : first + 30]
            assert _may_start_as_fed(window) == _may_start_every_shape(window), log


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        st.from_regex(prefilter._ANYWHERE),
        st.from_regex(prefilter._HINT_ANYWHERE),
        st.text(alphabet=st.sampled_from("error line.py:3 \x1b[m\r٣ExitcodFAIL")),
    )
)
def test_every_shape_found_anywhere_holds_a_word(text: str) -> None:
    raw = text.replace("\n", " ").encode("utf-8", "surrogatepass")
    assert _may_start_as_fed([b"plain", raw]) == _may_start_every_shape([b"plain", raw])
