"""Known-failure rules from issue bodies (known.py): what parses, what is answered, and patterns in bounded time."""

from __future__ import annotations

import json
import time
from typing import get_args

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gauntlet.known import (
    KINDS,
    MAX_KNOWN_ISSUES,
    KnownRule,
    RuleProblem,
    block_text,
    compile_pattern,
    known_failures,
    parse_issue,
    pattern_search,
)
from gauntlet.models import Kind


def body(block: str) -> str:
    return f"Seen on main since Tuesday.\n\n```json\n{block}\n```\n"


def test_kinds_are_the_contract_kinds() -> None:
    assert get_args(Kind) == KINDS


def test_a_rule_with_every_field() -> None:
    rule = parse_issue(12, body('{"message": "ConnectionReset", "path": "tests/net/**", "kind": "test_failure"}'), "u")
    assert rule == KnownRule(
        issue=12, url="u", message="ConnectionReset", path="tests/net/**", kind="test_failure", pattern=None
    )
    assert parse_issue(13, body('{"pattern": "timed? ?out after \\\\d+s"}')) == KnownRule(
        issue=13, pattern="timed? ?out after \\d+s"
    )


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("no block at all", "no fenced ```json block"),
        (body('{"message": "abc",}'), "not valid JSON"),
        (body('["message"]'), "must be an object"),
        (body("{}"), "needs `message` or `pattern`"),
        (body('{"mesage": "ConnectionReset"}'), "unknown field"),
        (body('{"message": "  "}'), "message"),
        (body('{"message": "abc", "kind": "bogus"}'), "kind must be one of"),
        (body('{"pattern": "a*"}'), "empty buffer"),
        (body('{"pattern": "(a)\\\\1"}'), "Back-references"),
        (body('{"pattern": "(?=a)b"}'), "Zero-width"),
        (body('{"pattern": "([^x]{99}){99}y"}'), "repeats too much"),
        (body('{"pattern": "' + "a" * 300 + '"}'), "at most 256"),
        ("```json\n" + "{" * 5000 + "\n```", "longer than"),
        ("```json\n" + "[" * 4000 + "\n```", "nests too deeply"),
        (body('{"message": {"nested": "object"}}'), "valid string"),
    ],
)
def test_a_block_that_cannot_be_used_says_why(text: str, said: str) -> None:
    problem = parse_issue(7, text)
    assert isinstance(problem, RuleProblem)
    assert said in problem.reason
    assert problem.version == parse_issue(7, text).version  # type: ignore[union-attr]
    assert parse_issue(7, text + " edited").version != problem.version  # type: ignore[union-attr]


def test_a_catastrophic_pattern_is_matched_in_linear_time() -> None:
    assert compile_pattern("(a+)+$") is None
    search = pattern_search("(a+)+$")
    started = time.monotonic()
    assert not search("a" * 10_000 + "!")  # Python's re would not finish this in a lifetime
    assert search("aaaa")
    assert time.monotonic() - started < 1.0


def test_issues_are_read_up_to_the_cap_and_pull_requests_are_left_out() -> None:
    items = [{"number": n, "body": body('{"message": "boom!"}'), "html_url": f"u/{n}"} for n in range(1, 10_001)]
    items.insert(0, {"number": 99_999, "pull_request": {}, "body": body('{"message": "boom!"}')})
    read = known_failures(items)
    assert read.read == MAX_KNOWN_ISSUES and read.more
    assert [r.issue for r in read.rules][:2] == [1, 2]
    assert known_failures(items[:3]).more is False


def test_the_block_gauntlet_files_parses_back() -> None:
    rule = KnownRule(issue=1, message="AssertionError: 3 != 4", path="tests/test_calc.py")
    assert parse_issue(1, "Filed by `/gauntlet known`.\n\n" + block_text(rule)) == rule


def test_the_block_gauntlet_files_is_inert_markdown_and_parses_back() -> None:
    hostile = "boom ``` @octo/core <img src=x> & done"
    rule = KnownRule(issue=1, message=hostile, kind="crash")
    text = block_text(rule)
    inside = text.removeprefix("```json\n").removesuffix("\n```")
    assert "`" not in inside and "@" not in inside and "<" not in inside
    assert parse_issue(1, text) == rule


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(max_size=300),
        st.text(alphabet='{}[]":,ab\\ 0-9.*+?()$^|', max_size=200).map(lambda t: f"```json\n{t}\n```"),
        st.dictionaries(
            st.sampled_from(["message", "pattern", "path", "kind", "other"]),
            st.one_of(st.text(max_size=40), st.integers(), st.none()),
        ).map(lambda d: "```json\n" + json.dumps(d) + "\n```"),
    )
)
def test_any_body_is_a_rule_or_a_problem_never_an_error(text: str) -> None:
    parsed = parse_issue(3, text)
    assert isinstance(parsed, KnownRule | RuleProblem)
    if isinstance(parsed, KnownRule) and parsed.pattern is not None:
        pattern_search(parsed.pattern)("a" * 2000 + "!")
