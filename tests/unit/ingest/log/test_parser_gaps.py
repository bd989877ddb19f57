"""Log-line shapes of issue 17's gaps and the corpus tools: each line as the tool prints it (from the corpus in
tests/fixtures/corpus, or the tool's documented format where named), fed to the parsers as prefilter hits."""

from __future__ import annotations

import pytest

from gauntlet.ingest.limits import DEFAULT_LIMITS
from gauntlet.ingest.log import make_parsers
from gauntlet.ingest.log.analyser import Analyser
from gauntlet.ingest.log.diagnostics import step_tool
from gauntlet.models import Finding


def parsed(text: str, step: str = "") -> list[Finding]:
    """The findings of ``text``'s lines, each fed as a confirmed prefilter hit, in a step running ``step``."""
    analyser = Analyser(make_parsers(), DEFAULT_LIMITS)
    analyser.set_step(step)
    for number, line in enumerate(text.splitlines(), start=1):
        analyser.feed(number, line, confirmed=True)
    analyser.finish()
    return list(analyser.found)


def where(found: list[Finding]) -> list[tuple[str | None, str, str | None, int | None]]:
    return [(f.tool, f.kind, f.path, f.line) for f in found]


@pytest.mark.parametrize(
    ("step", "log", "expected"),
    [
        # go build -gcflags=-C, gccgo and go vet of older toolchains print no column.
        (
            "go build ./...",
            '# example.com/shop/cart\ncart/cart.go:11: cannot use "n" as int value',
            [("go", "build_error", "cart/cart.go", 11)],
        ),
        (
            "go vet ./...",
            "# example.com/shop\n./main.go:7:2: fmt.Printf format %d has arg name of wrong type string",
            [("go vet", "lint", "main.go", 7)],
        ),
        # golangci-lint without the runner's exit line; errcheck twice with one message at two lines
        # (golangci-lint's documented line format: path:line:col: message (linter)).
        (
            "golangci-lint run",
            "main.go:12:10: Error return value of `f.Close` is not checked (errcheck)\n"
            "main.go:20:10: Error return value of `f.Close` is not checked (errcheck)",
            [("golangci-lint", "lint", "main.go", 12), ("golangci-lint", "lint", "main.go", 20)],
        ),
        (
            "staticcheck ./...",
            "shop.go:6:2: unnecessary use of fmt.Sprintf (S1039)",
            [("staticcheck", "lint", "shop.go", 6)],
        ),
        # sbt 0.13 prints no column (sbt 1.x does).
        (
            "sbt compile",
            "[error] /home/runner/work/a/a/src/main/scala/Foo.scala:6: not found: value x",
            [("scalac", "build_error", "src/main/scala/Foo.scala", 6)],
        ),
        (
            "rubocop",
            "app/x.rb:4:1: C: [Correctable] Style/StringLiterals: Prefer single-quoted strings.",
            [("rubocop", "lint", "app/x.rb", 4)],
        ),
        (
            "bundle exec standardrb",
            "standard: Run `standardrb --fix` to fix up 1 problem.\n"
            "  app/x.rb:4:1: Lint/UselessAssignment: Useless assignment to variable - `x`.",
            [("standardrb", "lint", "app/x.rb", 4)],
        ),
        (
            "black --check .",
            "error: cannot format src/a.py: Cannot parse: 3:7: def f(:",
            [("black", "lint", "src/a.py", 3)],
        ),
        (
            "black --check .",
            "error: cannot parse: /home/runner/work/a/a/shop/g.py:1:6",
            [("black", "lint", "shop/g.py", 1)],
        ),
        (
            "erlc -o /tmp shop.erl",
            "shop.erl:5:21: variable 'Missing' is unbound",
            [("erlc", "build_error", "shop.erl", 5)],
        ),
        (
            "lua5.4 total.lua",
            "lua5.4: total.lua:2: attempt to index a nil value (field 'count')",
            [("lua", "crash", "total.lua", 2)],
        ),
        (
            "luac5.4 -p bad.lua",
            "luac5.4: bad.lua:1: unexpected symbol near '='",
            [("luac", "build_error", "bad.lua", 1)],
        ),
        (
            "ruby -c bad.rb",
            "bad.rb:3: syntax error, unexpected end-of-input, expecting `end'",
            [("ruby", "build_error", "bad.rb", 3)],
        ),
        ("codespell README.md", "README.md:1: recieves ==> receives", [("codespell", "lint", "README.md", 1)]),
        (
            "xmllint --noout config.xml",
            "config.xml:4: parser error : Opening and ending tag mismatch: item",
            [("xmllint", "lint", "config.xml", 4)],
        ),
        (
            "gfortran demo.f90",
            "demo.f90:4:7:\n\n    4 |   n = m + 1\n      |       1\nError: Symbol 'm' has no type",
            [("gfortran", "build_error", "demo.f90", 4)],
        ),
        (
            "cppcheck --quiet src",
            "src/arr.c:4:6: error: Array 'a[3]' accessed at index 3 [arrayIndexOutOfBounds]",
            [("cppcheck", "lint", "src/arr.c", 4)],
        ),
        (
            "shellcheck -f gcc clean.sh",
            "clean.sh:2:1: warning: Use 'cd ... || exit' in case cd fails. [SC2164]",
            [("shellcheck", "lint", "clean.sh", 2)],
        ),
        (
            "perl -c calc.pl",
            'Global symbol "$count" requires explicit package name at calc.pl line 4.',
            [("perl", "build_error", "calc.pl", 4)],
        ),
        ("perl run.pl", "config not found at run.pl line 4.", [("perl", "crash", "run.pl", 4)]),
        ("prove t", "#   Failed test 'adds'\n#   at t/add.t line 4.", [("prove", "test_failure", "t/add.t", 4)]),
        (
            "jshint lib.js",
            "lib.js: line 2, col 12, Missing semicolon.\nlib.js: line 3, col 11, Missing semicolon.",
            [("jshint", "lint", "lib.js", 2), ("jshint", "lint", "lib.js", 3)],
        ),
        (
            "tclsh total.tcl",
            'can\'t read "missing": no such variable\n    while executing\n'
            '"expr {1 + $missing}"\n    (file "total.tcl" line 3)',
            [("tclsh", "crash", "total.tcl", 3)],
        ),
        (
            "shellcheck list.sh",
            "In list.sh line 2:\nfor f in $(ls *.txt); do\n"
            "         ^---------^ SC2045 (error): Iterating over ls output is fragile. Use globs.",
            [("shellcheck", "lint", "list.sh", 2)],
        ),
        (
            "bash build.sh",
            "build.sh: line 4: gauntlet-missing-tool: command not found",
            [("shell", "build_error", "build.sh", 4)],
        ),
        ("dash deploy.sh", "deploy.sh: 2: no-such-tool: not found", [("shell", "build_error", "deploy.sh", 2)]),
        ("zsh s.zsh", "s.zsh:2: command not found: missing-zsh-cmd", [("shell", "build_error", "s.zsh", 2)]),
        (
            "valgrind ./oob",
            "==7== Invalid read of size 4\n==7==    at 0x109163: main (oob.c:6)\n==7== ",
            [("valgrind", "crash", "oob.c", 6)],
        ),
        (
            "bandit -r app",
            ">> Issue: [B602:subprocess_popen_with_shell_equals_true] shell=True identified.\n"
            "   Severity: High   Confidence: High\n   Location: app/run.py:5:11",
            [("bandit", "security", "app/run.py", 5)],
        ),
        (
            "yamllint ci.yml",
            'ci.yml\n  2:1       error    duplication of key "key" in mapping  (key-duplicates)',
            [("yamllint", "lint", "ci.yml", 2)],
        ),
        (
            "stylelint css/*.css",
            'css/site.css\n  2:3   ✖  Unknown property "colr"       property-no-unknown',
            [("stylelint", "lint", "css/site.css", 2)],
        ),
    ],
)
def test_tool_lines(step: str, log: str, expected: list[tuple[str | None, str, str | None, int | None]]) -> None:
    assert where(parsed(log, step)) == expected


