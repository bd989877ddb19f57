"""The table of tools and the runners' markers (``ingest/log/tools.py``)."""

from __future__ import annotations

import pytest

from gauntlet.ingest.log.tools import RULE_CODE, TOOLS, checker_kind, failed_test_name, markers, step_kind


@pytest.mark.parametrize(
    ("step", "kind"),
    [
        ("npm ci --offline", "dependency"),
        ("pip install .", "dependency"),
        ("npm test", "test_failure"),
        ("python -m pytest -q tests", "test_failure"),
        ("cargo clippy -- -d warnings", "lint"),
        ("cargo build --offline", "build_error"),
        ("npx tsc --noemit", "type_error"),
        ("mypy shop", "type_error"),
        ("bandit -r app", "security"),
        ("make && make test", "test_failure"),  # the longest command the step names
        ("bash -c 'cmake -g ninja -s . -b build && cmake --build build'", "build_error"),
        ("./build/calc_test", "test_failure"),  # a program named for tests
        ("npm run lint", "lint"),  # a command with lint in its name
        ("rstcheck docs/guide.rst", "lint"),  # ... or named ...check
        ("check-jsonschema --schemafile s.json app.json", "lint"),  # ... or check-... (pre-commit's check-yaml)
        ("./build/check_add", "test_failure"),  # Check's test binaries say check_
        ("make check", "test_failure"),
        # a task runner's target says more than the runner: make builds, but ``make lint`` lints
        ("make lint", "lint"),
        ("make -C src typecheck", "type_error"),
        ("tox -e mypy", "type_error"),
        ("nox -s lint", "lint"),
        ("tox -e py312", "test_failure"),  # a target that names no kind: the runner's own
        ("make audit", "security"),
        ("make CFLAGS=-Werror deps", "dependency"),
        ("npm run check:types", "type_error"),
        ("make -j4 all", "build_error"),
        ("cabal check", "lint"),  # a program's check subcommand checks its project
        ("npm run check", None),  # ... but a script named check may run anything
        ("deno task check", None),
        ("cargo check", "build_error"),
        ("coverage report --fail-under=90", "test_failure"),
        ("echo done", None),
        ("", None),
    ],
)
def test_a_steps_kind_is_what_its_tool_reports(step: str, kind: str | None) -> None:
    assert step_kind(step) == kind


def test_words_inside_other_words_and_flags_name_no_tool() -> None:
    assert step_kind("gh workflow run deploy") is None, "workflow is no flow"
    assert step_kind("actions/checkout@v4") is None, "checkout checks nothing"
    assert step_kind("black --check .") == "lint"
    assert step_kind("cppcheck --error-exitcode=1 src") == "lint"


def test_every_command_is_listed_once_lower_case() -> None:
    commands = [command for _, names in TOOLS for command in names]
    assert all(command == command.lower() for command in commands)


def test_only_a_checkers_step_has_a_checker_kind() -> None:
    assert checker_kind("ruff check .") == "lint"
    assert checker_kind("pyright") == "type_error"
    assert checker_kind("go test ./...") is None


@pytest.mark.parametrize(
    ("lines", "kind"),
    [
        (["npm error code ENOTCACHED"], "dependency"),
        (["error: no matching package named `serde` found"], "dependency"),
        (['  File "run.py", line 1', "SyntaxError: invalid syntax"], "build_error"),
        (["--- FAIL: TestAdd (0.00s)"], "test_failure"),
        (["not ok 3 adds"], "test_failure"),
        (['Exception in thread "main" java.lang.IllegalStateException: no'], "crash"),
        (["Build finished."], None),
        (["expected 500 but got 300"], "test_failure"),
        # a diagnostic's words compare too, but no test ran
        (["asciidoctor: WARNING: a.adoc: line 7: section title out of sequence: expected level 2, got level 3"], None),
    ],
)
def test_the_outputs_words_name_a_kind(lines: list[str], kind: str | None) -> None:
    assert markers(lines) == kind


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("--- FAIL: TestAdd (0.00s)", "TestAdd"),
        ("[  FAILED  ] CalcTest.Adds (0 ms)", "CalcTest.Adds"),
        ("not ok 1 adds two numbers", "adds two numbers"),
        ("FAIL: test_upper (tests.test_upper.TestUpper.test_upper)", "test_upper"),
        ("test tests::adds ... FAILED", "tests::adds"),
        (
            "test_upper (tests.test_upper.TestUpper.test_upper) ... FAIL",
            "test_upper (tests.test_upper.TestUpper.test_upper)",
        ),
        ("Adds Numbers                                                          | FAIL |", "Adds Numbers"),
        ("==== add-1 FAILED", "add-1"),
        ("\t  1 - sum_works (Failed)", "sum_works"),
        ("  1) concats:", "concats"),
    ],
)
def test_a_runners_verdict_line_names_the_failed_test(line: str, name: str) -> None:
    assert failed_test_name(["some output", line, "--- FAIL: Later"]) == name


def test_no_verdict_no_name() -> None:
    assert failed_test_name(["2 tests, 1 failure", "error: build failed"]) is None


def test_a_diagnostic_that_opens_with_a_rule_code_is_a_checkers() -> None:
    assert RULE_CODE.match("E003 Indent not multiple of 4")
    assert RULE_CODE.match("MD001: Heading levels should only increment by one level at a time.")
    assert RULE_CODE.match("[C0103] Invalid directory variable name")
    assert not RULE_CODE.match("error: expected ';' before '}' token")
    assert not RULE_CODE.match("undefined reference to `helper'")


def test_a_tool_run_with_check_is_a_checker() -> None:
    assert step_kind("mdformat --check readme.md") == "lint"
    assert step_kind("docformatter --check shop/cart.py") == "lint"
    assert step_kind("mypy --check-untyped-defs src") == "type_error"
    assert step_kind("./bootstrap --checkout") is None
