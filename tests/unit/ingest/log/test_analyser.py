"""One root cause, one finding: the rules between tool lines, fallbacks and a failed step's exit."""

from __future__ import annotations

from pathlib import Path

from logscan_helpers import findings, github

from gauntlet.ingest.log.locator import QUIET_LINES

PYTEST_BLOCK = [
    "=================================== FAILURES ===================================",
    "___________________________________ test_add ___________________________________",
    "",
    "    def test_add():",
    ">       assert 1 + 1 == 3",
    "E       assert 2 == 3",
    "",
    "tests/test_math.py:2: AssertionError",
    "=========================== short test summary info ============================",
    "FAILED tests/test_math.py::test_add - assert 2 == 3",
    "============================== 1 failed in 0.02s ===============================",
]


def test_block_and_summary_and_exit_line_are_one_finding() -> None:
    [finding] = findings(github(PYTEST_BLOCK))
    assert finding.kind == "test_failure" and finding.tool == "pytest"
    assert finding.test_id == "tests/test_math.py::test_add"
    assert finding.log_lines == (5, 11)  # the block, not the summary or the exit line


def test_summary_alone_is_a_finding() -> None:
    [finding] = findings(github(["FAILED tests/test_math.py::TestA::test_b - KeyError: 'x'"]))
    assert finding.test_id == "tests/test_math.py::TestA::test_b"
    assert finding.message == "KeyError: 'x'"


def test_exit_line_alone_is_unknown_with_the_steps_last_lines() -> None:
    lines = [f"step output {i}" for i in range(30)]
    [finding] = findings(github(lines))
    assert finding.kind == "unknown" and finding.severity == "major"
    assert finding.log_lines is not None
    first, last = finding.log_lines
    assert last == 33 and last - first == QUIET_LINES - 1  # the step's last words, not the exit line
    assert "step output 29" in finding.excerpt


def test_exit_codes_that_name_the_cause() -> None:
    assert findings(github(["waiting"], status=124))[0].kind == "timeout"
    assert findings(github(["training"], status=137))[0].kind == "crash"


def test_driver_line_explains_only_when_no_compiler_line_does() -> None:
    with_cause = ["src/a.c:3:1: error: expected ';' before '}' token", "make: *** [Makefile:5: all] Error 1"]
    [finding] = findings(github(with_cause, status=2))
    assert finding.tool == "gcc"
    [driver] = findings(github(["make: *** [Makefile:5: all] Error 1"], status=2))
    assert driver.tool == "make" and driver.kind == "build_error"


def test_a_hint_explains_a_failed_step_but_never_a_passing_log() -> None:
    hint = "curl: (7) Failed to connect to localhost port 5432: Connection refused"
    [finding] = findings(github([hint, "retrying failed"], status=1))
    assert finding.kind == "infra"
    assert findings(github([hint, "connected on retry"], status=0)) == []


def test_passing_logs_and_warnings_yield_nothing() -> None:
    passing = [
        "src/a.c:3:9: warning: unused variable 'x' [-Wunused-variable]",
        "tests/test_errors.py::test_error_is_raised PASSED",
        "npm warn deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported",
        "[INFO] Tests run: 4, Failures: 0, Errors: 0, Skipped: 0",
        "test result: ok. 3 passed; 0 failed; 0 ignored",
        "=== 12 passed in 1.02s ===",
    ]
    assert findings(github(passing, status=0)) == []


def test_same_error_twice_is_one_finding() -> None:
    line = "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'."
    assert len(findings(github([line, line]))) == 1


def test_chained_python_exceptions_are_one_finding() -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "/home/runner/work/app/app/tools/x.py", line 3, in load',
        "KeyError: 'version'",
        "",
        "During handling of the above exception, another exception occurred:",
        "",
        "Traceback (most recent call last):",
        '  File "/home/runner/work/app/app/tools/x.py", line 5, in <module>',
        "RuntimeError: no version",
    ]
    [finding] = findings(github(lines))
    assert finding.message == "RuntimeError: no version"
    assert finding.path == "tools/x.py" and finding.line == 5


def test_secrets_in_messages_and_excerpts_are_redacted() -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    lines = [f"src/a.c:1:1: error: bad token {token}", f"password=hunter2secret {token}"]
    for finding in findings(github(lines)):
        assert token not in finding.message and token not in finding.excerpt
        assert "hunter2secret" not in finding.excerpt


def test_paths_are_repository_relative() -> None:
    lines = [
        "/home/runner/work/shop/shop/src/cart.c:7:3: error: 'total' undeclared",
        "/__w/shop/shop/lib/tax.c:2:1: error: unknown type name 'money'",
        "D:\\a\\shop\\shop\\src\\win.c(4,1): error C2065: 'x': undeclared identifier",
    ]
    paths = [f.path for f in findings(github(lines))]
    assert sorted(paths) == ["lib/tax.c", "src/cart.c", "src/win.c"]


def test_fingerprints_survive_reruns_and_line_shifts() -> None:
    first = findings(github(["/tmp/tmpab12/x.c:3:1: error: 'buf' at 0x7ffd1234 overflows after 12ms", *PYTEST_BLOCK]))
    second = findings(
        github(["noise", "/tmp/tmpzz99/x.c:9:1: error: 'buf' at 0x7ffe9999 overflows after 31ms", *PYTEST_BLOCK])
    )
    assert [f.fingerprint for f in first] == [f.fingerprint for f in second]
    other = findings(github(["/tmp/tmpab12/x.c:3:1: error: 'len' at 0x7ffd1234 overflows after 12ms"]))
    assert other[0].fingerprint != first[0].fingerprint


def test_a_steps_header_is_its_script_not_its_output() -> None:
    lines = ["##[group]Run ./ci.sh || { echo 'error: build failed'; exit 1; }", "./ci.sh", "##[endgroup]", "ok"]
    assert findings(github(lines, status=0, command="true")) == []


def test_a_passing_github_log_yields_nothing_even_with_error_lines() -> None:
    lines = ["ERROR: optional plugin not configured, skipping", "error: cache miss for key linux-x64"]
    assert findings(github(lines, status=0)) == []


def test_a_passing_github_job_reports_nothing_even_with_a_traceback() -> None:
    lines = [
        "Traceback (most recent call last):",
        '  File "x.py", line 1, in <module>',
        "ValueError: expected in this test",
    ]
    assert findings(github(lines, status=0)) == []
    assert len(findings(github(lines, status=1))) == 1


def test_a_log_cut_short_inside_a_group_still_reports_its_findings() -> None:
    """A cancelled or truncated job log ends inside a ``##[group]``: no verdict will come, so nothing is held back."""
    corpus = Path(__file__).parents[3] / "fixtures" / "corpus" / "cut"
    log = (corpus / "pytest_in_open_group" / "input.log").read_bytes()
    assert b"##[error]" not in log and log.rstrip().endswith(b"1 failed in 0.03s ===============================")
    (found,) = findings(log)
    assert (found.tool, found.kind, found.path, found.line) == ("pytest", "test_failure", "tests/test_f.py", 5)
    # The same log with its group closed and no failed step is a passing job: what it printed is dropped.
    assert findings(log + b"2026-11-29T12:00:00.0468920Z ##[endgroup]\n") == []
