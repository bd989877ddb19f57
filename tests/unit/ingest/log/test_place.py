"""The block's own place and kind, for a tool no parser knows (``ingest/log/place.py``)."""

from __future__ import annotations

import pytest

from gauntlet.ingest.log import make_parsers
from gauntlet.ingest.log.draft import Draft
from gauntlet.ingest.log.place import place_block


def _placed(lines: list[str], step: str = "", kind: str = "unknown") -> Draft:
    draft = Draft(None, kind, lines[0], 1, len(lines), role="fallback")  # type: ignore[arg-type]
    place_block(draft, lines, step)
    return draft


@pytest.mark.parametrize(
    ("line", "place"),
    [
        ("./main.go:6:14: undefined: total", ("./main.go", 6, 14)),
        ("src/App.java:5: error: cannot find symbol", ("src/App.java", 5, None)),
        (r"D:\a\demo\demo\src\grow.c:5:23: error: 'size' undeclared", (r"D:\a\demo\demo\src\grow.c", 5, 23)),
        ("main.c:(.text+0xa): undefined reference to `helper'", ("main.c", None, None)),
        ("  at Shop.total (lib/shop.js:12:7)", ("lib/shop.js", 12, 7)),
        ("[ERROR] /w/src/main/java/demo/Shop.java:[5,9] cannot find symbol", ("/w/src/main/java/demo/Shop.java", 5, 9)),
        (r"C:\src\App.cs(12,5): error CS0103: name 'x' does not exist", (r"C:\src\App.cs", 12, 5)),
        ("release.sh: line 3: VERSION: unbound variable", ("release.sh", 3, None)),
        ('  File "app/run.py", line 14, in main', ("app/run.py", 14, None)),
        ("Died at script.pl line 9.", ("script.pl", 9, None)),
    ],
)
def test_the_first_file_and_line_the_block_names_is_its_place(line: str, place: tuple[object, ...]) -> None:
    draft = _placed(["Error: build failed", line])
    assert (draft.path, draft.line, draft.column) == place


@pytest.mark.parametrize(
    "line",
    [
        "GET https://registry.example.com:443/v2/ failed",
        "connect to example.com:8080 refused",
        "Python 3.11.7: error installing",
        "took 12:03:44 in total",
        "make: *** [Makefile:2: all] Error 1",
    ],
)
def test_hosts_versions_and_times_are_no_places(line: str) -> None:
    assert _placed([line]).path is None


def test_a_diagnostic_is_a_build_error_and_a_test_failure_where_the_step_ran_the_tests() -> None:
    diagnostic = ['cart/cart.go:11: cannot use "n" as int value in return statement']
    assert _placed(diagnostic, step="go build ./...").kind == "build_error"
    assert _placed(diagnostic, step="go test ./...").kind == "test_failure"
    assert _placed(["--- FAIL: TestAdd (0.00s)", "    calc_test.go:7: got 3"]).kind == "test_failure"
    assert _placed(["[ERROR] Failed to execute goal on project demo"]).kind == "unknown", "Failed is no test verdict"
    assert _placed(["x.c:1: note"], kind="crash").kind == "crash", "a kind the locator gave stays"


def test_a_tools_own_parsers_can_be_taken_out_of_play() -> None:
    names = {type(p).__name__ for p in make_parsers()}
    assert {"Pytest", "Go", "Diagnostics"} <= names
    assert {type(p).__name__ for p in make_parsers({"Pytest", "Go"})} == names - {"Pytest", "Go"}


def test_a_stylish_report_places_its_first_row_under_its_file_header() -> None:
    block = ['  2:1  error  duplication of key "a" in mapping  (key-duplicates)']
    draft = Draft(None, "unknown", block[0], 5, 5, role="fallback")
    place_block(draft, [block[0], *block], "yamllint .", before=["/home/runner/work/app/app/ci/dup.yml"])
    assert (draft.path, draft.line, draft.column, draft.kind) == ("/home/runner/work/app/app/ci/dup.yml", 2, 1, "lint")


def test_a_dependency_failure_and_a_compiler_error_are_named_by_their_words() -> None:
    resolve = ["[ERROR] Failed to execute goal on project demo: Could not resolve dependencies for project x"]
    assert _placed(resolve).kind == "dependency"
    assert _placed(["error[E0308]: mismatched types"]).kind == "build_error"
    assert _placed(["error: VERSION file is missing"]).kind == "unknown", "a script's own error: is no compiler's"


