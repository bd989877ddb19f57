"""Formats recognised from their documentation, for tools that could not be run here (.NET, PHP, Swift, Gradle,
CircleCI/GitLab/Jenkins exit lines). Real captures live in tests/fixtures/logs; these lines are transcribed
from the tools' documented output so that a change to a parser shows up somewhere."""

from __future__ import annotations

import pytest
from logscan_helpers import findings


@pytest.mark.parametrize(
    ("log", "expected"),
    [
        (
            "/home/runner/work/app/app/src/Program.cs(12,17): error CS0103: The name 'x' does not exist"
            " [/home/runner/work/app/app/src/App.csproj]",
            ("csc", "build_error", "src/Program.cs", 12, "CS0103"),
        ),
        (
            "  Failed Shop.Tests.CartTests.Total_Adds [12 ms]\n  Error Message:\n   Assert.Equal() Failure\n"
            "  Stack Trace:\n"
            "     at Shop.Tests.CartTests.Total_Adds() in /home/runner/work/a/a/tests/CartTests.cs:line 14",
            ("dotnet", "test_failure", "tests/CartTests.cs", 14, None),
        ),
        (
            "There was 1 failure:\n\n1) Tests\\CartTest::testTotal\nFailed asserting that 4 matches expected 3.\n\n"
            "/home/runner/work/app/app/tests/CartTest.php:12\n\nFAILURES!",
            ("phpunit", "test_failure", "tests/CartTest.php", 12, None),
        ),
        (
            "PHP Fatal error:  Uncaught Error: Call to undefined function foo() in /app/src/a.php:3",
            ("php", "crash", "src/a.php", 3, None),
        ),
        (
            "Sources/App/main.swift:3:5: error: cannot find 'x' in scope",
            ("swiftc", "build_error", "Sources/App/main.swift", 3, None),
        ),
        (
            "AppTest > addsNumbers() FAILED\n    org.opentest4j.AssertionFailedError at AppTest.java:12",
            ("gradle", "test_failure", "AppTest.java", 12, None),
        ),
        (
            "e: file:///home/runner/work/a/a/src/main/kotlin/App.kt:3:5 Unresolved reference: foo\n"
            "> Task :compileKotlin FAILED",
            ("kotlinc", "build_error", "src/main/kotlin/App.kt", 3, None),
        ),
        (
            "[ERROR] /home/runner/work/app/app/src/main/java/demo/App.java:[5,21] incompatible types: "
            "java.lang.String cannot be converted to int",
            ("javac", "build_error", "src/main/java/demo/App.java", 5, None),
        ),
        (
            "[ERROR] Tests run: 2, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.05 s <<< FAILURE!"
            " -- in demo.AppTest\n"
            "[ERROR] demo.AppTest.testAdd -- Time elapsed: 0.01 s <<< FAILURE!\n"
            "org.opentest4j.AssertionFailedError: expected: <4> but was: <3>\n"
            "\tat demo.AppTest.testAdd(AppTest.java:12)\n"
            "[ERROR] Failures: \n"
            "[ERROR]   AppTest.testAdd:12 expected: <4> but was: <3>\n"
            "[ERROR] Tests run: 2, Failures: 1, Errors: 0, Skipped: 0",
            ("maven", "test_failure", "AppTest.java", 12, None),
        ),
        (
            "main.go:12:2: ineffectual assignment to err (ineffassign)\nexit status 1",
            ("golangci-lint", "lint", "main.go", 12, "ineffassign"),
        ),
        (
            "[error] /home/runner/work/a/a/src/main/scala/Cart.scala:12:5: type mismatch;",
            ("scalac", "build_error", "src/main/scala/Cart.scala", 12, None),
        ),
        (
            "[info] CartSpec:\n[info] - should add tax *** FAILED ***\n"
            "[info]   120.0 did not equal 121.0 (CartSpec.scala:9)",
            ("scalatest", "test_failure", "CartSpec.scala", 9, None),
        ),
        (
            "  1) test adds (MathTest)\n     test/math_test.exs:5\n     Assertion with == failed\n"
            "     code:  assert 1 + 1 == 3",
            ("exunit", "test_failure", "test/math_test.exs", 5, None),
        ),
        (
            "** (CompileError) lib/cart.ex:3: undefined function foo/0",
            ("elixir", "build_error", "lib/cart.ex", 3, None),
        ),
        (
            "/home/runner/work/a/a/Tests/AppTests/CartTests.swift:12: error: -[AppTests.CartTests testTotal] : "
            'XCTAssertEqual failed: ("3") is not equal to ("4")',
            ("xctest", "test_failure", "Tests/AppTests/CartTests.swift", 12, None),
        ),
        (
            "app/models/cart.rb:3:5: W: Lint/UselessAssignment: Useless assignment to variable - total.\n"
            "1 file inspected, 1 offense detected\n##[error]Process completed with exit code 1.",
            ("rubocop", "lint", "app/models/cart.rb", 3, "Lint/UselessAssignment"),
        ),
        (
            'Jest: "global" coverage threshold for lines (90%) not met: 85.5%',
            ("jest", "lint", None, None, "coverage"),
        ),
        (
            "Fatal Python error: Segmentation fault\n\nCurrent thread 0x00007f (most recent call first):",
            ("python", "crash", None, None, None),
        ),
        (
            "fatal error: all goroutines are asleep - deadlock!\n\ngoroutine 1 [chan receive]:",
            ("go", "crash", None, None, None),
        ),
        (
            "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
            ("node", "crash", None, None, "out-of-memory"),
        ),
        ("building\nExited with code exit status 2", (None, "unknown", None, None, None)),
        ("tests\nERROR: Job failed: exit code 137", (None, "crash", None, None, None)),
        ("tests\nERROR: Job failed: command terminated with exit code 1", (None, "unknown", None, None, None)),
        (
            "checkout\n##[error]The process '/usr/bin/git' failed with exit code 128",
            (None, "unknown", None, None, None),
        ),
        ("stage\nFinished: FAILURE", (None, "unknown", None, None, None)),
        (
            "##[error]The job running on runner GitHub Actions 2 has exceeded the maximum execution time of 5 minutes.",
            (None, "timeout", None, None, None),
        ),
        ("##[error]The runner has received a shutdown signal.", (None, "infra", None, None, None)),
    ],
)
def test_documented_format(log: str, expected: tuple[object, ...]) -> None:
    [finding] = findings(log.encode() + b"\n")
    assert (finding.tool, finding.kind, finding.path, finding.line, finding.rule) == expected
