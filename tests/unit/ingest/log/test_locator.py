"""The failure locator: one block per failed step, for any tool, from real logs and the documented framings."""

from __future__ import annotations

import io
import random
import re
import string
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gauntlet.ingest.limits import DEFAULT_LIMITS
from gauntlet.ingest.log import locator, scan
from gauntlet.ingest.log.locator import locate, score_line, step_lines
from gauntlet.ingest.log.scanner import BLOCK_BYTES
from gauntlet.ingest.log.text import clean_line
from gauntlet.models import Finding

LOGS = Path(__file__).parents[4] / "tests" / "fixtures" / "logs"
TRAVIS = LOGS / "travis"


def _findings(data: bytes) -> list[Finding]:
    return list(scan(io.BytesIO(data)))


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")


def _numbered(texts: list[str], first: int = 1) -> list[tuple[int, str]]:
    return [(first + index, text) for index, text in enumerate(texts)]


# -- step framing of each CI ---------------------------------------------------------------------------------


def test_travis_failed_command_is_its_last_words_and_passing_commands_say_nothing() -> None:
    # Real Travis log (LogChunks): four commands exit 0, one fails printing only "No such file or directory".
    [finding] = _findings((TRAVIS / "missing_script" / "input.log").read_bytes())
    assert finding.log_lines == (519, 519)
    assert finding.message.endswith("install-jdk.sh: No such file or directory")
    assert finding.kind == "unknown" and finding.severity == "major" and finding.path is None


def test_travis_log_whose_commands_all_pass_has_no_finding() -> None:
    lines = _lines(TRAVIS / "missing_script" / "input.log")
    # The same real log up to the command that failed: every command so far exited with 0.
    assert _findings(b"\n".join(lines[:516]) + b"\nDone. Your build exited with 0.\n") == []


def test_github_step_header_is_the_command_not_its_output() -> None:
    lines = _numbered(
        [
            "##[group]Run ./wait-for-service.sh",
            "./wait-for-service.sh --error-on-timeout",
            "shell: /usr/bin/bash -e {0}",
            "##[endgroup]",
            "waiting for service",
        ]
    )
    assert step_lines(lines) == [(5, "waiting for service")]


def test_gitlab_section_is_read_from_its_start() -> None:
    # GitLab's documented section markers (docs.gitlab.com/ee/ci/jobs/#custom-collapsible-sections).
    log = (
        b"section_start:1700000000:prepare_script\r\x1b[0KPreparing environment\n"
        b"ERROR: could not reach the cache server, carrying on\n"
        b"section_end:1700000001:prepare_script\r\x1b[0K\n"
        b"section_start:1700000002:step_script\r\x1b[0K\x1b[0KExecuting step script\n"
        b"$ ./build.sh\n"
        b"building the site\n"
        b"fatal: template 'base.html' not found\n"
        b"ERROR: Job failed: exit code 1\n"
    )
    [finding] = _findings(log)
    first, last = finding.log_lines or (0, 0)
    assert 5 <= first <= 7 == last  # within step_script, not the prepare section's error
    assert "template 'base.html' not found" in finding.message


def test_jenkins_pipeline_step_is_read_from_its_sh_line() -> None:
    # Jenkins' documented pipeline console output: ``[Pipeline] sh``, ``+ cmd`` traces, then the step's exit.
    log = (
        b"[Pipeline] sh\n+ ./lint.sh\nERROR: 3 style problems (ignored in this stage)\n"
        b"[Pipeline] sh\n+ ./package.sh\ncopying assets\ntar: dist/app.js: Cannot stat: No such file or directory\n"
        b"ERROR: script returned exit code 2\nFinished: FAILURE\n"
    )
    [finding] = _findings(log)
    first, last = finding.log_lines or (0, 0)
    assert 5 <= first <= 7 == last  # the package step, not the lint step's ignored error
    assert "Cannot stat" in finding.message


