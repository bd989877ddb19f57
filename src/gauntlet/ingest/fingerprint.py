"""Stable fingerprints: the same defect gets the same id across reruns and line shifts.

Like Sentry's grouping, volatile parts (addresses, numbers, temporary paths,
durations, ports) are parameterised before hashing, so only what names the defect
counts: tool, kind, location without its line, test id, rule, normalised message.
"""

from __future__ import annotations

import hashlib
import re

__all__ = ["make_fingerprint", "normalise_message"]

_VOLATILE = [
    (re.compile(r"0x[0-9a-fA-F]+"), "<hex>"),
    (re.compile(r"\b[0-9a-f]{7,40}\b"), "<sha>"),
    (
        re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"),
        "<uuid>",
    ),
    (re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?"), "<time>"),
    (re.compile(r"(?:/tmp|/var/folders|/private/var)/[^\s:'\"]*"), "<tmp>"),
    (re.compile(r"\b\d+(?:\.\d+)?\s*(?:ms|s|sec|seconds|m|min)\b"), "<duration>"),
    (re.compile(r"(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\]):\d+"), "<host:port>"),
    (re.compile(r"\d+"), "<n>"),
]


def normalise_message(message: str) -> str:
    """Replace the volatile parts of a message with placeholders."""
    text = message.strip()
    for pattern, placeholder in _VOLATILE:
        text = pattern.sub(placeholder, text)
    return " ".join(text.split())


def make_fingerprint(*parts: str | None) -> str:
    """Hash the identifying parts of a finding into a 16-hex-digit fingerprint.

    Pass the parts that name the defect (tool, kind, path, test id, rule, message);
    ``None`` parts are skipped. Messages should go through :func:`normalise_message`.
    """
    joined = "\x1f".join(p for p in parts if p)
    return hashlib.sha256(joined.encode("utf-8", "replace")).hexdigest()[:16]