def test_a_checkouts_file_is_preferred_over_the_first_place() -> None:
    from gauntlet.ingest.paths import Checkout

    checkout = Checkout(root="/src/app", exists=lambda path: path == "conf/app.cfg")
    block = ["ERROR: check failed in gen/out.cfg:3 (included from conf/app.cfg:12)"]
    assert (_placed(block).path, _placed(block).line) == ("gen/out.cfg", 3)
    draft = Draft(None, "unknown", block[0], 1, 1, role="fallback")
    place_block(draft, block, "", checkout=checkout)
    assert (draft.path, draft.line) == ("conf/app.cfg", 12)
    draft = Draft(None, "unknown", "x", 1, 1, role="fallback")
    place_block(draft, ["ERROR: failed in /src/app/conf/app.cfg:4"], "", checkout=checkout)
    assert (draft.path, draft.line) == ("/src/app/conf/app.cfg", 4), "the analyser makes it relative to the root"


def test_library_frames_are_no_place_and_a_traceback_ends_at_its_innermost_frame() -> None:
    frames = [
        "Error: ENOENT: no such file or directory, open 'config.json'",
        "    at Object.openSync (node:fs:573:18)",
        "    at readConfig (/home/runner/work/app/app/node_modules/conf/index.js:9:3)",
        "    at main (/home/runner/work/app/app/index.js:4:9)",
    ]
    assert (_placed(frames).path, _placed(frames).line) == ("/home/runner/work/app/app/index.js", 4)
    java = [
        'Exception in thread "main" java.lang.NumberFormatException: x',
        "\tat java.base/java.lang.Integer.parseInt(Integer.java:67)",
        "\tat demo.Main.main(Main.java:5)",
    ]
    assert (_placed(java).path, _placed(java).line) == ("Main.java", 5)
    traceback = [
        "FileNotFoundError: settings.json",
        "Traceback (most recent call last):",
        '  File "run.py", line 9, in <module>',
        '  File "run.py", line 5, in load',
    ]
    assert (_placed(traceback).path, _placed(traceback).line) == ("run.py", 5)


@pytest.mark.parametrize(
    ("line", "place"),
    [
        ('PHP Parse error: syntax error, unexpected token "}" in src/f.php on line 4', ("src/f.php", 4, None)),
        ("ERROR in ./src/index.js 1:18-35", ("./src/index.js", 1, 18)),
        ("would reformat /home/runner/work/app/app/shop/f.py", ("/home/runner/work/app/app/shop/f.py", None, None)),
    ],
)
def test_more_shapes_of_a_place(line: str, place: tuple[object, ...]) -> None:
    draft = _placed(["Error: build failed", line])
    assert (draft.path, draft.line, draft.column) == place


def test_a_file_named_alone_is_never_a_log_a_library_or_one_that_is_missing() -> None:
    assert _placed(["Error: see build/CMakeFiles/CMakeOutput.log"]).path is None
    assert _placed(["Error: failed in /usr/lib/python3/dist-packages/x.py"]).path is None
    assert _placed(["bash: ./ci/install.sh: No such file or directory"]).path is None
    # a file that passed is no failure's file: a step that failed quietly after it stays unplaced
    assert _placed(["tests/test_cart.py::test_total PASSED   [ 9%]", "Process completed"]).path is None
    assert _placed(["✓ src/cart.test.ts (3 tests) 12ms"]).path is None
    assert _placed(["✓ src/cart.test.ts (3 tests) 12ms", "Error: src/label.ts is invalid"]).path == "src/label.ts"


def test_a_base_name_alone_is_the_path_the_steps_command_gives_it() -> None:
    draft = Draft(None, "unknown", "==== add-1 FAILED", 1, 2, role="fallback")
    place_block(draft, ["==== add-1 FAILED", "add.test:\tTotal\t2\tFailed\t1"], "tclsh", command="tclsh tests/add.test")
    assert (draft.path, draft.line) == ("tests/add.test", None)


