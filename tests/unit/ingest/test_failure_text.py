"""What a failure's text says: the line that tells what failed, and the innermost frame in the repository."""

from __future__ import annotations

import io

from gauntlet.ingest.failure_text import failure_location, failure_message, strip_ansi
from gauntlet.ingest.junit import read_junit
from gauntlet.ingest.limits import DEFAULT_LIMITS

# pytest's long traceback: the assertion comes after more than 300 characters of context.
PYTEST_TRACEBACK = (
    "self = <tests.test_core.TestCore testMethod=test_total>\n\n"
    "    def test_total(self):\n"
    + "".join(f"        value_{i} = compute_something_long({i}, option='a fairly long argument')\n" for i in range(8))
    + ">       self.assertEqual(total(), 0)\n"
    "E   AssertionError: 143 != 0\n\n"
    "tests/test_core.py:77: AssertionError"
)


def test_a_short_text_is_kept_whole_on_one_line() -> None:
    assert failure_message("assert 0 == 4\n +  where 0 = add(2, 2)", 300) == "assert 0 == 4 + where 0 = add(2, 2)"


def test_a_long_traceback_gives_the_line_that_says_what_failed() -> None:
    assert failure_message(PYTEST_TRACEBACK, 300) == "AssertionError: 143 != 0"


def test_an_error_line_after_a_long_preamble_is_found() -> None:
    text = "x" * 400 + "\nnoise\nAssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n0 !== 4\n"
    assert failure_message(text, 300) == "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: 0 !== 4"


def test_ansi_codes_are_stripped() -> None:
    coloured = (
        "\x1b[31m\x1b[1mAssertionError\x1b[22m: expected \x1b[32m4\x1b[39m\x1b(B\x1b]8;;file:///x\x07link\x1b]8;;\x07"
    )
    assert strip_ansi(coloured) == "AssertionError: expected 4link"
    assert strip_ansi("[32m+ expected[39m [31m- actual[39m [x] arr[0]") == "+ expected - actual [x] arr[0]"
    assert failure_message(coloured, 300) == "AssertionError: expected 4link"


def test_the_innermost_own_frame_is_the_location() -> None:
    python = 'Traceback (most recent call last):\n  File "/w/tests/test_a.py", line 3, in test\n'
    python += '  File "/w/src/a.py", line 9, in f\n  File "/usr/lib/python3/json/__init__.py", line 1, in loads\n'
    assert failure_location(python, "/w") == failure_location(python.replace("/w/", ""), None)
    frame = failure_location(python, "/w")
    assert frame is not None and (frame.path, frame.line) == ("src/a.py", 9)
    js = "TypeError: x\n    at f (/w/node_modules/lib/index.js:1:1)\n"
    js += "    at g (/w/src/a.js:4:2)\n    at /w/test/a.test.js:9:1"
    frame = failure_location(js, "/w")
    assert frame is not None and (frame.path, frame.line, frame.column) == ("src/a.js", 4, 2)
    dotnet = "   at A.B() in C:\\w\\src\\B.cs:line 12\n   at T.C() in C:\\w\\tests\\T.cs:line 3"
    frame = failure_location(dotnet, "C:\\w")
    assert frame is not None and (frame.path, frame.line) == ("src/B.cs", 12)


def test_no_frame_outside_the_repository_is_a_location() -> None:
    assert failure_location("at f (/usr/lib/node/x.js:1:2)\n  at node:internal/timers:483:21", "/w") is None
    assert failure_location('File "../elsewhere.py", line 3', None) is None


def test_junit_keeps_the_assertion_of_a_long_traceback_and_strips_mocha_colours() -> None:
    body = (
        '<testsuite name="pytest"><testcase classname="tests.test_core" name="test_total" file="tests/test_core.py">'
        f"<failure>{PYTEST_TRACEBACK.replace('<', '&lt;').replace('>', '&gt;')}</failure></testcase>"
        '<testcase classname="sum" name="adds"><failure message="[31mexpected 0 to equal 4[39m">'
        "AssertionError: expected 0 to equal 4</failure></testcase></testsuite>"
    ).encode()
    pytest_case, mocha_case = read_junit(io.BytesIO(body), "report.xml", DEFAULT_LIMITS)
    assert pytest_case.message == "AssertionError: 143 != 0"
    assert (pytest_case.path, pytest_case.line) == ("tests/test_core.py", 77)
    assert mocha_case.message == "expected 0 to equal 4"


def test_hostile_text_costs_linear_time() -> None:
    import time

    for text in (" in x" * 20_000, ":line 3" * 15_000, " " + "a." * 50_000, "Error" * 20_000):
        started = time.perf_counter()
        failure_location(text, "/w")
        failure_message(text, 300)
        assert time.perf_counter() - started < 2.0  # a quadratic pattern took 21 s on the first