def test_a_compiler_warning_or_note_is_no_failure() -> None:
    assert parsed("src/b.c:5:12: warning: implicit declaration of function 'strlen'", "gcc -c src/b.c") == []
    assert parsed("x.nim:3:1: Hint: used config file [Conf]", "nim c x.nim") == []


def test_frames_and_listings_are_no_diagnostics() -> None:
    assert parsed("  lib/shop.ex:3: Shop.total/1", "elixirc lib/shop.ex") == []
    assert parsed("total.lua:2: in local 'total'", "lua total.lua") == []


def test_one_message_at_one_line_printed_twice_is_one_finding() -> None:
    line = "main.go:12:10: Error return value of `f.Close` is not checked (errcheck)"
    found = parsed(f"{line}\n{line}", "golangci-lint run")
    assert where(found) == [("golangci-lint", "lint", "main.go", 12)]


def test_repeated_messages_keep_their_fingerprints_when_lines_shift() -> None:
    """Two findings with one message are told apart by rank, not line: an edit above them changes neither."""
    before = parsed("a.erl:5:1: variable 'X' is unbound\na.erl:9:1: variable 'X' is unbound", "erlc a.erl")
    after = parsed("a.erl:7:1: variable 'X' is unbound\na.erl:11:1: variable 'X' is unbound", "erlc a.erl")
    assert len({f.fingerprint for f in before}) == 2
    assert [f.fingerprint for f in before] == [f.fingerprint for f in after]
    elsewhere = parsed(
        "/home/runner/work/b/b/a.erl:5:1: variable 'X' is unbound\n"
        "/home/runner/work/b/b/a.erl:9:1: variable 'X' is unbound",
        "erlc a.erl",
    )
    assert [f.fingerprint for f in elsewhere] == [f.fingerprint for f in before]  # another runner's checkout