@pytest.mark.parametrize(
    ("lines", "step", "kind"),
    [
        (["shop/a.py:1: error: Incompatible types"], "mypy shop", "type_error"),
        (["./main.go:7:2: fmt.Printf format %d has arg name of wrong type"], "go vet ./...", "lint"),
        (["npm error code ENOTCACHED"], "npm ci", "dependency"),
        (['✘ [ERROR] Expected ")" but found ";"', "    src/index.js:2:14:"], "npx esbuild src/index.js", "build_error"),
        (["thread 'tests::adds' panicked at src/lib.rs:11:9:"], "cargo test", "test_failure"),
        (["make: *** No rule to make target 'main.o'. Stop."], "make", "build_error"),
    ],
)
def test_a_blocks_kind_comes_from_its_step_and_its_words(lines: list[str], step: str, kind: str) -> None:
    assert _placed(lines, step=step).kind == kind


@pytest.mark.parametrize(
    ("line", "place"),
    [
        ("grammar/calc.y:5.7-12: error: symbol 'NUMBER' is used", ("grammar/calc.y", 5, 7)),  # GNU's dotted column
        ("SyntaxError: /w/src/cart.js: Unexpected token, expected ',' (2:41)", ("/w/src/cart.js", 2, 41)),
        ("  styles/main.scss 4:10  root stylesheet", ("styles/main.scss", 4, 10)),
        ("Error: docs/deps.dot: syntax error in line 3 near ';'", ("docs/deps.dot", 3, None)),
        ("Warning 2 in paper/main.tex line 3: Non-breaking space", ("paper/main.tex", 3, None)),
        ("docker/Dockerfile:3 DL3008 warning: Pin versions in apt get install", ("docker/Dockerfile", 3, None)),
    ],
)
def test_more_shapes_many_tools_share_name_a_place(line: str, place: tuple[object, ...]) -> None:
    draft = _placed(["Error: build failed", line])
    assert (draft.path, draft.line, draft.column) == place


def test_a_line_named_in_words_is_in_the_file_the_block_or_the_command_names() -> None:
    jsonlint = ["File: config/app.json", "Parse error on line 4, column 1:"]
    assert _place(jsonlint, command="jsonlint config/app.json") == ("config/app.json", 4, 1)
    jq = ["parse error: Expected separator between values at line 4, column 9"]
    assert _place(jq, command="jq . config/app.json") == ("config/app.json", 4, 9)
    sqlite = ["Parse error near line 3: no such table: user"]
    assert _place(sqlite, command="sqlite3 -bail app.db < db/001_init.sql") == ("db/001_init.sql", 3, None)
    assert _place(jq, command="jq -s . a.json b.json") == (None, None, None), "which of two files: neither"
    trufflehog = ["Found unverified result", "Detector Type: AWS", "File: config/settings.py", "Line: 12"]
    assert _place(trufflehog, command="trufflehog filesystem .") == ("config/settings.py", 12, None)
    assert _place(["Error in the pipeline 3 times"], command="x a.json") == (None, None, None)


def test_a_python_traceback_is_placed_at_its_innermost_project_frame_without_its_header() -> None:
    green = [
        "AssertionError: 3 != 4",
        '  File "/root/.pyenv/versions/3.11.7/lib/python3.11/unittest/case.py", line 579, in _callTestMethod',
        '  File "/w/demo/tests/test_cart.py", line 6, in test_total',
        '  File "/w/demo/tests/helpers.py", line 2, in check',
        '  File "/root/.pyenv/versions/3.11.7/lib/python3.11/unittest/case.py", line 873, in assertEqual',
    ]
    assert _place(green) == ("/w/demo/tests/helpers.py", 2, None)


def test_a_project_frame_a_stack_threw_at_comes_before_the_runners_own_line() -> None:
    cucumber = [
        "✖ Then the total is 3 # features/step_definitions/cart.js:8",
        "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:",
        "    at World.<anonymous> (/w/demo/features/step_definitions/cart.js:9:10)",
        "    at /w/demo/node_modules/@cucumber/cucumber/lib/runtime.js:12:5",
    ]
    assert _place(cucumber) == ("/w/demo/features/step_definitions/cart.js", 9, 10)


def test_a_scoped_packages_folder_is_no_project_path() -> None:
    assert _place(["TypeError: x", "    at f (/tmp/js/node_modules/@babel/parser/lib/index.js:369:19)"])[0] is None


