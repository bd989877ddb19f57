"""Bounded parsing: absurd numbers become null, text stays encodable, paths stay in the repository, comments stay fast.

Also any bytes, in any format, give findings or a one-line error (exit 0 or 2), never a traceback.
"""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gauntlet.cli import main
from gauntlet.engine.commands import MAX_COMMENT_CHARS, parse_commands
from gauntlet.ingest.log import scan
from gauntlet.ingest.paths import repo_relative
from gauntlet.ingest.values import MAX_POSITION, json_position, position, xml_position
from gauntlet.untrusted import scrub

STAMP = b"2026-11-29T12:00:00.0000000Z "


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("12", 12), (" 7 ", 7), ("+3", 3), ("0", None), ("-1", None), ("9" * 5000, None), ("2147483648", None),
     ("2147483647", MAX_POSITION), ("²", None), ("٣", None), ("1e3", None), ("", None), (None, None), (2**40, None)],
)  # fmt: skip
def test_positions_are_plausible_line_numbers_or_none(raw: str | int | None, expected: int | None) -> None:
    assert position(raw) == expected
    if isinstance(raw, str) or raw is None:
        assert xml_position(raw) == expected


@pytest.mark.parametrize("value", [float("inf"), float("nan"), 1e300, -5, True, "3", 2**63])
def test_json_positions_refuse_what_is_no_line(value: object) -> None:
    assert json_position(value) is None


def test_scrub_leaves_text_that_encodes() -> None:
    assert scrub("a\ud800b\x00c\udfff") == "a\ufffdb\ufffdc\ufffd"
    assert scrub("plain") == "plain"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("C:/Users/runneradmin/app/x.py", None),
        ("C:\\Users\\runneradmin\\x.py", None),
        ("C:x.py", None),
        ("\\\\server\\share\\x.py", None),
        ("//server/share/x.py", None),
        ("~/.ssh/id_rsa", None),
        ("https://evil.example/x.py", None),
        ("src/../../../etc/passwd", None),
        ("src/\ud800.py", None),
        ("/home/runner/work/app/app/src/x.py", "src/x.py"),
        ("D:\\a\\app\\app\\src\\x.py", "src/x.py"),
        ("D:/a/app/app/src/x.py", "src/x.py"),
    ],
)
def test_paths_from_outside_the_workspace_are_dropped(raw: str, expected: str | None) -> None:
    assert repo_relative(raw) == expected


def test_log_line_numbers_past_the_int_limit_become_null() -> None:
    huge = b"9" * 5000
    lines = [b"src/app.c:" + huge + b":" + huge + b": error: boom", b"tests/test_a.py:" + huge + b": AssertionError"]
    log = b"".join(STAMP + line + b"\n" for line in [*lines, b"##[error]Process completed with exit code 1."])

    findings = list(scan(io.BytesIO(log)))

    assert findings
    assert all(f.line is None or f.line <= MAX_POSITION for f in findings)
    assert all(f.column is None or f.column <= MAX_POSITION for f in findings)


@pytest.mark.parametrize("word", ["a-", "a.", "a_", "a/", "a:", "ERROR:", "1:", "(", "found "])
def test_a_failed_steps_line_of_one_long_word_is_read_in_linear_time(word: str) -> None:
    # 64 KiB of one hyphenated word once took the dependency vocabulary's lock-file words minutes to search
    line = (word * (64 * 1024 // len(word))).encode()[: 64 * 1024 - 20]
    texts = (b"##[group]Run mix compile", b"##[endgroup]", line, b"** (Mix) " + line)  # a parser's whole line too
    log = b"".join(STAMP + text + b"\n" for text in texts)
    log += STAMP + b"##[error]Process completed with exit code 1.\n"
    started = time.perf_counter()
    list(scan(io.BytesIO(log)))
    assert time.perf_counter() - started < 3.0


def test_a_70000_character_command_comment_is_answered_fast_and_cut_at_githubs_limit() -> None:
    bodies = [
        "/gauntlet accept-risk " + "x" * 70_000,
        "/gauntlet accept-risk " + "ab " * 23_000,
        "/gauntlet accept-risk " + ",".join(["deadbeef"] * 8_000),
        "```\n" * 17_500,
        "/gauntlet help\n" * 5_000,
        "a" * MAX_COMMENT_CHARS + "\n/gauntlet status",
    ]
    for body in bodies:
        started = time.perf_counter()
        commands = parse_commands(body, [f"{i:016x}" for i in range(500)])
        assert time.perf_counter() - started < 0.5, body[:40]
        assert all(len(c.line) <= 300 for c in commands)
    assert parse_commands(bodies[-1]) == [], "a command past 65,536 characters was never in a comment"


def test_surrogates_and_nuls_in_a_command_never_reach_a_reply() -> None:
    (command,) = parse_commands("/gauntlet accept-risk all \ud800 reason \x00 here")
    command.line.encode("utf-8")
    command.reason.encode("utf-8")


def test_a_json_number_of_thousands_of_digits_is_read_as_null(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "review.json"
    path.write_text(
        '{"issues": [{"severity": "major", "description": "x", "location": "src/a.py:1", "line": '
        + "9" * 5000
        + ', "why_it_matters": "y: '
        + "8" * 5000
        + '"}]}'
    )

    assert main(["ingest", "--json", "--raw", str(path)]) == 0
    out, err = capsys.readouterr()
    (finding,) = [json.loads(line) for line in out.splitlines()]
    assert (finding["path"], finding["line"], finding["severity"]) == ("src/a.py", 1, "major")
    assert "Traceback" not in err


FORMATS = ["log", "sarif", "junit", "review", "rdjson", "checkstyle", "comment", "auto"]
SEEDS = [b"{", b"[", b"<?xml version='1.0'?><testsuite>", b'{"version":"2.1.0","runs":[', b"\x1b[31m", b"\xff\xfe"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(fmt=st.sampled_from(FORMATS), head=st.sampled_from(SEEDS), body=st.binary(max_size=400))
def test_any_bytes_in_any_format_give_findings_or_a_one_line_error(
    fmt: str, head: bytes, body: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "input"
    path.write_bytes(head + body)

    code = main(["ingest", "--json", "--format", fmt, str(path)])

    err = capsys.readouterr().err
    assert code in (0, 2), err
    assert "Traceback" not in err and (code == 0 or err.count("\n") == 1), err
