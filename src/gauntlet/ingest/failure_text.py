"""What a test failure's text says: the line that tells what failed, and where it happened.

Test reports carry the failure as free text (a traceback, a stack, an
assertion diff). Two things are read from it, the same way for every report format:

- :func:`failure_message`: the text as one line when it fits, else the line
  that says what failed (pytest's ``E   AssertionError: 143 != 0``, an
  ``Error:``/``Exception:`` line, a panic, jest's ``expect(...)``), so a long
  traceback before it does not push it past the message limit.
- :func:`failure_location`: the innermost stack frame inside the repository
  (where the failure was raised: ``src/app/core.py:77``, not the test's own line
  ``tests/test_core.py:12`` that called it). Stacks that list the innermost frame
  first (JavaScript, Java, .NET, Go, Dart) take the first own frame; Python
  tracebacks, which list it last, take the last. Frames in installed packages
  (``site-packages``, ``node_modules``) or outside the checkout never count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gauntlet.ingest.paths import repo_relative
from gauntlet.ingest.values import xml_position

__all__ = ["ANSI", "FrameLocation", "before_stack", "failure_location", "failure_message", "strip_ansi"]

#: SGR and other CSI sequences, OSC hyperlinks and charset designations, as terminals get them; and the
#: ``[31m`` an XML writer leaves of a colour when it drops the escape character (not allowed in XML 1.0).
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][A-Z0-9]|\[(?:\d{1,3};)*\d{1,3}m")

_TEXT_LIMIT = 100_000
_PYTEST_E = re.compile(r"^E\s{2,}(?P<m>\S.*)$")
_SAYS_WHAT_FAILED = re.compile(
    r"^\s*(?P<m>(?:"
    r"(?:[\w$.]+\.)?[A-Z]\w*(?:Error|Exception|Failure|Failed|Panic)\b(?:\s*\[\w+\])?:?\s*\S.*"  # AssertionError: ...
    r"|Error(?:\s*\[\w+\])?:\s*\S.*"
    r"|panic:.*|thread '[^']*' panicked.*|fatal error:.*"
    r"|expect\(.*|Assert\.\w+\(?.*failed.*|Expected:?\s.*"
    r"))$"
)
# Every repetition is bounded: a hostile 100 KB line must not make a pattern backtrack quadratically.
_FRAME_PATTERNS = [
    # JavaScript/TypeScript: "at fn (path:12:5)", "at path:12:5", and node:test's "fn (path:12:5)"
    re.compile(r"\bat (?P<file>(?:file://)?[^\s():]+):(?P<line>\d+):(?P<col>\d+)"),
    re.compile(r"\((?P<file>(?:file://)?[^\s():]+):(?P<line>\d+):(?P<col>\d+)\)"),
    # Go goroutine traces: a tab, the absolute file and line, maybe "+0x1d"
    re.compile(r"^\t(?P<file>/\S+\.go):(?P<line>\d+)(?: \+0x[0-9a-f]+)?$", re.MULTILINE),
    # Java/Kotlin/Scala: "at pkg.Class.method(File.java:42)" has no directory: not a repository path.
    # Python traceback: File "path", line 12
    re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)'),
    # Dart: "test/sum_test.dart 12:5  main.<fn>"
    re.compile(r"^(?P<file>[^\s:]+\.dart) (?P<line>\d+):(?P<col>\d+)", re.MULTILINE),
    # pytest's short form "path:12: ZeroDivisionError", Go's "    calc_test.go:12: got 3", compilers' "path:12:5:"
    re.compile(r"(?:^|\s)(?P<file>[\w./\\-]+\.\w+):(?P<line>\d+)(?::(?P<col>\d+))?:", re.MULTILINE),
]
_STACK_START = re.compile(r"^\s+at \S", re.MULTILINE)
_NOT_OWN = re.compile(r"(?:^|/)(?:node_modules|site-packages|dist-packages)/|^node:|^internal/")
_INNERMOST_LAST = re.compile(r"Traceback \(most recent call last\)|^\S+\.py:\d+: ", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class FrameLocation:
    """A repository-relative file, line and (where the frame has one) column."""

    path: str
    line: int | None
    column: int | None = None


def strip_ansi(text: str) -> str:
    """Remove terminal escape sequences (mocha and jest colour their reports when they think a terminal listens)."""
    return ANSI.sub("", text)


def failure_message(text: str, limit: int) -> str:
    """One line saying what failed: the whole text when it fits in ``limit``, else its telling line.

    :param text: the failure message or body as the report gives it.
    :param limit: the message length cap (:attr:`Limits.max_message_chars`).
    """
    text = strip_ansi(text)
    whole = " ".join(text.split())
    if len(whole) <= limit:
        return whole
    lines = [line.rstrip() for line in text[:_TEXT_LIMIT].splitlines()]
    index = _telling_line(lines)
    picked = lines[index].strip()
    pytest = _PYTEST_E.match(lines[index])
    if pytest:
        picked = pytest.group("m")
    elif _SAYS_WHAT_FAILED.match(lines[index]):
        picked = _SAYS_WHAT_FAILED.match(lines[index]).group("m")  # type: ignore[union-attr]
    if picked.endswith(":"):  # "Expected values to be strictly equal:" says what only with the next line
        following = next((line.strip() for line in lines[index + 1 :] if line.strip()), "")
        picked = f"{picked} {following}".strip()
    return " ".join(picked.split())


def before_stack(text: str) -> str:
    """The text before its first ``at ...`` stack frame line: a JavaScript, Java or .NET error's message."""
    match = _STACK_START.search(text)
    return text[: match.start()] if match and match.start() > 0 else text