def test_unframed_log_is_located_at_the_cause_of_its_cascade() -> None:
    # Real Travis log cut off before any exit line (LogChunks, erlang/otp): the emulator crashes, then five makes
    # give up one after the other. The block starts above the crash and the message is the crash, not make's.
    [finding] = _findings((TRAVIS / "unframed_make_cascade" / "input.log").read_bytes())
    first, last = finding.log_lines or (0, 0)
    assert first <= 677 <= last and last - first < 15
    assert finding.message.startswith("System process <0.0.0> terminated")


def test_plain_log_without_failure_words_has_no_finding() -> None:
    assert _findings(b"compiling\nlinking\nwrote dist/app\n") == []


# -- boundaries, scores, folding -----------------------------------------------------------------------------


def test_lines_passing_output_prints_score_nothing() -> None:
    passing = [
        "tests/test_api.py::test_error_handling PASSED                [ 40%]",
        "gcc -O2 -Wall -Werror -c src/error_reporter.c",
        "[INFO] Tests run: 12, Failures: 0, Errors: 0, Skipped: 0",
        "test tests::error_paths ... ok",
        'The command "make test" exited with 0.',
    ]
    assert [score_line(text) for text in passing] == [0.0] * len(passing)
    assert score_line("src/app.c:7:20: error: too many arguments to function 'add'") > score_line("error: build failed")


def test_warnings_header_makes_its_lines_warnings() -> None:
    # Real Travis log (LogChunks, cplusplus/draft): "Latex failed to resolve" is listed under a warnings header;
    # the step fails on the Overfull boxes printed last.
    [finding] = _findings((TRAVIS / "latex_overfull" / "input.log").read_bytes())
    first, last = finding.log_lines or (0, 0)
    assert last == 489 and last - first < 15
    assert finding.message.startswith("Overfull \\hbox")


def test_framework_summary_is_a_boundary() -> None:
    step = _numbered(
        [
            "$ bin/test",
            "Failure:",
            "DBConsoleTest#test_env [test/dbconsole_test.rb:40]:",
            'Expected "" to include "sqlite>".',
            "",
            "Finished in 5.06s",
            "2 runs, 4 assertions, 2 failures, 0 errors, 0 skips",
            "rake aborted!",
            "Command failed with status (1): [ruby -w -Itest test/dbconsole_test.rb]",
        ]
    )
    located = locate(step)
    assert located is not None
    assert (located.start, located.line) == (2, 2)
    assert located.end < 7  # the summary closes the block; rake's driver lines after it explain nothing


def test_repeated_block_folds_into_its_first_copy() -> None:
    retry = ["▸ Compiling Source.swift", "❌  Source/Source.swift:97:2: unknown attribute 'dynamicMemberLookup'", ""]
    steps = ["$ xcodebuild test", *retry, "Retrying", *retry, "Retrying", *retry, "** TEST FAILED **"]
    located = locate(_numbered(steps))
    assert located is not None
    assert located.line == 3  # the first of three copies


def test_block_never_spans_sixty_lines() -> None:
    errors = [f"src/gen_{index}.c:1:1: error: unknown type name 'fd_set'" for index in range(300)]
    log = "\n".join(["$ make", *errors, 'The command "make" exited with 2.']).encode()
    findings = _findings(log)
    assert findings
    for finding in findings:
        first, last = finding.log_lines or (0, 0)
        assert 0 < last - first + 1 <= DEFAULT_LIMITS.max_span_lines


# -- streaming ------------------------------------------------------------------------------------------------


def test_generator_input_gives_the_same_findings_as_a_stream() -> None:
    raw = (TRAVIS / "unframed_make_cascade" / "input.log").read_bytes()

    def lines() -> Iterator[bytes]:
        yield from raw.split(b"\n")

    assert [f.model_dump() for f in scan(lines())] == [f.model_dump() for f in _findings(raw)]


