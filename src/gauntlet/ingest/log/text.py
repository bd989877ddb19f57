"""Turning one raw log line into the text parsers read.

GitHub serves job logs with an ISO timestamp on every line, ANSI colours, ``\\r``
progress redraws and ``##[group]`` markers; BuildKit prefixes each line of a
``RUN`` step with ``#8 1.234``. Parsers should see what the tool printed, so all
of that is peeled off here, once, for the few lines the prefilter lets through.
"""

from __future__ import annotations

import re

__all__ = ["clean_line", "repo_path"]

# GitHub: ``2024-05-01T12:34:56.1234567Z `` (7 fractional digits); other CIs use fewer or none.
# GitLab's timestamped logs add a stream tag (``00O``, ``01E+``); Jenkins' timestamper may print only the time.
_TIMESTAMP = re.compile(
    r"^\ufeff?(?:\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?(?: \d\d[OE]\+?(?=\S| ))?"
    r"|\[\d\d:\d\d:\d\d(?:[.,]\d+)?\])(?: |$)?"
)
# CSI (colours, cursor moves), OSC (hyperlinks, titles), charset designations (``ESC ( B``), other escapes.
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[()*+][0-~]|[@-Z\\-_])")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# A spec reporter on a terminal redraws the line above (cursor up, its text, cursor down) and goes back to the start
# of its own (faucet's ``not ok 2 ...`` then ``ESC[2A ESC[1G ⨯ test ESC[2B ESC[1G    ---``).
_REDRAW = re.compile(r"\x1b\[\d{0,4}A.{0,400}?\x1b\[\d{0,4}B(?:\x1b\[1?G)?")
# A number this long is no line or column, and ``int()`` refuses 4,300 digits and more: parsers see its head.
_HUGE_NUMBER = re.compile(r"([0-9]{100})[0-9]+")
# BuildKit plain progress: ``#8 1.234 <output>``.
_BUILDKIT = re.compile(r"^#\d+ \d+\.\d+ ")


def clean_line(raw: bytes) -> str:
    """Decode a raw line and strip timestamps, ANSI codes, ``\\r`` redraws and control bytes."""
    text = raw.decode("utf-8", "replace").rstrip("\r\n")
    if text[27:29] == "Z " and text[10:11] == "T" and text[:4].isdigit():
        text = text[29:]  # GitHub's own stamp, on nearly every line it serves: no regex needed
    elif text[:1].isdigit() or text[:1] in ("[", "\ufeff"):
        text = _TIMESTAMP.sub("", text, count=1)
    if "\x1b" in text:
        if "\x1b[" in text and _REDRAW.search(text):
            text = _REDRAW.sub("\r", text)  # then the line is overwritten from its start, as after a \r
        text = _ANSI.sub("", text)
    if "\r" in text:
        # A progress bar redraws with \r: what the terminal finally showed is the last non-blank part.
        parts = [part for part in text.split("\r") if part.strip()]
        text = parts[-1] if parts else ""
    if not text.isprintable():
        text = _CONTROL.sub("", text)
    if len(text) > 100:
        text = _HUGE_NUMBER.sub(r"\1", text)
    if text[:1] == "#" and text[1:2].isdecimal():  # not on a runner's ``##[group]``, which is no BuildKit line
        text = _BUILDKIT.sub("", text, count=1)
    return text.rstrip()


# Where CI systems check the repository out; the rest of the path is repository-relative.
_WORKSPACES = re.compile(
    r"""^(?:file://)?(?:
        /home/runner/work/[^/]+/[^/]+/
      | /Users/runner/work/[^/]+/[^/]+/
      | /__w/[^/]+/[^/]+/
      | /github/workspace/
      | [A-Za-z]:[\\/]a[\\/][^\\/]+[\\/][^\\/]+[\\/]
      | /builds/(?:[^/]+/)+?[^/]+/(?=src/|lib/|tests?/|app/|pkg/|cmd/|spec/|include/)
      | /home/circleci/(?:project|repo)/
      | /home/travis/build/[^/]+/[^/]+/
      | /var/lib/jenkins/workspace/[^/]+/
      | /opt/atlassian/pipelines/agent/build/
      | /workspace/
      | /app/
      | /src/
    )""",
    re.VERBOSE,
)


def repo_path(path: str | None) -> str | None:
    """Make a path from a log repository-relative where a known CI workspace prefix shows it."""
    if not path:
        return None
    path = path.strip().strip("'\"`")
    path = _WORKSPACES.sub("", path, count=1)
    if path.startswith("file://"):
        path = path[len("file://") :]
    path = path.replace("\\", "/")
    # A build in a folder of the checkout (``build/``, meson's and CMake's) names the sources from there:
    # ``../src/a.c:3:5: error``, ``line: 15 ../tests/a_test.cpp``.
    while path.startswith(("./", "../")):
        path = path[path.index("/") + 1 :]
    return path[:500] or None