def test_what_a_block_is_from_its_checker_and_its_warnings() -> None:
    tidy = ["line 6 column 1 - Warning: <blink> is not approved by W3C"]
    assert _drafted(tidy, "tidy -q -e site/index.html").kind == "lint", "a step that failed on warnings alone"
    assert _drafted(["docs/a.rst:8: (ERROR/3) invalid syntax"], "rstcheck docs/a.rst").kind == "lint"
    schema = ["Schema validation errors were encountered.", "  config/app.json::$.port: 'eighty' is not integer"]
    found = _drafted(schema, "check-jsonschema --schemafile s.json config/app.json")
    assert (found.kind, found.path) == ("lint", "config/app.json")
    assert _drafted(["tests/check_add.c:9: Assertion failed"], "./check_add").kind == "test_failure"


def _drafted(lines: list[str], command: str = "") -> Draft:
    draft = Draft(None, "unknown", lines[0], 1, len(lines), role="fallback")
    place_block(draft, lines, command.lower(), command=command)
    return draft


def _place(lines: list[str], command: str = "") -> tuple[object, ...]:
    draft = _drafted(lines, command)
    return draft.path, draft.line, draft.column


def test_an_error_at_a_place_from_a_tool_nothing_names_is_a_build_error() -> None:
    terraform = ["Error: Unsupported argument", '  on main.tf line 5, in resource "x" "y":']
    assert _drafted(terraform, "terraform validate").kind == "build_error"
    assert _drafted(["Done: 3 files at src/a.ts:3"], "zzz").kind == "unknown", "no failure word: no kind"


def test_what_a_step_no_table_knows_finds_wrong_in_a_data_file_is_lint() -> None:
    jq = ["parse error: Expected separator between values at line 4, column 9"]
    assert _drafted(jq, "jq . config/app.json").kind == "lint"
    assert _drafted(["src/a.c:3:1: error: expected ';'"], "./build.sh").kind == "build_error"


def test_a_validator_that_finds_a_data_file_invalid_reports_lint_without_a_failure_word() -> None:
    found = _drafted(["config/app.json invalid"], "ajv validate -s config/schema.json -d config/app.json")
    assert (found.kind, found.path) == ("lint", "config/app.json")
    desktop = ['data/demo.desktop: error: file contains key "Frobnicate" in group "Desktop Entry"']
    assert _drafted(desktop, "desktop-file-validate data/demo.desktop").kind == "lint"
    assert _drafted(["Done: src/a.ts"], "zzz").kind == "unknown", "a source file: no kind without a word"


def test_a_unified_reports_row_gives_the_range_it_spans() -> None:
    remark = ["README.md", "5:1-5:13 warning Unexpected unused definition  no-unused-definitions remark-lint"]
    draft = Draft(None, "unknown", "⚠ 1 warning", 3, 3, role="fallback")
    place_block(draft, ["⚠ 1 warning"], "remark --frail readme.md", before=remark)
    assert (draft.path, draft.line, draft.column) == ("README.md", 5, 1)


def test_a_file_a_formatter_or_upgrader_rewrote_is_lint() -> None:
    found = _drafted(["Rewriting shop/greet.py"], "pyupgrade --py38-plus shop/greet.py")
    assert (found.kind, found.path) == ("lint", "shop/greet.py")
    assert _drafted(["Building shop/greet.py"], "zzz shop/greet.py").kind == "unknown"


def test_a_block_that_reports_a_secret_is_a_security_finding() -> None:
    dodgy = ['      "message": "Possible hardcoded secret key"', "  ]", "}"]
    assert _drafted(dodgy, "dodgy").kind == "security"
    assert _drafted(["src/a.ts:3:1: error: Unexpected token"], "zzz").kind == "build_error"


def test_a_json_reports_path_and_line_keys_are_its_place() -> None:
    report = ["{", '  "warnings": [', "    {", '      "path": "shop/settings.py",', '      "line": 3,']
    draft = Draft(None, "unknown", "}", 9, 9, role="fallback")
    place_block(draft, ["}"], "dodgy", before=[*report, '      "message": "Possible hardcoded secret key"'])
    # the report's message above the block names a secret: dodgy's finding is a security one
    assert (draft.path, draft.line, draft.kind) == ("shop/settings.py", 3, "security")
    library = Draft(None, "unknown", "}", 3, 3, role="fallback")
    place_block(library, ["}"], "zzz", before=['"file": "/usr/lib/python3/x.py",', '"line": 3'])
    assert library.path is None
