"""TAP 13 and 14 (https://testanything.org/tap-version-14-specification.html): one finding per ``not ok``.

Read line by line (a TAP stream can be long). A ``not ok`` is a failure unless
its directive is ``# TODO`` or ``# SKIP``; its YAML diagnostic block (between
``---`` and ``...``, indented under it) gives the message (``message``, ``error``)
and the location (``at``, ``location``, ``stack``), as node:test and node-tap
write them. Subtests are indented four spaces (TAP 14; node:test announces them
with ``# Subtest: name``); a parent whose only fault is that its subtests failed
is not a finding of its own. ``Bail out!`` ends the stream as a failure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, BinaryIO

import yaml

from gauntlet.ingest.limits import Limits
from gauntlet.ingest.testreport import FailedTest, failed_tests
from gauntlet.ingest.values import as_text, json_position
from gauntlet.models import Finding

__all__ = ["read_tap"]

_TEST = re.compile(r"^(?P<indent>\s*)(?P<status>not ok|ok)\b\s*(?P<number>\d+)?\s*(?:-\s*)?(?P<rest>.*)$")
_DIRECTIVE = re.compile(r"\s+#\s*(?P<word>TODO|SKIP)\S*\b.*$", re.IGNORECASE)
_SUBTEST = re.compile(r"^\s*# Subtest:\s*(?P<name>.*)$")
_BAIL = re.compile(r"^\s*Bail out!\s*(?P<reason>.*)$")
_MAX_YAML_LINES = 400
_MAX_YAML_CHARS = 64 * 1024
# libyaml's safe loader where PyYAML was built with it (the pure-Python one is ~10x slower).
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# A parent fails when a subtest did; node:test says so in its diagnostics.
_ONLY_SUBTESTS = frozenset({"subtestsFailed"})


def read_tap(stream: BinaryIO, name: str, limits: Limits, *, root: str | None = None) -> Iterator[Finding]:
    """Yield a finding per failing test point of a TAP stream.

    :param root: the repository's absolute path, to make absolute locations relative.
    """
    yield from failed_tests(_failures(stream, limits), source="tap", tool=None, name=name, root=root, limits=limits)


def _failures(stream: BinaryIO, limits: Limits) -> Iterator[FailedTest | None]:
    lines = _Lines(stream, limits)
    subtest_names: list[str] = []  # "# Subtest: name" of each open depth
    child_failed: dict[int, bool] = {}  # a test point at this depth failed since its parent's last point
    for line in lines:
        bail = _BAIL.match(line)
        if bail:
            yield FailedTest(test_id="Bail out!", message=f"Bail out! {bail.group('reason')}".strip())
            return
        subtest = _SUBTEST.match(line)
        if subtest:
            depth = _depth(line)
            del subtest_names[depth:]
            subtest_names.append(subtest.group("name").strip())
            continue
        test = _TEST.match(line)
        if test is None:
            continue
        depth = _depth(line)
        children_failed = child_failed.pop(depth + 1, False)
        description = _DIRECTIVE.sub("", test.group("rest")).strip()
        test_id = " > ".join([*subtest_names[:depth], description or f"test {test.group('number') or '?'}"])
        del subtest_names[depth:]
        following = lines.peek()
        diagnostics = _yaml_block(next(lines), lines) if following is not None and following.strip() == "---" else {}
        if test.group("status") == "not ok" and _DIRECTIVE.search(test.group("rest")) is None:
            child_failed[depth] = True
            yield _failure(test_id, description, diagnostics, children_failed)


class _Lines:
    """The stream's lines as text, each cut to ``max_line_bytes``, with one line of look-ahead."""

    def __init__(self, stream: BinaryIO, limits: Limits) -> None:
        self._raw = iter(stream)
        self._limit = limits.max_line_bytes
        self._ahead: str | None = None

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        if self._ahead is not None:
            line, self._ahead = self._ahead, None
            return line
        raw = next(self._raw)
        return raw[: self._limit].decode("utf-8", "replace").rstrip("\r\n").removeprefix("\ufeff")

    def peek(self) -> str | None:
        """The next line without consuming it, ``None`` at the end."""
        if self._ahead is None:
            self._ahead = next(self, None)
        return self._ahead


def _failure(test_id: str, description: str, diagnostics: dict[str, Any], subtests_failed: bool) -> FailedTest | None:
    if subtests_failed and (diagnostics.get("failureType") in _ONLY_SUBTESTS or not diagnostics):
        return None  # the subtests that failed are the findings
    at = diagnostics.get("at")
    file, line = None, None
    if isinstance(at, dict):
        file, line = as_text(at.get("file")), json_position(at.get("line"))
    location = as_text(diagnostics.get("location"))
    if location and file is None:
        match = re.match(r"^(?P<file>.+?):(?P<line>\d+)(?::\d+)?$", location)
        if match:
            file, line = match.group("file"), json_position(int(match.group("line")))
    message = as_text(diagnostics.get("message")) or as_text(diagnostics.get("error"))
    error_name = as_text(diagnostics.get("name"))
    if message and error_name and not message.startswith(error_name):
        message = f"{error_name}: {message}"
    stack = diagnostics.get("stack")
    return FailedTest(
        test_id=test_id,
        file=file,
        line=line,
        message=message or description or "not ok",
        text=stack if isinstance(stack, str) else "",
    )


def _yaml_block(opening: str, lines: _Lines) -> dict[str, Any]:
    """Read the diagnostic block after its ``---`` line, through ``...``; junk YAML gives ``{}``."""
    indent = len(opening) - len(opening.lstrip())
    body: list[str] = []
    for line in lines:
        if line.strip() == "..." or len(body) >= _MAX_YAML_LINES:
            break
        body.append(line[indent:] if line[:indent].strip() == "" else line)
    try:
        value = yaml.load("\n".join(body)[:_MAX_YAML_CHARS], Loader=_YAML_LOADER)
    except yaml.YAMLError:
        return {}
    return value if isinstance(value, dict) else {}


def _depth(line: str) -> int:
    indent = line[: len(line) - len(line.lstrip())]
    return len(indent.expandtabs(4)) // 4