def _telling_line(lines: list[str]) -> int:
    for pattern in (_PYTEST_E, _SAYS_WHAT_FAILED):
        for index, line in enumerate(lines):
            if pattern.match(line):
                return index
    return next((i for i, line in enumerate(lines) if line.strip()), 0)


def failure_location(text: str, root: str | None) -> FrameLocation | None:
    """The innermost stack frame of ``text`` that lies in the repository, if any.

    :param text: a traceback, stack trace or assertion output.
    :param root: the repository's absolute path, to make absolute frame paths relative.
    """
    text = strip_ansi(text[:_TEXT_LIMIT])
    frames: list[tuple[int, FrameLocation]] = []
    for pattern in _FRAME_PATTERNS:
        for match in pattern.finditer(text):
            raw = match.group("file")
            if _NOT_OWN.search(raw.replace("\\", "/")):
                continue
            path = repo_relative(raw, root=root)
            if path is None or _NOT_OWN.search(path):
                continue
            column = match.groupdict().get("col")
            frames.append((match.start("file"), FrameLocation(path, xml_position(match.group("line")), _col(column))))
    frames.extend(_dotnet_frames(text, root))
    if not frames:
        return None
    frames.sort(key=lambda item: item[0])
    return frames[-1][1] if _INNERMOST_LAST.search(text) else frames[0][1]


_DOTNET_LINE = re.compile(r":line (\d+)")


def _dotnet_frames(text: str, root: str | None) -> list[tuple[int, FrameLocation]]:
    """.NET frames, ``at Ns.Class.Method() in C:\\src\\File.cs:line 42``: found from their ``:line N`` end.

    Looking back from the end for the `` in `` keeps this linear; a regex that searched forward from
    every `` in `` would backtrack across long lines.
    """
    frames: list[tuple[int, FrameLocation]] = []
    for match in _DOTNET_LINE.finditer(text):
        start = text.rfind(" in ", max(0, match.start() - 400), match.start())
        newline = text.rfind("\n", max(0, match.start() - 400), match.start())
        if start < 0 or newline > start:
            continue
        raw = text[start + 4 : match.start()]
        path = repo_relative(raw, root=root)
        if path is not None and not _NOT_OWN.search(path):
            frames.append((start + 4, FrameLocation(path, xml_position(match.group(1)))))
    return frames


def _col(value: str | None) -> int | None:
    return xml_position(value) if value else None
