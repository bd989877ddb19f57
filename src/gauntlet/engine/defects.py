"""The defect log (DESIGN §3, §4): every observation's defects, once per place and fingerprint, by component.

Self-healing (:mod:`gauntlet.engine.selfheal`) counts this log per (component, defect type) over a
window; learning (:mod:`gauntlet.engine.learning`) reads it to describe branch fixes. Infra failures
and nitpicks are not defects. ``activity`` counts observations per day, so "no defects" can be told
from "no data", and ``seen`` counts them per component, so a watch knows whether the component it
verifies was exercised at all.

Thresholds count *occasions*, not entries: each PR is one occasion, and a branch is one occasion a
day. Ten failing tests in one PR, or the same failure on every run of a day, are one occasion.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from gauntlet.classify import components as classify
from gauntlet.config import SelfHealConfig
from gauntlet.engine import relation
from gauntlet.models import Finding, Priority, evolve
from gauntlet.state.base import keep_last
from gauntlet.state.pr import FindingRecord
from gauntlet.state.shared import MAX_ACTIVITY_DAYS, MAX_COMPONENTS_SEEN, MAX_DEFECTS, DefectEntry, DefectLog

__all__ = [
    "KeyCounts",
    "compact_defects",
    "component_of",
    "components_seen",
    "counts_by_key",
    "involved_component",
    "observations_of",
    "occasion_of",
    "record_defects",
    "summary_of",
]


@dataclass(frozen=True)
class KeyCounts:
    """What a window holds for one (component, defect type): occasions per priority, and in all."""

    priorities: Counter[Priority] = field(default_factory=Counter)
    occasions: frozenset[str] = frozenset()
    entries: tuple[DefectEntry, ...] = ()


def component_of(
    path: str | None,
    test_id: str | None = None,
    components: Mapping[str, Sequence[str]] = {},
    owners: Mapping[str, str] = {},
) -> str:
    """The component a defect belongs to.

    The first configured component whose globs match (``components`` in the configuration), else the path's
    code owner (``owners``: ``CODEOWNERS``, read at the edge), else the first two segments of the path or
    test file with the file's extension dropped (``src/app/core.py`` → ``src/app``, ``tests/test_calc.py`` →
    ``tests/test_calc``, ``calc.py`` → ``calc``), else ``other`` (no location at all).
    """
    where = path or (test_id.split("::", 1)[0] if test_id else "")
    configured = classify.component_of(where or None, components)
    if configured != classify.UNASSIGNED:
        return configured
    if where in owners:
        return owners[where]
    parts = [p for p in where.strip("/").split("/") if p and p != "."][:2]
    if not parts:
        return classify.UNASSIGNED
    stem = parts[-1].split(".", 1)[0]
    parts[-1] = stem or parts[-1]
    return "/".join(parts)


def involved_component(
    finding: Finding, changed: Sequence[str], components: Mapping[str, Sequence[str]], owners: Mapping[str, str] = {}
) -> str:
    """The component of the code a finding involves: for a failing test, the code under test.

    A test's own file is not what a fix changes, so a proposal keyed on it could never see its component
    exercised: the code under test (by the commit↔failure relation, :mod:`gauntlet.engine.relation`: its first
    frame outside the tests, else a changed file it tests by name) keys it instead, when there is one.
    """
    where = finding.path or (finding.test_id.split("::", 1)[0] if finding.test_id else None)
    if where and relation.is_test_file(where):
        subject = relation.code_under_test(where, FindingRecord.of(finding).frames, changed)
        if subject is not None:
            return component_of(subject, None, components, owners)
    return component_of(finding.path, finding.test_id, components, owners)


def occasion_of(entry: DefectEntry) -> str:
    """The occasion a defect counts toward: its PR, or its branch and UTC day."""
    if entry.place.startswith("pr:"):
        return entry.place
    return f"{entry.place}@{entry.at.date().isoformat()}"


def summary_of(test_id: str | None, path: str | None, message: str) -> str:
    """A failure in a few words: its test id, else its path and message (bounded)."""
    return test_id or (f"{path}: " if path else "") + message[:100]


def record_defects(
    log: DefectLog,
    findings: Iterable[Finding],
    place: str,
    now: datetime,
    components: Mapping[str, Sequence[str]] = {},
    changed: Iterable[str] = (),
    owners: Mapping[str, str] = {},
) -> DefectLog:
    """Add the defects of one observation: once per (place, fingerprint); infra and nitpicks are not defects.

    :param components: component name → path globs (``Config.components``).
    :param changed: the files the observed change touched; with the findings' components, the components
        this observation exercised.
    :param owners: path → code owner (``Observation.owners``).
    """
    findings = list(findings)
    changed = list(changed)
    seen = {(e.place, e.fingerprint) for e in log.entries}
    added: list[DefectEntry] = []
    for f in findings:
        if f.kind == "infra" or f.severity == "nitpick" or (place, f.fingerprint) in seen:
            continue
        seen.add((place, f.fingerprint))
        added.append(
            DefectEntry(
                at=now,
                component=involved_component(f, changed, components, owners),
                defect_type=f.kind,
                priority=f.priority,
                fingerprint=f.fingerprint,
                place=place,
                summary=summary_of(f.test_id, f.path, f.message),
                path=f.path or (f.test_id.split("::", 1)[0] if f.test_id else None),
            )
        )
    own = {f.fingerprint: component_of(f.path, f.test_id, components, owners) for f in findings}
    entries = _one_component([*log.entries, *added], own)
    day = now.date().isoformat()
    activity = dict(log.activity)
    activity[day] = activity.get(day, 0) + 1
    return evolve(
        log,
        entries=keep_last(entries, MAX_DEFECTS),
        activity=_recent_days(activity),
        seen=_seen(log.seen, components_seen(findings, changed, components, owners), day),
    )


def _one_component(entries: list[DefectEntry], own: Mapping[str, str]) -> list[DefectEntry]:
    """Every place's defect of one failing test under one component: the code under test, once any run found it.

    Where a run sees the code a test exercises depends on what it changed (:func:`involved_component`); a run
    that found it names the component for the runs that could only fall back on the test's own file (``own``).
    """
    found = {e.fingerprint: e.component for e in entries if e.fingerprint in own and e.component != own[e.fingerprint]}
    return [
        evolve(e, component=found[e.fingerprint]) if e.fingerprint in found and e.component == own[e.fingerprint] else e
        for e in entries
    ]


def components_seen(
    findings: Iterable[Finding],
    changed: Iterable[str],
    components: Mapping[str, Sequence[str]],
    owners: Mapping[str, str] = {},
) -> set[str]:
    """The components an observation exercised: where its findings are and what its change touched."""
    changed = list(changed)
    touched = {involved_component(f, changed, components, owners) for f in findings if f.path or f.test_id}
    touched |= {component_of(path, None, components, owners) for path in changed}
    return touched - {classify.UNASSIGNED}


def observations_of(log: DefectLog, component: str, since: datetime, until: datetime) -> int:
    """Observations that exercised ``component`` on the UTC days from ``since`` to ``until``, both included."""
    first, last = since.date().isoformat(), until.date().isoformat()
    return sum(n for day, n in log.seen.get(component, {}).items() if first <= day <= last)


def counts_by_key(log: DefectLog, since: datetime, until: datetime) -> dict[tuple[str, str], KeyCounts]:
    """Occasions per (component, defect type) and priority with defects seen in ``(since, until]``.

    Half-open at the start, so the defects a proposal was made from (seen up to its creation) never count
    as its recurrence, and a scan sees the defects of a run made at the same instant. A priority counts
    the occasions with at least one defect of that priority.
    """
    grouped: dict[tuple[str, str], list[DefectEntry]] = {}
    for e in log.entries:
        if since < e.at <= until:
            grouped.setdefault((e.component, e.defect_type), []).append(e)
    counts: dict[tuple[str, str], KeyCounts] = {}
    for key, entries in grouped.items():
        by_priority: dict[Priority, set[str]] = {}
        for e in entries:
            by_priority.setdefault(e.priority, set()).add(occasion_of(e))
        counts[key] = KeyCounts(
            priorities=Counter({p: len(o) for p, o in by_priority.items()}),
            occasions=frozenset(occasion_of(e) for e in entries),
            entries=tuple(entries),
        )
    return counts


def compact_defects(log: DefectLog, config: SelfHealConfig, now: datetime) -> DefectLog:
    """Drop defects no window can reach any more (older than the window plus the watch)."""
    horizon = now - timedelta(days=config.window_days + config.watch_days)
    kept = [e for e in log.entries if e.at >= horizon]
    if len(kept) == len(log.entries):
        return log
    return evolve(log, entries=kept)


def _recent_days(activity: dict[str, int]) -> dict[str, int]:
    return dict(sorted(activity.items())[-MAX_ACTIVITY_DAYS:])


def _seen(seen: dict[str, dict[str, int]], touched: set[str], day: str) -> dict[str, dict[str, int]]:
    """Count one observation for each component it touched; bounded in days and in components."""
    if not touched:
        return seen
    updated = dict(seen)
    for component in touched:
        days = dict(updated.get(component, {}))
        days[day] = days.get(day, 0) + 1
        updated[component] = _recent_days(days)
    if len(updated) > MAX_COMPONENTS_SEEN:
        # The components seen most recently stay: a watch looks at the last days only.
        ranked = sorted(updated, key=lambda c: (max(updated[c]), sum(updated[c].values()), c), reverse=True)
        updated = {c: updated[c] for c in sorted(ranked[:MAX_COMPONENTS_SEEN])}
    return updated
