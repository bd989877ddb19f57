"""Gauntlet review JSON (DESIGN §4): reviewer findings as a list or ``{"issues": [...]}``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, BinaryIO

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from gauntlet.errors import InputError
from gauntlet.ingest.fingerprint import make_fingerprint, normalise_message
from gauntlet.ingest.limits import Limits
from gauntlet.ingest.redact import redact
from gauntlet.models import Finding, Severity

__all__ = ["ReviewItem", "read_review"]

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

    @field_validator("severity", mode="before")
    @classmethod
    def _alias(cls, value: Any) -> Any:
        if isinstance(value, str):
            return _SEVERITY_ALIASES.get(value.strip().lower(), value)
        return value


def read_review(stream: BinaryIO, name: str, limits: Limits) -> Iterator[Finding]:
    """Yield a finding per review item.

    :raises InputError: the document is not JSON or an item is not a valid review finding.
    """
    data = stream.read(limits.max_document_bytes + 1)
    if len(data) > limits.max_document_bytes:
        raise InputError(f"{name}: larger than {limits.max_document_bytes} bytes")
    try:
        document = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise InputError(f"{name}: not valid JSON: {exc}") from exc
    items = document.get("issues") if isinstance(document, dict) else document
    if not isinstance(items, list):
        raise InputError(f'{name}: expected a list of findings or {{"issues": [...]}}')
    for index, raw in enumerate(items[: limits.max_findings]):
        try:
            item = ReviewItem.model_validate(raw)
        except ValidationError as exc:
            problem = exc.errors()[0]
            where = ".".join(str(p) for p in problem["loc"])
            raise InputError(f"{name}: item {index}: {where}: {problem['msg']}") from exc
        yield _to_finding(item, limits)


def _to_finding(item: ReviewItem, limits: Limits) -> Finding:
    path, line = _split_location(item.location)
    message = redact(" ".join(item.description.split()))[: limits.max_message_chars]
    kind = "security" if item.cwe or (item.category or "").lower() == "security" else "review"
    return Finding(
        fingerprint=make_fingerprint("review", item.category, path, normalise_message(message)),
        source="review",
        tool=(item.reviewer or "review").lower()[:64],
        kind=kind,
        severity=item.severity,
        path=path,
        line=line,
        rule=item.cwe,
        message=message,
        excerpt=redact(item.why_it_matters or "")[: limits.max_excerpt_chars],
        category=item.category,
        rule_learned=redact(item.rule_learned) if item.rule_learned else None,
    )


def _split_location(location: str | None) -> tuple[str | None, int | None]:
    if not location:
        return None, None
    path, _, line = location.rpartition(":")
    if path and line.isdigit():
        return path, int(line)
    return location, None
