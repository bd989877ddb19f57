"""The machine-readable verdict of the check run (DESIGN §5, contract; ``docs/verdict.md``).

A merge bot or an agent reads the ``Gauntlet`` check run and finds one fenced ```` ```json ```` block: the
conclusion and each failing finding with its place and whose it is (``provenance``). The block is the check
run's ``output.text`` (where the contract puts it) and also ends its ``output.summary``, after the report
people read, so a reader of either field finds it last. The block is built here, not in a template, so it
is always valid JSON; it always fits GitHub's 65,535 characters: findings past what fits are left out and
counted in ``trimmed``, and the human part is cut before the block is.

Untrusted text in it (messages, paths, test ids) is redacted, and the characters that could end the fence or
ping someone (a backtick, ``@``) or read as HTML are written as JSON escapes: the same value for a JSON
reader, inert for Markdown.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from gauntlet.effects.models import SetCheck
from gauntlet.effects.views import RunView
from gauntlet.state.pr import FindingRecord
from gauntlet.untrusted import redact
from gauntlet.vocabulary import ProvenanceWord

__all__ = [
    "CHECK_SUMMARY_CHARS",
    "VERDICT_VERSION",
    "Verdict",
    "VerdictFinding",
    "verdict_block",
    "verdict_of",
    "verdict_schema",
    "with_verdict",
]

#: GitHub's limit on a check run's ``output.summary``.
CHECK_SUMMARY_CHARS = 65_535
VERDICT_VERSION = 1
#: What a finding's message keeps in the verdict (the report above holds the rest).
MESSAGE_CHARS = 300
_TRIMMED_NOTE = "\n\n…(report cut to fit GitHub's limit; the verdict below is complete or says what it left out)"
#: The severities each ``fail_on`` fails the check on (of the two a verdict lists).
_FAILS_ON = {"criticals": ("critical",), "majors": ("critical", "major"), "minors": ("critical", "major")}
_INERT = str.maketrans({"`": "\\u0060", "@": "\\u0040", "<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


class VerdictFinding(BaseModel):
    """One failing finding: what and where, and whose it is."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    fingerprint: str
    kind: str
    severity: Literal["critical", "major"]
    path: str | None = None
    line: int | None = None
    test_id: str | None = None
    #: Whose failure it is (DESIGN §3); ``null`` for findings that have none (lint and review findings).
    provenance: ProvenanceWord | None = None
    #: For ``known``: the number of the known-failure issue whose rule it matched (``docs/known-failures.md``).
    known_issue: int | None = None
    #: True when it counts toward the check's conclusion (``fail_on`` and ``block_on``).
    blocks: bool
    message: str


class Verdict(BaseModel):
    """The check's verdict as data: ``conclusion`` agrees with the check run's."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    gauntlet_verdict: int = VERDICT_VERSION
    conclusion: Literal["success", "failure", "neutral"]
    head_sha: str
    pr: int | None = None
    #: Failing findings per provenance word (the ones without a provenance under ``none``).
    counts: dict[str, int]
    findings: list[VerdictFinding]
    #: Failing findings left out to fit GitHub's limit (``findings`` holds the first ones, blocking first).
    trimmed: int = 0


def verdict_schema() -> dict[str, Any]:
    """The JSON Schema of the verdict, as ``schema/verdict.schema.json`` publishes it."""
    schema = Verdict.model_json_schema()
    schema["$id"] = "https://github.com/your-org/gauntlet/schema/verdict.schema.json"
    schema["title"] = "Gauntlet check verdict"
    return schema


def verdict_of(effect: SetCheck) -> Verdict:
    """The verdict of a check effect: every critical or major finding still open, blocking ones first."""
    view = effect.view
    judged = {b.finding.fingerprint: b for b in view.blamed}
    accepted = {risk.fingerprint for risk in view.accepted}
    failing_severities = _FAILS_ON.get(view.fail_on, ())
    findings = []
    for record in _failing(view):
        blamed = judged.get(record.fingerprint)
        blocks = (
            record.severity in failing_severities
            and record.fingerprint not in accepted
            and (blamed is None or blamed.blocks)
        )
        findings.append(
            VerdictFinding(
                fingerprint=record.fingerprint,
                kind=record.kind,
                severity="critical" if record.severity == "critical" else "major",
                path=_clean(record.path),
                line=record.line,
                test_id=_clean(record.test_id),
                provenance=blamed.provenance if blamed is not None else None,
                known_issue=blamed.issue if blamed is not None else None,
                blocks=blocks,
                message=redact(record.message.replace("\n", " "))[:MESSAGE_CHARS],
            )
        )
    findings.sort(key=lambda f: not f.blocks)
    counts: dict[str, int] = {}
    for finding in findings:
        word = finding.provenance or "none"
        counts[word] = counts.get(word, 0) + 1
    return Verdict(conclusion=effect.conclusion, head_sha=effect.head_sha, pr=view.pr, counts=counts, findings=findings)


def verdict_block(effect: SetCheck, limit: int = CHECK_SUMMARY_CHARS) -> str:
    """The fenced verdict of ``effect``, keeping as many findings as fit in half of ``limit``.

    Findings left out are counted in ``trimmed``; the head (conclusion, counts) is always whole.
    """
    verdict = verdict_of(effect)
    block = _fenced(verdict)
    keep = len(verdict.findings)
    while len(block) > limit // 2 and keep > 0:
        keep //= 2
        shown = verdict.findings[:keep]
        block = _fenced(verdict.model_copy(update={"findings": shown, "trimmed": len(verdict.findings) - keep}))
    return block


def with_verdict(report: str, effect: SetCheck, limit: int = CHECK_SUMMARY_CHARS) -> str:
    """``report`` followed by the fenced verdict, within ``limit`` characters (the report cut, saying so)."""
    block = verdict_block(effect, limit)
    room = limit - len(block)
    if len(report) > room:
        report = report[: max(room - len(_TRIMMED_NOTE), 0)] + _TRIMMED_NOTE
    return report + block


def _fenced(verdict: Verdict) -> str:
    text = json.dumps(verdict.model_dump(mode="json"), ensure_ascii=False, sort_keys=True, indent=1)
    return "\n\n```json\n" + text.translate(_INERT) + "\n```\n"


def _failing(view: RunView) -> list[FindingRecord]:
    seen: set[str] = set()
    failing = []
    for record in (*view.new, *view.still_open):
        if record.severity in ("critical", "major") and record.fingerprint not in seen:
            seen.add(record.fingerprint)
            failing.append(record)
    return failing


def _clean(text: str | None) -> str | None:
    return redact(text) if text else text