def test_window_reaches_back_into_the_block_before() -> None:
    # The failed step's cause sits just before a block boundary, its exit just after: the window spans both.
    rng = random.Random(3)
    filler = b"".join(b"copied asset %d of the site\n" % rng.randrange(10**6) for _ in range(BLOCK_BYTES // 24))
    head = filler[: BLOCK_BYTES - 200]
    head = head[: head.rfind(b"\n") + 1]
    tail = b"fatal: unable to access 'https://example.invalid/': Could not resolve host\n" + b"waiting\n" * 12
    log = b"$ ./deploy.sh\n" + head + tail + b'The command "./deploy.sh" exited with 128.\n'
    assert len(b"$ ./deploy.sh\n" + head) < BLOCK_BYTES < len(log)
    [finding] = _findings(log)
    cause = log.count(b"\n", 0, log.index(b"fatal:")) + 1
    first, last = finding.log_lines or (0, 0)
    assert first <= cause <= last
    assert "Could not resolve host" in finding.message


@pytest.mark.parametrize("junk", [bytes(range(256)) * 40, b"\x00" * 5000, b"\xff\xfe" * 3000 + b"\r" * 500])
def test_junk_before_a_failed_exit_still_gives_one_bounded_finding(junk: bytes) -> None:
    [finding] = _findings(b"$ ./run\n" + junk + b'\nThe command "./run" exited with 1.\n')
    first, last = finding.log_lines or (0, 0)
    assert 0 < last - first + 1 <= DEFAULT_LIMITS.max_span_lines


def test_cleaned_travis_lines_show_what_the_terminal_showed() -> None:
    raw = b'travis_time:end:1f65:start=1,finish=2\r\x1b[0K\x1b[31;1mThe command "make" exited with 2.\x1b[0m\r'
    assert clean_line(raw) == 'The command "make" exited with 2.'


def _corpus_lines() -> Iterator[str]:
    fixtures = Path(__file__).parents[4] / "tests" / "fixtures"
    for log in sorted(fixtures.glob("corpus*/**/input.log")) + sorted(LOGS.glob("**/*.log")):
        for raw in log.read_bytes().split(b"\n"):
            yield clean_line(raw[:16384])[:512]


def _first_looks(text: str) -> tuple[bool, bool, bool]:
    return locator._strong(text), locator._medium(text), locator._is_summary(text)


def _score_by_the_patterns(text: str) -> float:
    """:func:`score_line` as it reads without its first looks."""
    if not text or locator._FRAMING.match(text):
        return 0.0
    score = 4.0 * (locator._STRONG.search(text) is not None) + 2.0 * (locator._MEDIUM.search(text) is not None)
    if not score:
        return 0.0
    score += 1.0 if locator._LOCATION.search(text) else 0.0
    score -= 4.0 if locator._PASSING.search(text) else 0.0
    return max(score, 0.0)


def _patterns(text: str) -> tuple[bool, bool, bool]:
    patterns = (locator._STRONG, locator._MEDIUM, locator._SUMMARY)
    return tuple(pattern.search(text) is not None for pattern in patterns)  # type: ignore[return-value]


def test_the_first_looks_change_no_score_of_any_corpus_line() -> None:
    """A line the cheap first looks pass over matches neither vocabulary pattern (the scores stay the same)."""
    for text in _corpus_lines():
        assert _first_looks(text) == _patterns(text), text
        assert score_line(text) == _score_by_the_patterns(text), text


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        st.from_regex(locator._STRONG),
        st.from_regex(locator._MEDIUM),
        st.from_regex(locator._SUMMARY),
        st.text(alphabet=st.sampled_from("errorEFAILfatal -./_1✗[]!NotFoundCANNOTſKİıéÉ٣✓'TestsRan:,")),
    ),
    st.text(alphabet=st.sampled_from(" a-./_1Z")),
)
def test_every_vocabulary_match_passes_the_first_looks(text: str, prefix: str) -> None:
    for variant in (text, prefix + text, text + prefix, (prefix + text).upper(), (prefix + text).lower()):
        line = variant.replace("\n", " ")
        assert _first_looks(line) == _patterns(line), line
        assert score_line(line) == _score_by_the_patterns(line), line


def test_only_the_folds_match_or_lowercase_to_ascii_letters() -> None:
    """The locator's first looks take a line's runs of ASCII letters for its words unless it holds one of these."""
    letter = re.compile(r"(?i)[a-z]")
    others = [chr(point) for point in range(0x80, sys.maxunicode + 1)]
    matched = {char for char in others if letter.match(char)}
    lowered = {char for char in others if any(c in string.ascii_letters for c in char.lower())}
    assert matched | lowered == locator._FOLDS
