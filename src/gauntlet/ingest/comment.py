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
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, BinaryIO, cast

from gauntlet.errors import InputError
from gauntlet.ingest.jsondoc import load_json
from gauntlet.ingest.limits import DEFAULT_LIMITS, Limits
from gauntlet.ingest.paths import repo_relative
from gauntlet.ingest.structured import Fingerprints, excerpt, logger, one_line
from gauntlet.ingest.values import as_text
from gauntlet.models import SEVERITY_ORDER, Finding, Kind, ReviewLabel, Severity

__all__ = [
    "DEFAULT_SEVERITY",
    "Stated",
    "parse_comment",
    "read_comments",
    "severity_of",
    "stated_label",
    "stated_severity",
]

#: The documented table (docs/formats-and-configuration.md, "Review severity"); ``None``: conversation.
#: ``blocking`` raises any label to its value, ``non-blocking`` caps one at its value.
DEFAULT_SEVERITY: Mapping[ReviewLabel, Severity | None] = {
    # Conventional Comments (https://conventionalcomments.org/)
    "issue": "major",
    "suggestion": "minor",
    "todo": "minor",
    "chore": "minor",
    "nitpick": "nitpick",
    "typo": "nitpick",
    "polish": "nitpick",
    "quibble": "nitpick",
    "praise": None,
    "question": None,
    "thought": None,
    "note": None,
    "blocking": "major",
    "non-blocking": "minor",
    # severity words, alone or as a bot's heading, badge or bracket
    "critical": "critical",
    "blocker": "critical",
    "major": "major",
    "high": "major",
    "minor": "minor",
    "medium": "minor",
    "low": "nitpick",
    "nit": "nitpick",
    "trivial": "nitpick",
    # priority badges and CodeRabbit's markers
    "p0": "critical",
    "p1": "major",
    "p2": "minor",
    "p3": "nitpick",
    "potential_issue": "major",
    "refactor_suggestion": "minor",
    # pull request reviews only: a comment without a label, a change request without one
    "unlabelled": "minor",
    "changes_requested": "major",
}
_CONVENTIONAL = "issue|suggestion|todo|chore|nitpick|typo|polish|quibble|praise|question|thought|note"
_SEVERITY_WORD = "critical|blocker|major|high|minor|medium|low|nitpick|nit|trivial"
_MARKERS: list[tuple[re.Pattern[str], ReviewLabel]] = [
    (re.compile(r"⚠️?\s*_?\s*Potential issue", re.IGNORECASE), "potential_issue"),
    (re.compile(r"🛠️?\s*_?\s*Refactor suggestion", re.IGNORECASE), "refactor_suggestion"),
    (re.compile(r"🧹\s*_?\s*Nitpick", re.IGNORECASE), "nitpick"),
]
_DECORATED = re.compile(rf"^(?P<label>{_CONVENTIONAL})\s*(?:\((?P<decorations>[^)]*)\))?\s*:\s*(?P<rest>.*)$", re.I)
_PLAIN = re.compile(rf"^(?P<word>{_SEVERITY_WORD})\s*:\s*(?P<rest>.*)$", re.I)
_BRACKET = re.compile(rf"^\[(?P<word>{_SEVERITY_WORD})\]\s*:?\s*(?P<rest>.*)$", re.I)
# A bot's heading: "**Critical**", "### High", "**High:** ..." at the start of the line.
_HEADING = re.compile(
    rf"^(?:#+\s*|(?P<mark>\*\*|__))(?P<word>{_SEVERITY_WORD})\b(?(mark)\s*:?\s*(?P=mark)|)\s*:?\s*", re.I
)
# Coloured severities ("_🟠 Major_", CodeRabbit) and image badges ("![high](…high-priority.svg)", Gemini).
_COLOURED = re.compile(rf"[🔴🟠🟡🟢🔵🟣⚪⚫]\s*_?\s*(?P<word>{_SEVERITY_WORD})(?![a-z])", re.I)
_IMAGE = re.compile(rf"!\[(?P<word>{_SEVERITY_WORD})\]\([^)]*\)", re.I)
_BADGE = re.compile(r"!\[P(?P<level>[0-3])\b[^\]]*\]\([^)]*\)|^\[?P(?P<bare>[0-3])\]?\s*:")
# Underscores only at a word's edge: "_Potential issue_" is emphasis, "sum_of" is a name.
_EMPHASIS = re.compile(r"[*`~]+|(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])|</?(?:sub|sup|b|strong|em|i|code)>", re.I)
_GAUNTLET_MARKER = "<!-- gauntlet:key="
_CWE = re.compile(r"\bCWE-(\d{1,5})\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Stated:
    """What a comment's first line says about itself: its label, decorations and the subject after it."""

    label: ReviewLabel
    subject: str
    decorations: frozenset[str] = frozenset()

    @property
    def category(self) -> str | None:
        """``security`` for ``issue (security): ...``, else ``None``."""
        return "security" if "security" in self.decorations else None


def stated_label(body: str) -> Stated | None:
    """What the comment's first line (quotes skipped) says about its severity, or ``None`` when it says nothing.

    :param body: the comment's Markdown body.
    """
    for raw in body[:65_536].splitlines():
        line = raw.strip()
        if not line or line.startswith(">"):  # quoted text is someone else's words
            continue
        return _first_line(line, body)
    return None


def severity_of(stated: Stated, table: Mapping[ReviewLabel, Severity | None] = DEFAULT_SEVERITY) -> Severity | None:
    """The severity ``table`` gives a stated label; ``None`` for conversation.

    A ``blocking`` decoration raises the label to ``table["blocking"]`` (even ``question``), ``non-blocking``
    caps it at ``table["non-blocking"]``.
    """
    severity = table.get(stated.label)
    if "blocking" in stated.decorations:
        return table.get("blocking") or severity
    capped = table.get("non-blocking")
    if (
        "non-blocking" in stated.decorations
        and severity
        and capped
        and SEVERITY_ORDER[capped] < SEVERITY_ORDER[severity]
    ):
        return capped
    return severity


def stated_severity(body: str) -> tuple[Severity, str, str | None] | None:
    """Return ``(severity, subject, category)`` when the comment's first line states a severity, else ``None``.

    :param body: the comment's Markdown body.
    """
    stated = stated_label(body)
    severity = severity_of(stated) if stated else None
    if stated is None or severity is None:
        return None
    return severity, stated.subject, stated.category


def _first_line(line: str, body: str) -> Stated | None:
    badge = _BADGE.search(line)
    if badge:
        level = badge.group("level") or badge.group("bare")
        return Stated(_label(f"p{level}"), _subject(_BADGE.sub("", line), body))
    for pattern in (_COLOURED, _IMAGE):
        found = pattern.search(line)
        if found:
            # What comes before the badge is more chrome (CodeRabbit's category); the subject follows it.
            return Stated(_label(found.group("word")), _subject(line[found.end() :], body))
    for marker, label in _MARKERS:
        if marker.search(line):
            return Stated(label, _subject(marker.sub("", _EMPHASIS.sub("", line)), body))
    heading = _HEADING.match(line)
    if heading:
        return Stated(_label(heading.group("word")), _subject(line[heading.end() :], body))
    plain = _EMPHASIS.sub("", line).strip()
    decorated = _DECORATED.match(plain)
    if decorated:
        decorations = {d.strip().lower() for d in (decorated.group("decorations") or "").split(",") if d.strip()}
        return Stated(_label(decorated.group("label")), _subject(decorated.group("rest"), body), frozenset(decorations))
    match = _PLAIN.match(plain) or _BRACKET.match(plain)
    if match:
        return Stated(_label(match.group("word")), _subject(match.group("rest"), body))
    return None


def _label(word: str) -> ReviewLabel:
    label = word.lower()
    assert label in DEFAULT_SEVERITY, label  # every pattern only matches words of the table
    return cast(ReviewLabel, label)


def _subject(rest: str, body: str) -> str:
    subject = _EMPHASIS.sub("", rest).strip(" :-—|")
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
    if _GAUNTLET_MARKER in body:
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
