"""SARIF: real ruff, bandit and eslint output, and the rules of SARIF 2.1.0 on hand-made runs."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path
from typing import Any

import pytest

from gauntlet.errors import InputError
from gauntlet.ingest.limits import DEFAULT_LIMITS, Limits
from gauntlet.ingest.sarif import read_sarif, security_band
from gauntlet.models import Finding

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "sarif"


def _read(path: Path, root: str | None = None, limits: Limits = DEFAULT_LIMITS) -> list[Finding]:
    with path.open("rb") as stream:
        return list(read_sarif(stream, path.name, limits, root=root))


def _doc(results: list[dict[str, Any]], **run: Any) -> io.BytesIO:
    run.setdefault("tool", {"driver": {"name": "CodeQL", "rules": [{"id": "R1"}]}})
    body = {"version": "2.1.0", "runs": [{**run, "results": results}]}
    return io.BytesIO(json.dumps(body).encode())


def _one(results: list[dict[str, Any]], **run: Any) -> list[Finding]:
    return list(read_sarif(_doc(results, **run), "x.sarif", DEFAULT_LIMITS))


def test_ruff_sarif_gives_lint_findings_with_repository_relative_locations() -> None:
    findings = _read(FIXTURES / "ruff/broken-calc/ruff.sarif", root="/tmp/fx/py")
    assert [(f.rule, f.path, f.line, f.column) for f in findings] == [
        ("F401", "src/app/calc.py", 1, 8),
        ("F841", "src/app/calc.py", 10, 5),
        ("F821", "src/app/calc.py", 12, 24),
    ]
    assert {(f.source, f.tool, f.kind, f.severity) for f in findings} == {("sarif", "ruff", "lint", "major")}


def test_absolute_paths_outside_the_repository_lose_their_location() -> None:
    findings = _read(FIXTURES / "ruff/broken-calc/ruff.sarif")  # no root: /tmp/fx/py is no known checkout
    assert all(f.path is None and f.line is None for f in findings)
    assert len(findings) == 3


def test_bandit_sarif_is_security_with_levels_as_severities_and_secrets_redacted() -> None:
    findings = _read(FIXTURES / "bandit/broken-calc/bandit.sarif")
    by_rule = {f.rule: f for f in findings}
    assert set(by_rule) == {"B404", "B105", "B602", "B307"}
    assert {f.kind for f in findings} == {"security"}
    assert (by_rule["B602"].severity, by_rule["B307"].severity, by_rule["B404"].severity) == (
        "major",
        "minor",
        "nitpick",
    )
    assert by_rule["B602"].path == "src/app/calc.py" and by_rule["B602"].line == 11
    assert "hunter2" not in by_rule["B105"].message + by_rule["B105"].excerpt


def test_eslint_sarif_resolves_absolute_uris_against_the_root() -> None:
    findings = _read(FIXTURES / "eslint/broken-sum/eslint.sarif", root="/tmp/fx/node")
    assert [(f.tool, f.rule, f.path, f.line) for f in findings] == [
        ("eslint", "no-unused-vars", "src/sum.js", 1),
        ("eslint", "no-eval", "src/sum.js", 8),
        ("eslint", "no-undef", "src/sum.js", 8),
    ]


def test_semgrep_sarif_security_severity_and_srcroot() -> None:
    findings = _read(FIXTURES / "semgrep/broken-calc/semgrep.sarif")
    assert [(f.tool, f.rule, f.kind, f.severity, f.path, f.line) for f in findings] == [
        ("semgrep", "add-subtracts", "lint", "nitpick", "src/app/calc.py", 5),
        ("semgrep", "subprocess-shell-true", "security", "critical", "src/app/calc.py", 11),
        ("semgrep", "eval-call", "lint", "minor", "src/app/calc.py", 12),  # semgrep tags no CWE, no "security"
    ]
    assert findings[0].excerpt == "def add(a, b):\n    return a - b"


@pytest.mark.parametrize(
    ("score", "severity"), [(9.8, "critical"), (9.0, "critical"), (7.5, "major"), (5.0, "minor"), (1.0, "nitpick")]
)
def test_security_severity_bands(score: float, severity: str) -> None:
    assert security_band(score) == severity


def test_security_severity_of_the_rule_wins_over_the_level_and_makes_it_security() -> None:
    rules = [{"id": "py/sql-injection", "properties": {"security-severity": "9.1", "tags": ["security"]}}]
    findings = _one(
        [{"ruleId": "py/sql-injection", "level": "warning", "message": {"text": "SQL built from user input"}}],
        tool={"driver": {"name": "CodeQL", "rules": rules}},
    )
    assert (findings[0].kind, findings[0].severity, findings[0].tool) == ("security", "critical", "codeql")


def test_level_falls_back_to_the_rule_default_then_warning() -> None:
    rules = [{"id": "R1", "defaultConfiguration": {"level": "error"}}, {"id": "R2"}]
    findings = _one(
        [{"ruleIndex": 0, "message": {"text": "a"}}, {"ruleId": "R2", "message": {"text": "b"}}],
        tool={"driver": {"name": "x", "rules": rules}},
    )
    assert [(f.rule, f.severity) for f in findings] == [("R1", "major"), ("R2", "minor")]


def test_security_tag_makes_kind_security() -> None:
    rules = [{"id": "R1", "properties": {"tags": ["Security", "external/cwe/cwe-079"]}}]
    findings = _one(
        [{"ruleId": "R1", "level": "note", "message": {"text": "xss"}}], tool={"driver": {"name": "x", "rules": rules}}
    )
    assert (findings[0].kind, findings[0].severity) == ("security", "nitpick")


def test_suppressed_results_are_dropped_unless_rejected_or_under_review() -> None:
    results = [
        {"ruleId": "R1", "message": {"text": "accepted"}, "suppressions": [{"kind": "inSource"}]},
        {
            "ruleId": "R1",
            "message": {"text": "explicitly accepted"},
            "suppressions": [{"kind": "external", "status": "accepted"}],
        },
        {"ruleId": "R1", "message": {"text": "rejected"}, "suppressions": [{"kind": "external", "status": "rejected"}]},
        {
            "ruleId": "R1",
            "message": {"text": "under review"},
            "suppressions": [{"kind": "inSource", "status": "underReview"}],
        },
        {"ruleId": "R1", "message": {"text": "plain"}, "suppressions": []},
        {"ruleId": "R1", "message": {"text": "passed"}, "kind": "pass"},
        {"ruleId": "R1", "message": {"text": "fixed"}, "baselineState": "absent"},
    ]
    assert [f.message for f in _one(results)] == ["rejected", "under review", "plain"]


def test_locations_resolve_through_original_uri_base_ids() -> None:
    bases = {
        "REPO": {"uri": "file:///home/runner/work/app/app/"},
        "SRC": {"uri": "src/", "uriBaseId": "REPO"},
    }
    location = {
        "physicalLocation": {"artifactLocation": {"uri": "pkg/a.py", "uriBaseId": "SRC"}, "region": {"startLine": 4}}
    }
    unknown = {"physicalLocation": {"artifactLocation": {"uri": "b.py", "uriBaseId": "%SRCROOT%"}}}
    findings = _one(
        [
            {"ruleId": "R1", "message": {"text": "a"}, "locations": [location]},
            {"ruleId": "R1", "message": {"text": "b"}, "locations": [unknown]},
        ],
        originalUriBaseIds=bases,
    )
    assert [(f.path, f.line) for f in findings] == [("src/pkg/a.py", 4), ("b.py", None)]


def test_an_absolute_uri_under_a_declared_base_is_relative_to_it() -> None:
    location = {
        "physicalLocation": {"artifactLocation": {"uri": "file:///build/src/lib/x.c"}, "region": {"startLine": 2}}
    }
    findings = _one(
        [{"ruleId": "R1", "message": {"text": "a"}, "locations": [location]}],
        originalUriBaseIds={"ROOT": {"uri": "file:///build/src/"}},
    )
    assert (findings[0].path, findings[0].line) == ("lib/x.c", 2)


@pytest.mark.parametrize(
    "uri",
    [
        "../../etc/passwd",
        "src/../../outside.py",
        "file:///etc/passwd",
        "/etc/shadow",
        "C:\\Windows\\x.dll",
        "file://evil.example/share/a.py",
    ],
)
def test_paths_escaping_the_repository_are_refused(uri: str) -> None:
    location = {"physicalLocation": {"artifactLocation": {"uri": uri}, "region": {"startLine": 1}}}
    [finding] = _one([{"ruleId": "R1", "message": {"text": "a"}, "locations": [location]}])
    assert (finding.path, finding.line) == (None, None)


def test_message_templates_take_their_arguments() -> None:
    rules = [{"id": "R1", "messageStrings": {"default": {"text": "{0} is unused in {1}"}}}]
    findings = _one(
        [{"ruleId": "R1", "message": {"id": "default", "arguments": ["x", "f"]}}],
        tool={"driver": {"name": "t", "rules": rules}},
    )
    assert findings[0].message == "x is unused in f"


def test_repeated_identical_results_get_distinct_fingerprints_stable_under_line_shifts() -> None:
    def at(line: int) -> dict[str, Any]:
        region = {"startLine": line}
        return {
            "ruleId": "R1",
            "message": {"text": "m"},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": "a.py"}, "region": region}}],
        }

    first = [f.fingerprint for f in _one([at(3), at(9)])]
    shifted = [f.fingerprint for f in _one([at(13), at(19)])]
    assert first == shifted
    assert len(set(first)) == 2


@pytest.mark.parametrize(
    "body",
    [b"", b"not json", b"[1, 2]", b'{"version": "2.1.0"}', b'{"runs": 3}', b"[" * 100_000, b'{"runs": [' + b"[" * 5000],
)
def test_bad_documents_are_input_errors(body: bytes) -> None:
    with pytest.raises(InputError, match=r"^x\.sarif: "):
        list(read_sarif(io.BytesIO(body), "x.sarif", DEFAULT_LIMITS))


def test_junk_inside_a_valid_log_is_skipped_not_a_crash() -> None:
    results = [
        3,
        "x",
        None,
        {"message": 5, "locations": "no", "ruleId": ["a"], "level": 7},
        {"locations": [{"physicalLocation": {"region": {"startLine": -4}}}]},
    ]
    findings = _one(results, tool={"driver": {"name": 5, "rules": "nope"}}, originalUriBaseIds=[1])
    assert len(findings) == 2 and {f.tool for f in findings} == {None}


def test_a_million_results_cost_bounded_time_and_findings() -> None:
    result = b'{"ruleId":"R1","message":{"text":"m"}},'
    body = b'{"version":"2.1.0","runs":[{"results":[' + result * 1_000_000 + b'{}],"tool":{"driver":{"name":"big"}}}]}'
    limits = Limits(max_findings=500)
    started = time.monotonic()
    findings = list(read_sarif(io.BytesIO(body), "big.sarif", limits))
    assert len(findings) == 500
    assert time.monotonic() - started < 30  # linear: ~2 s on an idle core


def test_documents_over_the_byte_limit_are_refused() -> None:
    with pytest.raises(InputError, match="larger than"):
        list(read_sarif(_doc([{"message": {"text": "x" * 5000}}]), "x.sarif", Limits(max_document_bytes=1000)))


def _levels(results: list[dict[str, Any]], **run: Any) -> list[str]:
    return [f.severity for f in _one(results, **run)]


def test_level_comes_from_level_else_kind_else_the_rule_default() -> None:
    rules = {"driver": {"name": "x", "rules": [{"id": "R1", "defaultConfiguration": {"level": "error"}}]}}
    assert _levels(
        [
            {"ruleId": "R1", "level": "note", "message": {"text": "level wins"}},
            {"ruleId": "R1", "kind": "review", "message": {"text": "§3.27.9: not a fail, so level none"}},
            {"ruleId": "R1", "kind": "fail", "message": {"text": "a fail takes the rule's default"}},
            {"ruleId": "R1", "message": {"text": "no kind is a fail"}},
            {"ruleId": "R9", "message": {"text": "unknown rule: warning"}},
        ],
        tool=rules,
    ) == ["nitpick", "nitpick", "major", "major", "minor"]


def test_invocation_overrides_replace_the_rules_default_level() -> None:
    tool = {"driver": {"name": "x", "rules": [{"id": "R1", "defaultConfiguration": {"level": "note"}}, {"id": "R2"}]}}
    invocations = [
        {
            "executionSuccessful": True,
            "ruleConfigurationOverrides": [
                {"descriptor": {"index": 0}, "configuration": {"level": "error"}},
                {"descriptor": {"id": "R2"}, "configuration": {"level": "note"}},
            ],
        }
    ]
    results = [
        {"ruleId": "R1", "ruleIndex": 0, "message": {"text": "a"}},
        {"ruleId": "R2", "message": {"text": "b"}},
        {"ruleId": "R1", "level": "warning", "message": {"text": "the result's own level still wins"}},
    ]
    assert _levels(results, tool=tool, invocations=invocations) == ["major", "nitpick", "minor"]


def test_hierarchical_rule_ids_take_their_parents_metadata() -> None:
    tool = {
        "driver": {
            "name": "x",
            "rules": [
                {"id": "CA2101", "defaultConfiguration": {"level": "error"}, "properties": {"tags": ["security"]}}
            ],
        }
    }
    (finding,) = _one([{"ruleId": "CA2101/1", "message": {"text": "sub-rule"}}], tool=tool)
    assert (finding.rule, finding.severity, finding.kind) == ("CA2101/1", "major", "security")


def _versioned(version: str, run: dict[str, Any]) -> io.BytesIO:
    return io.BytesIO(json.dumps({"version": version, "runs": [run]}).encode())


def test_sarif_2_0_0_and_2_2_are_read_with_2_0_0s_file_location() -> None:
    result = {
        "ruleId": "R1",
        "message": {"text": "m"},
        "locations": [{"physicalLocation": {"fileLocation": {"uri": "src/a.py"}, "region": {"startLine": 3}}}],
    }
    for version in ("2.0.0", "2.2"):
        run = {"tool": {"driver": {"name": "x"}}, "results": [result]}
        (finding,) = read_sarif(_versioned(version, run), "x.sarif", DEFAULT_LIMITS)
        assert (finding.path, finding.line) == ("src/a.py", 3)
    resources = {"rules": {"R1": {"id": "R1", "defaultConfiguration": {"level": "error"}}}}
    run = {"tool": {"name": "x"}, "resources": resources, "results": [result]}
    (finding,) = read_sarif(_versioned("2.0.0", run), "x.sarif", DEFAULT_LIMITS)
    assert (finding.severity, finding.tool) == ("major", "x")  # 2.0.0's rules dictionary and tool name


def test_sarif_1_0_0_is_converted() -> None:
    run = {
        "tool": {"name": "CodeScanner"},
        "rules": {"C2001": {"id": "C2001", "defaultLevel": "error", "messageFormats": {"default": "{0} is unused"}}},
        "results": [
            {
                "ruleId": "C2001",
                "formattedRuleMessage": {"formatId": "default", "arguments": ["x"]},
                "locations": [{"resultFile": {"uri": "src/a.c", "region": {"startLine": 9, "startColumn": 2}}}],
            },
            {"ruleId": "C2001", "level": "pass", "message": "passed"},
            {"ruleId": "C2001", "message": "suppressed", "suppressionStates": ["suppressedInSource"]},
        ],
    }
    (finding,) = read_sarif(_versioned("1.0.0", run), "old.sarif", DEFAULT_LIMITS)
    assert (finding.tool, finding.rule, finding.severity, finding.message) == (
        "codescanner",
        "C2001",
        "major",
        "x is unused",
    )
    assert (finding.path, finding.line, finding.column) == ("src/a.c", 9, 2)


@pytest.mark.parametrize("version", ["3.0.0", "1.1", "banana"])
def test_other_versions_are_refused_by_name(version: str) -> None:
    with pytest.raises(InputError, match=f"SARIF version '{version}' is not read"):
        list(read_sarif(_versioned(version, {"results": []}), "x.sarif", DEFAULT_LIMITS))


def test_a_bom_and_a_big_integer_are_valid_sarif() -> None:
    body = {
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "x"}},
                "results": [{"ruleId": "R", "message": {"text": "m"}, "properties": {"id": 2**80}}],
            }
        ],
    }
    (finding,) = read_sarif(io.BytesIO(b"\xef\xbb\xbf" + json.dumps(body).encode()), "vs.sarif", DEFAULT_LIMITS)
    assert finding.rule == "R"


def test_sarif_1_0_0_rule_keys_pick_the_right_rule_as_roslyn_writes_them() -> None:
    # Roslyn's v1 error log keys two descriptors with one id apart by ruleKey (dotnet/roslyn ErrorLoggerTests).
    run = {
        "tool": {"name": "Microsoft (R) Visual C# Compiler"},
        "results": [{"ruleId": "TST002", "ruleKey": "TST002-003"}, {"ruleId": "TST002", "message": "m"}],
        "rules": {
            "TST002": {"id": "TST002", "defaultLevel": "warning"},
            "TST002-003": {"id": "TST002", "shortDescription": "the error one", "defaultLevel": "error"},
        },
    }
    first, second = read_sarif(_versioned("1.0.0", run), "csc.sarif", DEFAULT_LIMITS)
    assert (first.rule, first.severity, first.message) == ("TST002", "major", "the error one")
    assert (second.severity, second.message, second.tool) == ("minor", "m", "microsoft")
