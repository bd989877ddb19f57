"""PR comments: severities stated in the comment make findings; conversation does not."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from gauntlet.errors import InputError
from gauntlet.ingest.comment import parse_comment, read_comments
from gauntlet.ingest.limits import DEFAULT_LIMITS

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "comments"


@pytest.mark.parametrize(
    ("body", "severity", "message"),
    [
        ("critical: SQL built from user input", "critical", "SQL built from user input"),
        ("**major**: leaks a file handle", "major", "leaks a file handle"),
        ("[major] leaks a file handle", "major", "leaks a file handle"),
        ("[nit] trailing space", "nitpick", "trailing space"),
        ("nit: rename `x`", "nitpick", "rename x"),
        ("Minor: typo in the docstring", "minor", "typo in the docstring"),
        ("issue (blocking): null dereference", "major", "null dereference"),
        ("issue: null dereference", "major", "null dereference"),
        ("issue (non-blocking): could be simpler", "minor", "could be simpler"),
        ("suggestion (non-blocking): use a dict", "minor", "use a dict"),
        ("suggestion (blocking): add a test", "major", "add a test"),
        ("nitpick: spacing", "nitpick", "spacing"),
        ("question (blocking): is this thread-safe?", "major", "is this thread-safe?"),
        ("**issue (blocking):**\nthe lock is never released", "major", "the lock is never released"),
        ("**[critical]** 2 failing tests", "critical", "2 failing tests"),
        ("_⚠️ Potential issue_\n\n**Missing await**", "major", "Missing await"),
        ("_🛠️ Refactor suggestion_\n\nExtract a helper", "minor", "Extract a helper"),
        ("_⚠️ Potential issue_ | _🔴 Critical_\n\n**Unset X crashes**", "critical", "Unset X crashes"),
        ("_🎯 Functional Correctness_ | _🟡 Minor_\n\nOff by one", "minor", "Off by one"),
        (
            "![high](https://www.gstatic.com/codereviewagent/high-priority.svg)\n\nThe loop never ends.",
            "major",
            "The loop never ends.",
        ),
        ("**Critical**\nSQL built from input", "critical", "SQL built from input"),
        ("**High:** races on reload", "major", "races on reload"),
        ("### Low\nrename it", "nitpick", "rename it"),
        (
            "**<sub><sub>![P1 Badge](https://img.shields.io/badge/P1-orange)</sub></sub>  Handle empty input**",
            "major",
            "Handle empty input",
        ),
    ],
)
def test_comments_that_state_a_severity_are_findings(body: str, severity: str, message: str) -> None:
    finding = parse_comment(body, path="src/a.py", line=3, author="Alice")
    assert finding is not None
    assert (finding.severity, finding.message, finding.source, finding.kind) == (severity, message, "comment", "review")
    assert (finding.path, finding.line, finding.tool) == ("src/a.py", 3, "alice")


@pytest.mark.parametrize(
    "body",
    [
        "LGTM!",
        "praise: lovely",
        "question: why?",
        "thought: maybe later",
        "note: this mirrors the old code",
        "I think this is critical: no",
        "> critical: quoted\n\nthanks",
        "",
        "<!-- gauntlet:key=pr-comment:1 -->\n**[critical]** 3 failing",
    ],
)
def test_conversation_is_not_a_finding(body: str) -> None:
    assert parse_comment(body) is None


def test_security_decoration_and_cwe_make_security_findings() -> None:
    finding = parse_comment("issue (security, blocking): shell injection, see CWE-78")
    assert finding is not None and (finding.kind, finding.category, finding.rule) == ("security", "security", "CWE-78")


def test_paths_outside_the_repository_are_dropped() -> None:
    finding = parse_comment("major: x", path="../../etc/passwd", line=1)
    assert finding is not None and (finding.path, finding.line) == (None, None)


def test_secrets_in_comments_are_redacted() -> None:
    finding = parse_comment("critical: token ghp_" + "a" * 36 + " is committed")
    assert finding is not None and "ghp_" not in finding.message + finding.excerpt


def test_github_comment_list() -> None:
    with (FIXTURES / "github/pr-review/comments.json").open("rb") as stream:
        findings = list(read_comments(stream, "comments.json", DEFAULT_LIMITS))
    assert [(f.tool, f.severity, f.kind, f.path, f.line) for f in findings] == [
        ("alice", "major", "security", "src/app/calc.py", 11),
        ("alice", "critical", "review", "src/app/calc.py", 6),
        ("bob", "nitpick", "review", "src/app/calc.py", 15),  # outdated: original_line
        ("bob", "minor", "review", "src/app/calc.py", 1),
        ("coderabbitai[bot]", "major", "review", "src/app/calc.py", 16),
    ]


@pytest.mark.parametrize("body", [b"{}", b'[{"body": 3}]', b"[1]", b"nope"])
def test_bad_comment_lists_are_input_errors(body: bytes) -> None:
    with pytest.raises(InputError, match=r"^c\.json: "):
        list(read_comments(io.BytesIO(body), "c.json", DEFAULT_LIMITS))
