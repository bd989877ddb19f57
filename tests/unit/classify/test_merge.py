"""Cross-source merging: one finding per defect, with every source noted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gauntlet.classify.merge import merge_findings, merge_keys, split_test_id
from gauntlet.ingest.junit import read_junit
from gauntlet.ingest.limits import DEFAULT_LIMITS
from gauntlet.ingest.log import read_log
from gauntlet.ingest.rdjson import read_rdjson
from gauntlet.ingest.sarif import read_sarif
from gauntlet.models import Finding

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _finding(**fields: Any) -> Finding:
    base: dict[str, Any] = {"fingerprint": "f", "source": "log", "kind": "lint", "severity": "major", "message": "m"}
    return Finding(**{**base, **fields})


def test_a_test_failing_in_the_log_and_in_junit_is_one_finding() -> None:
    with (FIXTURES / "junit/pytest/broken-calc/pytest.log").open("rb") as stream:
        log = list(read_log(stream, "pytest.log", DEFAULT_LIMITS))
    with (FIXTURES / "junit/pytest/broken-calc/report.xml").open("rb") as stream:
        junit = list(read_junit(stream, "report.xml", DEFAULT_LIMITS))
    assert len(log) == len(junit) == 4
    merged = merge_findings(log + junit)
    assert len(merged) == 4
    assert {f.sources for f in merged} == {("log", "junit")}
    for finding, from_log in zip(merged, log, strict=True):
        assert finding.fingerprint == from_log.fingerprint  # the log's fingerprint: stable when JUnit is missing
        assert finding.source == "junit" and finding.line is not None  # details from the structured source
        assert finding.log_lines == from_log.log_lines


def test_the_same_lint_error_in_sarif_and_rdjson_is_one_finding_with_the_worse_severity() -> None:
    with (FIXTURES / "sarif/ruff/broken-calc/ruff.sarif").open("rb") as stream:
        sarif = list(read_sarif(stream, "ruff.sarif", DEFAULT_LIMITS, root="/tmp/fx/py"))
    with (FIXTURES / "rdjson/ruff/broken-calc/ruff.rdjson").open("rb") as stream:
        rdjson = list(read_rdjson(stream, "ruff.rdjson", DEFAULT_LIMITS, root="/tmp/fx/py"))
    merged = merge_findings(sarif + rdjson)
    assert [(f.rule, f.sources, f.severity) for f in merged] == [
        ("F401", ("sarif", "rdjson"), "major"),
        ("F841", ("sarif", "rdjson"), "major"),
        ("F821", ("sarif", "rdjson"), "major"),
    ]


def test_a_log_lint_error_merges_with_sarif_on_path_line_and_rule() -> None:
    log = _finding(
        fingerprint="L", tool="ruff", path="src/a.py", line=3, rule="F401", message="`os` imported but unused"
    )
    sarif = _finding(
        fingerprint="S", source="sarif", tool="ruff", path="src/a.py", line=3, column=8, rule="f401", severity="minor"
    )
    [merged] = merge_findings([log, sarif])
    assert (merged.fingerprint, merged.sources, merged.severity, merged.column) == ("L", ("log", "sarif"), "major", 8)


def test_two_errors_on_one_line_pair_up_across_sources_instead_of_collapsing() -> None:
    log = [_finding(fingerprint=f"L{c}", path="a.py", line=1, rule="F401", column=c) for c in (8, 12)]
    sarif = [_finding(fingerprint=f"S{c}", source="sarif", path="a.py", line=1, rule="F401", column=c) for c in (12, 8)]
    merged = merge_findings(log + sarif)
    assert [(f.fingerprint, f.column, f.sources) for f in merged] == [
        ("L8", 8, ("log", "sarif")),
        ("L12", 12, ("log", "sarif")),
    ]


def test_same_source_duplicates_merge_only_by_fingerprint() -> None:
    one = _finding(fingerprint="A", path="a.py", line=1, rule="E1")
    two = _finding(fingerprint="B", path="a.py", line=1, rule="E1")
    assert [f.fingerprint for f in merge_findings([one, two, one])] == ["A", "B"]


def test_different_defects_stay_apart() -> None:
    findings = [
        _finding(fingerprint="1", path="a.py", line=1, rule="E1"),
        _finding(fingerprint="2", source="sarif", path="a.py", line=2, rule="E1"),
        _finding(fingerprint="3", source="sarif", path="a.py", line=1, rule="E2"),
        _finding(fingerprint="4", source="junit", kind="test_failure", test_id="tests/test_a.py::test_x"),
        _finding(fingerprint="5", kind="test_failure", test_id="tests/test_b.py::test_x"),
    ]
    assert len(merge_findings(findings)) == 5
    assert all(len(f.sources) == 1 for f in merge_findings(findings))


def test_test_ids_agree_across_runners_notation() -> None:
    assert split_test_id("tests/test_x.py::TestA::test_b[1-2]") == ("tests", "test_x", "testa", "test_b[1-2]")
    assert split_test_id("tests.test_x.TestA.test_b[1-2]") == split_test_id("tests/test_x.py::TestA::test_b[1-2]")
    assert split_test_id("sum › adds two numbers") == split_test_id("sum adds two numbers")
    log = _finding(fingerprint="L", kind="test_failure", test_id="pkg/tests/test_x.py::TestA::test_b")
    junit = _finding(fingerprint="J", source="junit", kind="test_failure", test_id="tests/test_x.py::TestA::test_b")
    assert [f.sources for f in merge_findings([log, junit])] == [("log", "junit")]


def test_merge_keys() -> None:
    assert merge_keys(_finding(message="no location")) == []
    assert merge_keys(_finding(path="a.py", line=2, tool="gcc", kind="build_error")) == [
        ("at", "a.py", "2", "gcc", "build_error")
    ]


def test_a_merged_location_is_one_a_source_gave_never_a_mix() -> None:
    # Issue 19: the log knew only the test file, JUnit knew the line in the source; the merge showed
    # tests/test_core.py:77, a place neither gave.
    log = _finding(
        fingerprint="a", kind="test_failure", test_id="tests/test_core.py::test_x", path="tests/test_core.py"
    )
    junit = _finding(
        fingerprint="b",
        source="junit",
        kind="test_failure",
        test_id="tests/test_core.py::test_x",
        path="src/app/core.py",
        line=77,
    )
    for order in ([log, junit], [junit, log]):
        (merged,) = merge_findings(order)
        assert (merged.path, merged.line) == ("src/app/core.py", 77)


def test_the_source_file_line_beats_the_test_file_line_and_a_column_breaks_ties() -> None:
    common: dict[str, Any] = {"kind": "test_failure", "test_id": "tests/test_core.py::test_x"}
    junit = _finding(fingerprint="a", source="junit", path="tests/test_core.py", line=12, **common)
    log = _finding(fingerprint="b", path="src/app/core.py", line=77, **common)
    sarif = _finding(fingerprint="c", source="sarif", path="src/app/core.py", line=77, column=5, **common)
    (merged,) = merge_findings([junit, log])
    assert (merged.path, merged.line, merged.column) == ("src/app/core.py", 77, None)
    (merged,) = merge_findings([junit, log, sarif])
    assert (merged.path, merged.line, merged.column) == ("src/app/core.py", 77, 5)
    assert merged.sources == ("log", "junit", "sarif")


def test_a_failure_in_the_log_junit_and_mocha_json_is_one_finding_at_the_raising_frame() -> None:
    from gauntlet.ingest.jsreports import read_mocha

    with (FIXTURES / "mocha-json/mocha/broken-sum/mocha.json").open("rb") as stream:
        mocha = list(read_mocha(stream, "mocha.json", DEFAULT_LIMITS, root="/tmp/fx/node-reports"))
    junit = _finding(
        fingerprint="j", source="junit", kind="test_failure", test_id="sum::runs risky code", path="mocha/sum.spec.js"
    )
    merged = merge_findings([junit, *mocha])
    risky = next(f for f in merged if f.test_id and f.test_id.endswith("risky code"))
    assert set(risky.sources) == {"junit", "mocha-json"}
    assert (risky.path, risky.line, risky.column) == ("src/sum.js", 6, 25)
