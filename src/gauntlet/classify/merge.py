"""Cross-source merging: the same defect reported by two sources is one finding (DESIGN §4 ``sources``).

Theory of operation. Fingerprints are per source (a log line and a JUnit case
hash differently), so findings are matched on tool-agnostic **merge keys**:

- ``test``: the test id, lower-cased and split into its names at any separator
  (``/``, ``.``, ``::``, ``›``, ``>``, spaces) with file extensions dropped, so
  ``tests/test_x.py::TestA::test_b`` (pytest's log) and ``tests.test_x.TestA`` +
  ``test_b`` (its JUnit report) agree. One id may be a suffix of the other (a
  report written from another root directory) if at least two names agree.
- ``at``: path, line and rule (lower-cased): a ruff error in the log and in SARIF.
  When both sides have a column, the columns must agree within one (0- vs 1-based tools).
  Without a rule, path, line, tool and kind must all agree.

A finding joins the first earlier group that shares a key and does not already
hold a finding from the same source (so two identical warnings on one line pair
up one-to-one across sources instead of collapsing). Findings with the same
fingerprint are always one group.

The merged finding takes its fields from the most structured member (the test
reports, SARIF, checkstyle, rdjson, then the log, review, comment), fills what
that one lacks from the others, keeps the worst severity, lists every source in
``sources``, and keeps the fingerprint of the member that is most often present
(the log first), so it stays the same from run to run.

The location (path, line, end line, column) is taken whole from one member,
never pieced together from several (a path from one source and a line from
another would name a place no source gave): the most precise one, where a line
beats none, a line outside the test's own file (where the failure was raised,
``src/app/core.py:77``) beats the test file's line, and a column breaks ties.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from gauntlet.models import SEVERITY_ORDER, Finding, Source, evolve

__all__ = ["merge_findings", "merge_keys", "split_test_id"]

_TEST_REPORTS: tuple[Source, ...] = (
    "junit",
    "nunit",
    "xunit",
    "trx",
    "ctrf",
    "tap",
    "go-json",
    "mocha-json",
    "jest-json",
    "dart-json",
)
_DETAIL_ORDER: tuple[Source, ...] = (*_TEST_REPORTS, "sarif", "checkstyle", "rdjson", "log", "review", "comment")
_FINGERPRINT_ORDER: tuple[Source, ...] = ("log", *_TEST_REPORTS, "sarif", "rdjson", "checkstyle", "review", "comment")
_LOCATION = ("path", "line", "end_line", "column")
_TEST_FILE = re.compile(
    r"(?:^|/)(?:tests?|__tests__|spec)/|(?:^|/)test_[^/]*$|_test\.\w+$|\.(?:test|spec)\.\w+$|Tests?\.\w+$"
)
_FILLED = (
    "tool",
    "test_id",
    "rule",
    "job",
    "category",
    "rule_learned",
    "log_lines",
)
_SEPARATORS = re.compile(r"::|\s+[›>]\s+|[/\\.#]|\s+")
_EXTENSION = re.compile(r"\.(?:py|[cm]?[jt]sx?|go|rs|java|kt|rb)(?=::|\s|$)")


def split_test_id(test_id: str) -> tuple[str, ...]:
    """Split a test id into lower-case names, whatever runner wrote it."""
    text = _EXTENSION.sub("", test_id.strip().lower())
    return tuple(part for part in _SEPARATORS.split(text) if part)


def merge_keys(finding: Finding) -> list[tuple[str, ...]]:
    """The keys under which ``finding`` can meet the same defect from another source."""
    keys: list[tuple[str, ...]] = []
    if finding.test_id:
        names = split_test_id(finding.test_id)
        if len(names) >= 2:
            keys.append(("test", *names[-2:]))
    if finding.path and finding.line:
        if finding.rule:
            keys.append(("at", finding.path, str(finding.line), finding.rule.lower()))
        elif finding.tool:
            keys.append(("at", finding.path, str(finding.line), finding.tool, finding.kind))
    return keys


@dataclass
class _Group:
    members: list[Finding] = field(default_factory=list)
    fingerprints: set[str] = field(default_factory=set)

    @property
    def sources(self) -> set[Source]:
        return {m.source for m in self.members}


def merge_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Merge duplicates within and across sources; first-seen order is kept.

    :param findings: findings from every source of one observation.
    :returns: one finding per defect, each with ``sources`` set.
    """
    groups: list[_Group] = []
    by_fingerprint: dict[str, _Group] = {}
    by_key: dict[tuple[str, ...], list[_Group]] = {}
    for finding in findings:
        group = by_fingerprint.get(finding.fingerprint)
        if group is not None:
            if finding.source not in group.sources:
                group.members.append(finding)
            continue
        keys = merge_keys(finding)
        group = next((g for key in keys for g in by_key.get(key, ()) if _joins(finding, g)), None)
        if group is None:
            group = _Group()
            groups.append(group)
        group.members.append(finding)
        group.fingerprints.add(finding.fingerprint)
        by_fingerprint[finding.fingerprint] = group
        for key in keys:
            if group not in by_key.setdefault(key, []):
                by_key[key].append(group)
    return [_combine(group.members) for group in groups]


def _joins(finding: Finding, group: _Group) -> bool:
    if finding.source in group.sources:
        return False
    for member in group.members:
        if finding.column and member.column and finding.path == member.path and abs(finding.column - member.column) > 1:
            return False
        if (
            finding.test_id
            and member.test_id
            and not _suffix_agrees(split_test_id(finding.test_id), split_test_id(member.test_id))
        ):
            return False
    return True


def _precision(finding: Finding) -> tuple[int, int, int]:
    """How precisely a finding's location names the place: path, then line, then not the test's own file, column."""
    if finding.path is None:
        return (0, 0, 0)
    if finding.line is None:
        return (1, 0, 0)
    in_test_file = bool(_TEST_FILE.search(finding.path)) or bool(
        finding.test_id and finding.test_id.startswith(f"{finding.path}::")
    )
    return (2, 0 if in_test_file else 1, 1 if finding.column else 0)


def _suffix_agrees(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    shorter, longer = (a, b) if len(a) <= len(b) else (b, a)
    return longer[len(longer) - len(shorter) :] == shorter


def _combine(members: list[Finding]) -> Finding:
    detail = sorted(members, key=lambda m: _DETAIL_ORDER.index(m.source))
    primary = detail[0]
    update: dict[str, object] = {}
    for name in _FILLED:
        if getattr(primary, name) is None:
            value = next((getattr(m, name) for m in detail if getattr(m, name) is not None), None)
            if value is not None:
                update[name] = value
    located = max(detail, key=_precision)  # max keeps the first of equals: the most structured source
    update.update({name: getattr(located, name) for name in _LOCATION})
    if not primary.excerpt:
        update["excerpt"] = next((m.excerpt for m in detail if m.excerpt), "")
    if primary.kind == "unknown":
        update["kind"] = next((m.kind for m in detail if m.kind != "unknown"), "unknown")
    update["severity"] = max((m.severity for m in members), key=SEVERITY_ORDER.__getitem__)
    update["fingerprint"] = min(members, key=lambda m: _FINGERPRINT_ORDER.index(m.source)).fingerprint
    seen = {s for m in members for s in (*m.sources, m.source)}
    update["sources"] = tuple(s for s in _FINGERPRINT_ORDER if s in seen)
    return evolve(primary, **update)
