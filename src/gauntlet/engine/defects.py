"""The defect log (DESIGN §3, §4): every observation's defects, once per place and fingerprint, by component.

Self-healing (:mod:`gauntlet.engine.selfheal`) counts this log per (component, defect type) over a
window; learning (:mod:`gauntlet.engine.learning`) reads it to describe branch fixes. Infra failures
and nitpicks are not defects. ``activity`` counts observations per day, so "no defects" can be told
from "no data".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta

from gauntlet.classify import components as classify
from gauntlet.config import SelfHealConfig
from gauntlet.models import Finding, Priority, evolve
from gauntlet.state.base import keep_last
from gauntlet.state.shared import MAX_ACTIVITY_DAYS, MAX_DEFECTS, DefectEntry, DefectLog

__all__ = ["compact_defects", "component_of", "counts_by_key", "record_defects", "summary_of"]

#: Source roots that say nothing about the component.
_ROOTS = frozenset({"src", "lib", "pkg"})


def component_of(path: str | None, test_id: str | None = None, components: Mapping[str, Sequence[str]] = {}) -> str:
    """The component a defect belongs to.

    The first configured component whose globs match (``components`` in the configuration), else the
    top-level folder of the path or test file (below ``src/``, ``lib/``, ``pkg/``), else ``other``.
    """
    where = path or (test_id.split("::", 1)[0] if test_id else "")
    configured = classify.component_of(where or None, components)
    if configured != classify.UNASSIGNED:
        return configured
    parts = [p for p in where.strip("/").split("/") if p and p != "."]
    if len(parts) > 1 and parts[0] in _ROOTS:
        parts = parts[1:]
    return parts[0] if len(parts) > 1 else classify.UNASSIGNED


def summary_of(test_id: str | None, path: str | None, message: str) -> str:
    """A failure in a few words: its test id, else its path and message (bounded)."""
    return test_id or (f"{path}: " if path else "") + message[:100]


def record_defects(
    log: DefectLog,
    findings: Iterable[Finding],
    place: str,
    now: datetime,
    components: Mapping[str, Sequence[str]] = {},
) -> DefectLog:
    """Add the defects of one observation: once per (place, fingerprint); infra and nitpicks are not defects.

    :param components: component name → path globs (``Config.components``).
    """
    seen = {(e.place, e.fingerprint) for e in log.entries}
    added: list[DefectEntry] = []
    for f in findings:
        if f.kind == "infra" or f.severity == "nitpick" or (place, f.fingerprint) in seen:
            continue
        seen.add((place, f.fingerprint))
        added.append(
            DefectEntry(
                at=now,
                component=component_of(f.path, f.test_id, components),
                defect_type=f.kind,
                priority=f.priority,
                fingerprint=f.fingerprint,
                place=place,
                summary=summary_of(f.test_id, f.path, f.message),
            )
        )
    day = now.date().isoformat()
    activity = dict(log.activity)
    activity[day] = activity.get(day, 0) + 1
    return evolve(log, entries=keep_last([*log.entries, *added], MAX_DEFECTS), activity=_recent_days(activity))


def counts_by_key(log: DefectLog, since: datetime, until: datetime) -> dict[tuple[str, str], Counter[Priority]]:
    """Defects per (component, defect type) and priority seen in ``(since, until]``.

    Half-open at the start, so the defects a proposal was made from (seen up to its creation) never count
    as its recurrence, and a scan sees the defects of a run made at the same instant.
    """
    counts: dict[tuple[str, str], Counter[Priority]] = {}
    for e in log.entries:
        if since < e.at <= until:
            counts.setdefault((e.component, e.defect_type), Counter())[e.priority] += 1
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