def test_go_subtest_takes_the_parent_failure_with_its_own_line() -> None:
    verbose = (
        "=== RUN   TestDiv\n=== RUN   TestDiv/zero\n=== RUN   TestDiv/half\n"
        "    calc_test.go:13: Div(4, 2) = 8, want 2\n--- FAIL: TestDiv (0.00s)\n"
        "    --- PASS: TestDiv/zero (0.00s)\n    --- FAIL: TestDiv/half (0.00s)\nFAIL"
    )
    plain = (
        "--- FAIL: TestDiv (0.00s)\n    --- FAIL: TestDiv/half (0.00s)\n"
        "        calc_test.go:13: Div(4, 2) = 8, want 2\nFAIL"
    )
    for log in (verbose, plain):
        found = [f for f in parsed(log, "go test ./...") if f.kind == "test_failure"]
        assert [(f.test_id, f.path, f.line) for f in found] == [("TestDiv/half", "calc_test.go", 13)]
        assert found[0].message == "TestDiv/half: Div(4, 2) = 8, want 2"


def test_a_race_report_is_placed_at_the_repository_frame() -> None:
    log = (
        "==================\nWARNING: DATA RACE\nRead at 0x00c00001a258 by goroutine 8:\n"
        "  example.com/shop.Count.func1()\n      /home/runner/work/demo/demo/counter.go:7 +0x39\n\n"
        "Previous write at 0x00c00001a258 by goroutine 7:\n  testing.tRunner()\n"
        "      /usr/lib/go-1.19/src/testing/testing.go:1446 +0x216\n==================\n"
        "--- FAIL: TestCount (0.00s)\n    testing.go:1319: race detected during execution of test\nFAIL"
    )
    found = [f for f in parsed(log, "go test -race ./...") if f.kind == "test_failure"]
    assert [(f.test_id, f.path, f.line) for f in found] == [("TestCount", "counter.go", 7)]


def test_panics_in_two_packages_stay_two() -> None:
    log = (
        "panic: runtime error: index out of range [0] with length 0\n\ngoroutine 1 [running]:\n"
        "example.com/shop/a.First(...)\n\t/home/runner/work/demo/demo/a/a.go:3\nexit status 2\n"
        "FAIL\texample.com/shop/a\t0.007s\n"
        "panic: runtime error: index out of range [0] with length 0\n\ngoroutine 1 [running]:\n"
        "example.com/shop/b.First(...)\n\t/home/runner/work/demo/demo/b/b.go:3\nexit status 2\n"
        "FAIL\texample.com/shop/b\t0.007s"
    )
    crashes = [(f.path, f.line) for f in parsed(log, "go run ./...") if f.kind == "crash"]
    assert crashes == [("a/a.go", 3), ("b/b.go", 3)]
    same_file = log.replace("b/b.go:3", "a/a.go:9")
    crashes = [(f.path, f.line) for f in parsed(same_file, "go run ./...") if f.kind == "crash"]
    assert crashes == [("a/a.go", 3), ("a/a.go", 9)]


@pytest.mark.parametrize(
    ("command", "tool"),
    [
        ("luac5.4 -p x.lua", "luac"),
        ("npx eslint .", "eslint"),
        ("env A=1 /usr/bin/erlc x.erl", "erlc"),
        ("go-staticcheck ./...", "staticcheck"),
        ("", None),
    ],
)
def test_step_tool(command: str, tool: str | None) -> None:
    assert step_tool(command) == tool


def test_a_python_warning_printed_as_a_diagnostic_is_no_failure() -> None:
    """Diagnostics reads every extension now (.py too): Python's ``x.py:12: DeprecationWarning:`` is no error."""
    from gauntlet.ingest.limits import DEFAULT_LIMITS
    from gauntlet.ingest.log import scan

    log = b"running\n/home/runner/work/a/a/src/x.py:12: DeprecationWarning: old api\n  warn('x')\ndone\n"
    assert list(scan([log], DEFAULT_LIMITS)) == []


