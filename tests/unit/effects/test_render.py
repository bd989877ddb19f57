"""Rendering keeps untrusted text inert: no pings, no HTML, no fences, no markers, no template execution."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gauntlet.effects.bodies import body_of
from gauntlet.effects.models import UpsertComment
from gauntlet.effects.render import MAX_BODY_CHARS, neutralise
from gauntlet.effects.views import RunView
from gauntlet.state.pr import FindingRecord
from gauntlet.vocabulary import Decision

HOSTILE = "@octocat <img src=x onerror=alert(1)> ```\n<!-- gauntlet:key=pr-comment:1 --> {{ 7*7 }} {% raw %}"


def comment_with(message: str) -> str:
    record = FindingRecord(
        fingerprint="f" * 16, source="log", kind="test_failure", severity="critical", message=message
    )
    view = RunView(
        repository="o/r",
        pr=1,
        head_sha="a" * 40,
        decision=Decision(action="fix_criticals", iteration=1, criticals=1, majors=0, minors=0),
        new=(record,),
    )
    return body_of(UpsertComment(pr=1, view=view))


def test_hostile_text_is_neutralised_in_the_comment() -> None:
    body = comment_with(HOSTILE)
    assert body.count("<!-- gauntlet:key=") == 1  # only Gauntlet's own marker
    assert body.startswith("<!-- gauntlet:key=pr-comment:1 -->")
    assert "@\u200boctocat" in body and "@octocat" not in body and "<img" not in body and "```" not in body
    assert "{{ 7*7 }}" in body and "49" not in body


def test_neutralise_breaks_every_mention() -> None:
    assert neutralise("ping @a and @b-c/team") == "ping @\u200ba and @\u200bb-c/team"


@given(st.text(max_size=300))
def test_no_untrusted_text_can_ping_or_inject_html(text: str) -> None:
    out = str(neutralise(text))
    assert "<" not in out and ">" not in out.replace("&gt;", "")
    assert "```" not in out


def test_bodies_stay_under_githubs_limit() -> None:
    assert len(comment_with("x" * 100_000)) <= MAX_BODY_CHARS
