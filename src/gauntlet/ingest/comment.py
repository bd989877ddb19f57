"""PR comments and review comments that state a severity become findings; the rest is conversation.

A comment counts when its first line says how bad it is:

- a severity word and a colon: ``critical: ...``, ``**major**: ...``, ``nit: ...``;
- a bracketed severity: ``[major] ...``, ``[nit] ...``;
- a Conventional Comments label (https://conventionalcomments.org/):
  ``issue (blocking): ...``, ``suggestion (non-blocking): ...``, ``nitpick: ...``;
  ``praise``, ``question``, ``thought`` and ``note`` are conversation unless ``blocking``;
- the markers review bots put on their comments: Gauntlet's own ``**[major]**``,
  CodeRabbit's ``⚠️ Potential issue`` / ``🛠️ Refactor suggestion`` / ``🧹 Nitpick``,
  and ``P0``..``P3`` badges.

The commented line is the location. Comments carrying a Gauntlet marker
(``<!-- gauntlet:key=... -->``) are Gauntlet's own reports and never findings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, BinaryIO

from gauntlet.errors import InputError
from gauntlet.ingest.jsondoc import load_json
from gauntlet.ingest.limits import DEFAULT_LIMITS, Limits
from gauntlet.ingest.paths import repo_relative
from gauntlet.ingest.structured import Fingerprints, excerpt, logger, one_line
from gauntlet.ingest.values import as_text
from gauntlet.models import Finding, Kind, Severity
from gauntlet.vocabulary import MARKER_PATTERN

__all__ = ["parse_comment", "read_comments", "stated_severity"]

_WORDS: dict[str, Severity] = {
    "critical": "critical",
    "blocker": "critical",
    "major": "major",
    "high": "major",
    "minor": "minor",
    "medium": "minor",
    "low": "nitpick",
    "nit": "nitpick",
    "nitpick": "nitpick",
}
# Conventional Comments labels: their severity without decoration, and whether ``blocking`` makes them major.
_LABELS: dict[str, Severity | None] = {
    "issue": "major",
    "todo": "minor",
    "chore": "minor",
    "suggestion": "minor",
    "nitpick": "nitpick",
    "typo": "nitpick",
    "polish": "nitpick",
    "quibble": "nitpick",
    "praise": None,
    "question": None,
    "thought": None,
    "note": None,
}
_BADGES: dict[str, Severity] = {"0": "critical", "1": "major", "2": "minor", "3": "nitpick"}
_MARKERS: list[tuple[re.Pattern[str], Severity]] = [
    (re.compile(r"⚠️?\s*_?\s*Potential issue", re.IGNORECASE), "major"),
    (re.compile(r"🛠️?\s*_?\s*Refactor suggestion", re.IGNORECASE), "minor"),
    (re.compile(r"🧹\s*_?\s*Nitpick", re.IGNORECASE), "nitpick"),
]
_SEVERITY_WORD = "|".join(_WORDS)
_LABEL_WORD = "|".join(_LABELS)
_DECORATED = re.compile(rf"^(?P<label>{_LABEL_WORD})\s*(?:\((?P<decorations>[^)]*)\))?\s*:\s*(?P<rest>.*)$", re.I)
_PLAIN = re.compile(rf"^(?P<word>{_SEVERITY_WORD})\s*:\s*(?P<rest>.*)$", re.I)
_BRACKET = re.compile(rf"^\[(?P<word>{_SEVERITY_WORD})\]\s*:?\s*(?P<rest>.*)$", re.I)
_BADGE = re.compile(r"!\[P(?P<level>[0-3])\b[^\]]*\]\([^)]*\)|^\[?P(?P<bare>[0-3])\]?\s*:")
_EMPHASIS = re.compile(r"[*_`~]+|</?(?:sub|sup|b|strong|em|i|code)>", re.IGNORECASE)
_CWE = re.compile(r"\bCWE-(\d{1,5})\b", re.IGNORECASE)


def stated_severity(body: str) -> tuple[Severity, str, str | None] | None:
    """Return ``(severity, subject, category)`` when the comment's first line states a severity, else ``None``.

    :param body: the comment's Markdown body.
    """
    for raw in body.splitlines():
        line = raw.strip()
        if not line or line.startswith(">"):  # quoted text is someone else's words
            continue
        return _first_line_severity(line, body)
    return None


def _first_line_severity(line: str, body: str) -> tuple[Severity, str, str | None] | None:
    badge = _BADGE.search(line)
    if badge:
        level = badge.group("level") or badge.group("bare")
        return _BADGES[level], _subject(_BADGE.sub("", line), body), None
    for pattern, severity in _MARKERS:
        if pattern.search(line):
            return severity, _subject(pattern.sub("", _EMPHASIS.sub("", line)), body), None
    plain = _EMPHASIS.sub("", line).strip()
    decorated = _DECORATED.match(plain)
    if decorated:
        return _conventional(decorated, body)
    match = _PLAIN.match(plain) or _BRACKET.match(plain)
    if match:
        return _WORDS[match.group("word").lower()], _subject(match.group("rest"), body), None
    return None


def _conventional(match: re.Match[str], body: str) -> tuple[Severity, str, str | None] | None:
    label = match.group("label").lower()
    decorations = {d.strip().lower() for d in (match.group("decorations") or "").split(",") if d.strip()}
    severity = _LABELS[label]
    if "blocking" in decorations:
        severity = "major"
    elif "non-blocking" in decorations and severity == "major":
        severity = "minor"
    if severity is None:
        return None
    category = "security" if "security" in decorations else None
    return severity, _subject(match.group("rest"), body), category


def _subject(rest: str, body: str) -> str:
    subject = _EMPHASIS.sub("", rest).strip(" :-—")
    if subject:
        return subject
    # "**issue (blocking):**" alone on its line: the subject is the next line.
    lines = [line.strip() for line in body.splitlines() if line.strip() and not line.strip().startswith(">")]
    return _EMPHASIS.sub("", lines[1]).strip() if len(lines) > 1 else ""


def parse_comment(
    body: str,
    *,
    path: str | None = None,
    line: int | None = None,
    author: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
    fingerprints: Fingerprints | None = None,
) -> Finding | None:
    """Turn a PR comment or review comment into a finding when it states its severity.

    :param body: the comment's Markdown body (untrusted).
    :param path: the commented file of a review comment, repository-relative.
    :param line: the commented line.
    :param author: the commenter's login.
    :returns: the finding, or ``None`` for conversation.
    """
    if MARKER_PATTERN.search(body):
        return None
    stated = stated_severity(body[:65_536])
    if stated is None:
        return None
    severity, subject, category = stated
    message = one_line(subject or "review comment", limits)
    cwe = _CWE.search(body)
    kind: Kind = "security" if category == "security" or cwe else "review"
    where = repo_relative(path)
    fps = fingerprints or Fingerprints()
    return Finding(
        fingerprint=fps("comment", kind, where, message=message),
        source="comment",
        tool=(author or "").lower()[:64] or None,
        kind=kind,
        severity=severity,
        path=where,
        line=line if where and line and 0 < line < 2**31 else None,
        rule=f"CWE-{cwe.group(1)}" if cwe else None,
        message=message,
        excerpt=excerpt(body, limits),
        category=category,
    )


def read_comments(stream: BinaryIO, name: str, limits: Limits) -> Iterator[Finding]:
    """Read a JSON list of GitHub comments (issue or review comments, REST shape) and yield their findings.

    Each item needs ``body``; review comments add ``path`` and ``line`` (``original_line``
    for outdated ones) and ``user.login``.
    https://docs.github.com/en/rest/pulls/comments#list-review-comments-on-a-pull-request

    :raises InputError: not JSON, not a list of comment objects, or beyond the size limits.
    """
    document = load_json(
        stream, name, max_bytes=limits.max_document_bytes, max_items=max(4 * limits.max_findings, 10_000)
    )
    if isinstance(document, dict) and isinstance(document.get("comments"), list):
        document = document["comments"]
    if not isinstance(document, list):
        raise InputError(f"{name}: expected a JSON list of comments")
    fingerprints = Fingerprints()
    emitted = 0
    for index, item in enumerate(document):
        if not isinstance(item, dict) or not isinstance(item.get("body"), str):
            raise InputError(f"{name}: comment {index}: expected an object with a string body")
        finding = parse_comment(
            item["body"],
            path=as_text(item.get("path")),
            line=_int(item.get("line")) or _int(item.get("original_line")),
            author=as_text(_dict(item.get("user")).get("login")),
            limits=limits,
            fingerprints=fingerprints,
        )
        if finding is None:
            continue
        yield finding
        emitted += 1
        if emitted >= limits.max_findings:
            logger.warning("%s: stopped after %d findings", name, emitted)
            return


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