def test_gnu_dotted_columns_and_rule_codes_of_tools_nobody_wrote_a_parser_for() -> None:
    bison = "grammar/calc.y:5.7-12: error: symbol 'NUMBER' is used, but is not defined as a token"
    assert where(parsed(bison, "bison -o calc.c grammar/calc.y")) == [("bison", "build_error", "grammar/calc.y", 5)]
    bashate = "scripts/deploy.sh:4:1: E003 Indent not multiple of 4"
    assert where(parsed(bashate, "bashate scripts/deploy.sh")) == [("bashate", "lint", "scripts/deploy.sh", 4)]


def test_a_checkers_further_rules_on_one_line_are_one_finding() -> None:
    log = "README.md:4:1: MD001: Heading levels should only increment\nREADME.md:4:1: MD022: Headings need blanks"
    assert where(parsed(log, "pymarkdown scan README.md")) == [("pymarkdown", "lint", "README.md", 4)]


def test_a_syntax_error_with_no_python_frame_above_it_is_not_pythons() -> None:
    babel = "SyntaxError: /home/runner/work/demo/demo/src/cart.js: Unexpected token, expected ',' (2:41)"
    assert all(f.tool != "python" for f in parsed(babel, "babel src --out-dir lib"))
    python = '  File "app.py", line 2\n    def f(:\n          ^\nSyntaxError: invalid syntax'
    assert where(parsed(python, "python app.py")) == [("python", "build_error", "app.py", 2)]


def test_a_compilers_shape_printed_by_a_checker_the_step_ran_is_the_checkers() -> None:
    swiftlint = "Sources/App.swift:3:5: error: Force Cast Violation: Force casts should be avoided (force_cast)"
    assert where(parsed(swiftlint, "swiftlint --strict")) == [(None, "lint", "Sources/App.swift", 3)]
    assert where(parsed(swiftlint, "swift build")) == [("swiftc", "build_error", "Sources/App.swift", 3)]
    typos = "error: `teh` should be `the`\n  --> ./README.md:3:5\n  |\n3 | teh\n  | ^^^\n  |\n"
    assert where(parsed(typos, "typos")) == [(None, "lint", "README.md", 3)]
    rustc = "error[E0425]: cannot find value `x` in this scope\n --> src/main.rs:2:5\n"
    assert where(parsed(rustc, "cargo clippy -- -D warnings")) == [("cargo", "build_error", "src/main.rs", 2)]


def test_a_man_page_and_a_function_between_path_and_row_are_diagnostics() -> None:
    mandoc = "mandoc: man/demo.1:6:2: ERROR: skipping unknown macro: .BL"
    assert where(parsed(mandoc, "mandoc -T lint man/demo.1")) == [("mandoc", "lint", "man/demo.1", 6)]
    darglint = "shop/cart.py:total:7: DAR101: - rate"
    assert where(parsed(darglint, "darglint shop/cart.py")) == [("darglint", "lint", "shop/cart.py", 7)]


def test_an_interpreters_unbound_variable_is_a_crash() -> None:
    guile = "/home/runner/work/demo/demo/scripts/total.scm:3:10: Unbound variable: totl"
    assert [f.kind for f in parsed(guile, "guile scripts/total.scm")] == ["crash"]


def test_a_thrown_assertion_is_a_test_failure_at_the_projects_frame() -> None:
    log = "\n".join(
        [
            "AssertionError: 3 == 4",
            "    at Object.equal (/tmp/js/node_modules/nodeunit/lib/types.js:83:39)",
            "    at Object.exports.cartTotal (/home/runner/work/demo/demo/test/cart.js:3:8)",
            "    at Object.<anonymous> (/tmp/js/node_modules/nodeunit/lib/core.js:236:16)",
            "done",
        ]
    )
    found = parsed(log, "nodeunit test/cart.js")
    assert [(f.kind, f.path, f.line) for f in found] == [("test_failure", "test/cart.js", 3)]


def test_a_secret_a_checker_found_is_a_security_finding() -> None:
    secretlint = "\n".join(
        [
            "/home/runner/work/demo/demo/src/config.js",
            "  3:10  error  [GITHUB_TOKEN] found GitHub Token(****): ****  @secretlint/secretlint-rule-github",
        ]
    )
    assert [f.kind for f in parsed(secretlint, "secretlint 'src/**/*'")] == ["security"]
    hardcoded = "infra/main.tf:3: error: hard-coded secret key in provider block"
    assert [f.kind for f in parsed(hardcoded, "zzz infra")] == ["security"]
    assert [f.kind for f in parsed("src/a.js:3:1: error: Unexpected token", "zzz src")] == ["build_error"]
