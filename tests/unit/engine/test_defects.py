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
        ("src/app/calc.py", None, "src/app"),
        ("lib/core/deep/x.py", None, "lib/core"),
        ("web/index.ts", None, "web/index"),
        (None, "tests/test_calc.py::test_add", "tests/test_calc"),
        ("setup.py", None, "setup"),
        (None, None, "other"),
    ],
)
def test_component_falls_back_to_the_first_two_path_segments(
    path: str | None, test_id: str | None, expected: str
) -> None:
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
    [(key, counts)] = defects.counts_by_key(log, NOW - timedelta(hours=1), NOW).items()
    assert (key, counts.priorities, counts.occasions) == (("src/app", "lint"), {"P2": 1}, {"pr:1"})
    assert defects.counts_by_key(log, NOW, NOW + timedelta(hours=1)) == {}


def test_observations_count_per_component_and_day() -> None:
    log = defects.record_defects(DefectLog(), [finding("a")], "pr:1", NOW, changed=["docs/guide.md"])
    log = defects.record_defects(log, [], "pr:2", NOW + timedelta(days=1), changed=["src/app/other.py"])
    assert defects.observations_of(log, "src/app", NOW, NOW + timedelta(days=1)) == 2
    assert defects.observations_of(log, "docs/guide", NOW, NOW) == 1
    assert defects.observations_of(log, "src/app", NOW + timedelta(days=2), NOW + timedelta(days=3)) == 0


def test_code_owners_name_the_component_after_the_configuration() -> None:
    owners = {"src/pay/charge.py": "@octo/payments"}
    assert defects.component_of("src/pay/charge.py", None, {}, owners) == "@octo/payments"
    assert defects.component_of("src/pay/charge.py", None, {"billing": ["src/pay/**"]}, owners) == "billing"
    assert defects.component_of("src/pay/refund.py", None, {}, owners) == "src/pay"


def test_a_failing_test_counts_toward_the_component_of_the_code_it_tests() -> None:
    # tests/test_core.py tests src/app/core.py (the relation's code under test by name): the change touched it.
    failing = Finding(
        fingerprint="t", source="log", kind="test_failure", severity="critical", message="x",
        path="tests/test_core.py", test_id="tests/test_core.py::test_total",
    )  # fmt: skip
    log = defects.record_defects(DefectLog(), [failing], "pr:1", NOW, changed=["src/app/core.py", "README.md"])
    assert [e.component for e in log.entries] == ["src/app"]
    assert log.entries[0].path == "tests/test_core.py"  # what failed is still named as it was
    # A frame outside the tests names the code under test even when the change did not touch it.
    framed = failing.model_copy(update={"excerpt": 'File "src/lib/total.py", line 3, in total'})
    assert defects.involved_component(framed, [], {}) == "src/lib"
    # Nothing to go on: the test's own file, as before.
    assert defects.involved_component(failing, ["docs/a.md"], {}) == "tests/test_core"


def test_a_run_that_finds_the_code_under_test_names_the_component_for_every_place() -> None:
    failing = Finding(
        fingerprint="t", source="log", kind="test_failure", severity="critical", message="x",
        path="tests/test_core.py", test_id="tests/test_core.py::test_total",
    )  # fmt: skip
    log = defects.record_defects(DefectLog(), [failing], "pr:1", NOW)  # nothing to go on: the test's file
    log = defects.record_defects(log, [failing], "branch:main", NOW, changed=["src/app/core.py"])
    assert [(e.place, e.component) for e in log.entries] == [("pr:1", "src/app"), ("branch:main", "src/app")]
    log = defects.record_defects(log, [failing], "pr:2", NOW)  # found before: kept
    assert {e.component for e in log.entries} == {"src/app"}
