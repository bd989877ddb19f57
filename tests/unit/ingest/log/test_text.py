"""Line cleaning and repository-relative paths."""

from __future__ import annotations

import pytest

from gauntlet.ingest.log.text import clean_line, repo_path


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        (b"2026-11-29T12:00:01.1234567Z error: boom\n", "error: boom"),
        (b"\x1b[31m\x1b[1merror\x1b[0m: boom\r\n", "error: boom"),
        (b"  10% [==>    ]\r  55% [=====> ]\r100% done\n", "100% done"),
        (b"#8 1.234 npm ERR! code E404\n", "npm ERR! code E404"),
        (b"bad \xff\xfe bytes \x00 here", "bad \ufffd\ufffd bytes  here"),
        ("\ufeff2026-11-29T12:00:01Z ok".encode(), "ok"),
        (b"2023-11-02T08:22:34.112986Z 01E error: x", "error: x"),  # GitLab, with its stream tag
        (b"[12:34:56] FAILED x", "FAILED x"),  # Jenkins timestamper
        (b"12:30 meeting", "12:30 meeting"),
    ],
)
def test_clean_line(raw: bytes, text: str) -> None:
    assert clean_line(raw) == text


@pytest.mark.parametrize(
    ("path", "relative"),
    [
        ("/home/runner/work/repo/repo/src/a.py", "src/a.py"),
        ("/__w/repo/repo/src/a.py", "src/a.py"),
        ("D:\\a\\repo\\repo\\src\\a.py", "src/a.py"),
        ("/github/workspace/lib/x.c", "lib/x.c"),
        ("file:///home/runner/work/repo/repo/test/x.mjs", "test/x.mjs"),
        ("./src/a.py", "src/a.py"),
        ("src/a.py", "src/a.py"),
        (None, None),
    ],
)
def test_repo_path(path: str | None, relative: str | None) -> None:
    assert repo_path(path) == relative


def test_a_line_redrawn_above_by_a_spec_reporter_leaves_what_the_terminal_shows() -> None:
    # faucet on a terminal: cursor up, the test's verdict redrawn, cursor down, back to the start of the line
    redrawn = b"\x1b[2A\x1b[1G\x1b[1m\x1b[31m\xe2\xa8\xaf total sums the prices\x1b[0m\x1b[2B\x1b[1G    ---"
    assert clean_line(redrawn) == "    ---"
    overwritten = b"  ok 1 equal\x1b[K\x1b[1A\x1b[1G\xe2\x9c\x93 empty cart\x1b[1B\x1b[1G# total\x1b[K"
    assert clean_line(overwritten) == "# total"
