"""Issue titles, markers and authorship: the pure rules behind finding and filing issues."""

from __future__ import annotations

from gauntlet.effects.bodies import body_of
from gauntlet.effects.models import FileIssue
from gauntlet.effects.views import IssueView
from gauntlet.github.hub import is_ours, marker_keys
from gauntlet.github.issues import MAX_TITLE_CHARS, issue_title


def issue(title: str, severity: str | None = "critical", kind: str = "needs-human") -> FileIssue:
    return FileIssue.model_validate(
        {
            "kind": kind,
            "ident": "main-red-1",
            "title": title,
            "view": IssueView(repository="octo/app", summary="main is red", severity=severity),
        }
    )


def test_title_is_prefixed_once_one_line_and_bounded() -> None:
    assert issue_title(issue("main is red: tests")) == "[Gauntlet/critical] main is red: tests"
    assert issue_title(issue("[Gauntlet/minor]  main\nis red")) == "[Gauntlet/critical] main is red"
    assert issue_title(issue("x", severity=None)) == "[Gauntlet/needs-human] x"
    long = issue_title(issue("word " * 100))
    assert len(long) == MAX_TITLE_CHARS and long.endswith("…")
    assert issue_title(issue("   ")) == "[Gauntlet/critical] main is red"


def test_the_body_carries_the_contract_marker_of_its_key() -> None:
    effect = issue("t")
    assert marker_keys(body_of(effect)) == (effect.key,)
    assert marker_keys(None) == () and marker_keys("<!-- gauntlet:key=a -->, <!-- gauntlet:key=b -->") == ("a", "b")


def test_only_gauntlets_own_identity_counts() -> None:
    assert is_ours("GitHub-Actions[bot]", "github-actions[bot]")
    assert not is_ours("github-actions", "github-actions[bot]")
    assert not is_ours(None, "github-actions[bot]")
