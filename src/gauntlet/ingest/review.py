"""Gauntlet review JSON (DESIGN §4): reviewer findings as a list or ``{"issues": [...]}``.

``rules_consulted`` (the rule ids a reviewer says it applied) is not trusted:
:func:`parse_review` keeps only ids among the known rules and reports the others
through the ``gauntlet.ingest`` logger and :attr:`ReviewDocument.unknown_rules`.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from gauntlet.errors import InputError
from gauntlet.ingest.jsondoc import load_json
from gauntlet.ingest.limits import Limits
from gauntlet.ingest.paths import repo_relative
from gauntlet.ingest.structured import Fingerprints, excerpt, logger, one_line
from gauntlet.ingest.values import position
from gauntlet.models import Finding, Severity

__all__ = ["ReviewDocument", "ReviewItem", "parse_review", "read_review"]

_SEVERITY_ALIASES: dict[str, Severity] = {
    "critical": "critical",
    "blocker": "critical",
    "major": "major",
    "high": "major",
    "minor": "minor",
    "medium": "minor",
    "nitpick": "nitpick",
    "nit": "nitpick",
    "low": "nitpick",
    "info": "nitpick",
}
_LOCATION = re.compile(r"^(?P<path>.+?)(?::|#L)(?P<line>\d+)(?:(?:-L?|:)(?P<end>\d+))?$")


class ReviewItem(BaseModel):
    """One reviewer finding; unknown extra keys are allowed and ignored."""

    model_config = ConfigDict(extra="ignore")

    reviewer: str | None = None
    severity: Severity
    category: str | None = None
    location: str | None = None
    description: str
    rule_learned: str | None = None
    why_it_matters: str | None = None
    cwe: str | None = None
    rules_consulted: list[str] = []

    @field_validator("severity", mode="before")
    @classmethod
    def _alias(cls, value: Any) -> Any:
        if isinstance(value, str):
            return _SEVERITY_ALIASES.get(value.strip().lower(), value)
        return value

    @field_validator("cwe", mode="before")
    @classmethod
    def _cwe(cls, value: Any) -> Any:
        # "CWE-89", "cwe-89", "89" and 89 all mean CWE-89.
        if isinstance(value, int) and not isinstance(value, bool):
            return f"CWE-{value}"
        if isinstance(value, str):
            match = re.fullmatch(r"\s*(?:cwe[-_ ]?)?(\d{1,5})\s*", value, re.IGNORECASE)
            return f"CWE-{match.group(1)}" if match else value.strip() or None
        return value


@dataclass(frozen=True, slots=True)
class ReviewDocument:
    """A parsed review: its findings, the consulted rules that are known, and the ids that are not."""

    findings: tuple[Finding, ...]
    rules_consulted: tuple[str, ...]
    unknown_rules: tuple[str, ...]


def read_review(stream: BinaryIO, name: str, limits: Limits) -> Iterator[Finding]:
    """Yield a finding per review item (the reader for ``--format review``).

    No rule catalogue is at hand here, so every ``rules_consulted`` id is unverified and dropped.

    :raises InputError: the document is not JSON or an item is not a valid review finding.
    """
    yield from parse_review(stream, name, limits, known_rules=None).findings


def parse_review(stream: BinaryIO, name: str, limits: Limits, *, known_rules: Collection[str] | None) -> ReviewDocument:
    """Parse a review document and check its ``rules_consulted`` against ``known_rules``.

    :param known_rules: the ids of the rules that exist (curated and learned); ``None``
        when unknown, which drops every consulted id.
    :raises InputError: the document is not JSON or an item is not a valid review finding.
    """
    document = load_json(
        stream, name, max_bytes=limits.max_document_bytes, max_items=max(4 * limits.max_findings, 10_000)
    )
    items = document.get("issues") if isinstance(document, dict) else document
    if not isinstance(items, list):
        raise InputError(f'{name}: expected a list of findings or {{"issues": [...]}}')
    fingerprints = Fingerprints()
    findings: list[Finding] = []
    consulted: dict[str, None] = {}
    unknown: dict[str, None] = {}
    for index, raw in enumerate(items[: limits.max_findings]):
        try:
            item = ReviewItem.model_validate(raw)
        except ValidationError as exc:
            problem = exc.errors()[0]
            where = ".".join(str(p) for p in problem["loc"])
            raise InputError(f"{name}: item {index}: {where}: {problem['msg']}") from exc
        findings.append(_to_finding(item, limits, fingerprints))
        for raw_id in item.rules_consulted[:100]:
            rule_id = raw_id.strip()[:200]
            if known_rules is not None and rule_id in known_rules:
                consulted[rule_id] = None
            elif rule_id:
                unknown[rule_id] = None
    if unknown and known_rules is None:
        logger.info("%s: rules_consulted: %d id(s) not verified (no rule catalogue), dropped", name, len(unknown))
    elif unknown:
        shown = ", ".join(sorted(unknown)[:10])
        logger.warning("%s: rules_consulted: dropped %d unknown rule id(s): %s", name, len(unknown), shown)
    return ReviewDocument(tuple(findings), tuple(consulted), tuple(unknown))


def _to_finding(item: ReviewItem, limits: Limits, fps: Fingerprints) -> Finding:
    path, line, end_line = _split_location(item.location)
    message = one_line(item.description, limits)
    kind = "security" if item.cwe or (item.category or "").lower() == "security" else "review"
    category = item.category.strip().lower()[:64] if item.category else None
    return Finding(
        fingerprint=fps("review", category, path, message=message),
        source="review",
        tool=(item.reviewer or "review").strip().lower()[:64] or "review",
        kind=kind,
        severity=item.severity,
        path=path,
        line=line,
        end_line=end_line,
        rule=item.cwe,
        message=message,
        excerpt=excerpt(item.why_it_matters, limits),
        category=category,
        rule_learned=one_line(item.rule_learned, limits) or None if item.rule_learned else None,
    )


def _split_location(location: str | None) -> tuple[str | None, int | None, int | None]:
    """``path:12``, ``path:12-14``, ``path#L12-L14`` or a bare path; paths outside the repository are dropped."""
    if not location or not location.strip():
        return None, None, None
    match = _LOCATION.match(location.strip())
    if not match:
        return repo_relative(location.strip()), None, None
    path = repo_relative(match.group("path"))
    if path is None:
        return None, None, None
    return path, position(match.group("line")), position(match.group("end"))
