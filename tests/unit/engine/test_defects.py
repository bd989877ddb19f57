"""The defect log: components, counting once per place and fingerprint, activity, windows and compaction."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from gauntlet.config import SelfHealConfig
from gauntlet.engine import defects
from gauntlet.models import Finding, Kind, Severity
from gauntlet.state.shared import DefectLog

NOW = datetime(2026, 11, 2, 12, tzinfo=UTC)


def finding(fp: str, *, kind: Kind = "lint", severity: Severity = "minor") -> Finding:
    return Finding(fingerprint=fp, source="log", kind=kind, severity=severity, path="src/app/calc.py", message=fp)


@pytest.mark.parametrize(
    ("path", "test_id", "expected"),
    [
        ("src/app/calc.py", None, "app"),
        ("lib/core/x.py", None, "core"),
        ("web/index.ts", None, "web"),
        (None, "tests/test_calc.py::test_add", "tests"),
        ("setup.py", None, "other"),
        (None, None, "other"),
    ],
)
def test_component_falls_back_to_the_top_level_folder(path: str | None, test_id: str | None, expected: str) -> None:
    assert defects.component_of(path, test_id) == expected


def test_configured_components_win() -> None:
    assert defects.component_of("src/app/calc.py", None, {"maths": ["src/app/**"]}) == "maths"


def test_defects_count_once_per_place_and_fingerprint_and_skip_infra_and_nitpicks() -> None:
    log = DefectLog()
    batch = [finding("a"), finding("b", kind="infra"), finding("c", severity="nitpick")]
    log = defects.record_defects(log, batch, "pr:1", NOW)
    log = defects.record_defects(log, batch, "pr:1", NOW + timedelta(hours=1))
    log = defects.record_defects(log, batch, "pr:2", NOW + timedelta(hours=2))
    assert [(e.place, e.fingerprint) for e in log.entries] == [("pr:1", "a"), ("pr:2", "a")]
    assert log.activity == {"2026-11-02": 3}


def test_compaction_bounds_the_log() -> None:
    log = defects.record_defects(DefectLog(), [finding("old")], "pr:1", NOW - timedelta(days=30))
    log = defects.record_defects(log, [finding("new")], "pr:2", NOW)
    compacted = defects.compact_defects(log, SelfHealConfig(), NOW)
    assert [e.fingerprint for e in compacted.entries] == ["new"]


def test_counts_are_half_open_at_the_start() -> None:
    log = defects.record_defects(DefectLog(), [finding("a")], "pr:1", NOW)
    assert defects.counts_by_key(log, NOW - timedelta(hours=1), NOW) == {("app", "lint"): {"P2": 1}}
    assert defects.counts_by_key(log, NOW, NOW + timedelta(hours=1)) == {}
