"""Stable fingerprints: the same defect gets the same id across reruns and line shifts.

Like Sentry's grouping (its message parameterisation), volatile parts are
replaced by placeholders before hashing, so only what names the defect counts:
tool, kind, location without its line, test id, rule, normalised message.
Volatile means anything a rerun changes without the code changing: timestamps,
temporary and workspace paths, memory addresses, ids and hashes, durations,
ports, seeds, pids, sizes and counts.
"""

from __future__ import annotations

import hashlib
import re

__all__ = ["make_fingerprint", "normalise_message", "normalise_path"]

# Order matters: the most specific shapes first (a UUID contains hex runs, a URL contains a port).
_VOLATILE = [
    (re.compile(r"\x1b\[[0-9;]*[A-Za-z]"), ""),
    (re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?"), "<time>"),
    (re.compile(r"\b\d\d:\d\d:\d\d(?:\.\d+)?\b"), "<time>"),
    (
        re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"),
        "<uuid>",
    ),
    # CI workspaces: the same file checked out under another runner or repository name.
    (
        re.compile(
            r"(?:file://)?(?:/home/runner/work/[^/\s]+/[^/\s]+/|/Users/runner/work/[^/\s]+/[^/\s]+/|"
            r"/__w/[^/\s]+/[^/\s]+/|/github/workspace/|[A-Za-z]:\\a\\[^\\\s]+\\[^\\\s]+\\|/builds/[^\s]+?/[^/\s]+/)"
        ),
        "",
    ),
    (
        re.compile(
            r"(?:/tmp|/var/folders|/private/var|/var/tmp|/dev/shm|/run/user/\d+)/[^\s:'\"()\[\],]*|"
            r"[A-Za-z]:\\Users\\[^\\\s]+\\AppData\\Local\\Temp\\[^\s:'\"()]*|\bpytest-of-\S+"
        ),
        "<tmp>",
    ),
    (re.compile(r"0x[0-9a-fA-F]+"), "<hex>"),
    (re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,64}\b"), "<sha>"),
    (re.compile(r"(?i)\b(?:seed|random[_-]?seed|randomly-seed|hash seed)\W{0,3}\d+"), "seed=<n>"),
    (re.compile(r"(?:localhost|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-fA-F:]+\]|::1?):\d+"), "<host:port>"),
    (re.compile(r"(?i)\bport\s*[=:]?\s*\d+"), "port <n>"),
    (re.compile(r"\b\d+(?:\.\d+)?\s*(?:ns|µs|us|ms|s|sec|secs|seconds|m|min|minutes|h)\b"), "<duration>"),
    (re.compile(r"\b\d+(?:\.\d+)?\s*(?:[KMGT]i?B|bytes|B)\b"), "<size>"),
    (re.compile(r"\d+"), "<n>"),
]


def normalise_message(message: str) -> str:
    """Replace the volatile parts of a message with placeholders."""
    text = message.strip()
    for pattern, placeholder in _VOLATILE:
        text = pattern.sub(placeholder, text)
    return " ".join(text.split())


_TEMPORARY_PATH = re.compile(
    r"^(?:/tmp|/private/var/folders/[^/]+/[^/]+/T)/pytest-of-[^/]+/pytest-\d+/[^/]+/|"
    r"^(?:/tmp|/var/folders|/private/var|/var/tmp|/dev/shm)/(?:[^/]+/)*?(?:tmp|pytest-|T/)[^/]*/|"
    r"^(?:/tmp|/var/tmp)/[^/]+/|^[A-Za-z]:[\\/]Users[\\/][^\\/]+[\\/]AppData[\\/]Local[\\/]Temp[\\/][^\\/]+[\\/]"
)


def normalise_path(path: str | None) -> str | None:
    """Drop a temporary directory prefix (``/tmp/tmpab12/x.c`` → ``<tmp>/x.c``); keep everything else."""
    if not path:
        return path
    return _TEMPORARY_PATH.sub("<tmp>/", path, count=1)


def make_fingerprint(*parts: str | None) -> str:
    """Hash the identifying parts of a finding into a 16-hex-digit fingerprint.

    Pass the parts that name the defect (tool, kind, path, test id, rule, message);
    ``None`` parts are skipped. Messages should go through :func:`normalise_message`.
    """
    joined = "\x1f".join(p for p in parts if p)
    return hashlib.sha256(joined.encode("utf-8", "replace")).hexdigest()[:16]
