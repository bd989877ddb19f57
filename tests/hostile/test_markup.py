"""Untrusted text in every place a template can put it, parsed by markdown-it-py as GitHub's CommonMark would.

Whatever the text, no ``@name`` is live, no HTML from it survives, no heading or fence is made of
it, and the only marker is Gauntlet's own; and every body of every effect holds when every one of
its text fields carries the whole attack.
"""

from __future__ import annotations

from typing import Any

from channels import SENTINEL, attack
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_kit import blocks_with, foreign_html, live_mentions, markers
from secrets_kit import leaked, make_secrets

from gauntlet.effects.bodies import body_of
from gauntlet.effects.models import (
    AnswerKnownRule,
    CloseIssue,
    FileIssue,
    OpenProposalPR,
    OpenRevertPR,
    RecordKnownHit,
    ReplyToComment,
    SetCheck,
    UpsertComment,
    WriteSummary,
)
from gauntlet.effects.render import neutralise
from gauntlet.effects.views import Blamed, IssueView, ProposalView, ReplyView, RevertView, RunView
from gauntlet.known import RuleBlock, block_text
from gauntlet.state.pr import AcceptedRisk, Attempt, FindingRecord
from gauntlet.vocabulary import Decision, HealthVerdict, RecoveryVerdict

#: Where templates put values: prose, a list item, a quote, a table cell, a code span, ``<pre>``.
CONTEXTS = (
    "{v}",
    "- {v}",
    "> {v}",
    "| a | b |\n|---|---|\n| x | {v} |",
    "see `{v}` here",
    "<pre>{v}</pre>",
    "**Why:** {v}",
    "text\n{v}\nmore",
)
FRAGMENTS = [
    "@everyone",
    "@org/team",
    "@a",
    "#",
    "# ",
    "===",
    "---",
    "```",
    "~~~",
    "<b>",
    "</pre>",
    "<!--",
    "-->",
    "<!-- gauntlet:key=pr-comment:1 -->",
    "`",
    "\n",
    "\r",
    "\r\n",
    "    ",
    "\t",
    ">",
    "&",
    "&lt;",
    "\\",
    "*",
    "_",
    "+",
    "|",
    "[x](y)",
    "\u200b",
    "\ud800",
    "\x00",
    "1.",
    "a@b",
]
hostile = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=6)), max_size=14).map("".join)


def assert_inert(body: str) -> None:
    assert live_mentions(body) == [], body
    assert foreign_html(body) == [], body
    assert blocks_with(body, SENTINEL) == [], body
    assert markers(body) == body.count("<!-- gauntlet:key=") <= 1, body


@settings(max_examples=300, deadline=None)
@given(hostile, st.sampled_from(CONTEXTS))
def test_any_text_in_any_context_stays_inert(text: str, context: str) -> None:
    body = context.format(v=str(neutralise(SENTINEL + text)))
    assert_inert(body)
    body.encode("utf-8")  # no lone surrogate left to fail the post


def test_a_mention_inside_a_templates_code_span_is_not_let_out() -> None:
    # Backtick-wrapping (`@name`) inside a template's own code span closes it and leaves the name live.
    body = "`" + str(neutralise("a @everyone b")) + "`"
    assert live_mentions(body) == []


SECRETS = make_secrets(99)
TEXT = attack(SECRETS)


def record(i: int) -> FindingRecord:
    return FindingRecord(
        fingerprint=f"{i:016x}",
        source="sarif",
        tool=TEXT,
        kind="lint",
        severity="major",
        path=TEXT,
        line=3,
        test_id=TEXT,
        rule=TEXT,
        message=TEXT,
    )


def run_view() -> RunView:
    at = "2026-11-29T12:00:00Z"
    return RunView(
        repository="o/r",
        pr=1,
        branch=TEXT,
        head_sha="a" * 40,
        decision=Decision(action="fix_criticals", iteration=1, criticals=1, majors=0, minors=0),
        new=(record(1),),
        still_open=(record(2),),
        fixed=(record(3),),
        accepted=(AcceptedRisk.model_validate({"fingerprint": "f" * 16, "by": TEXT, "reason": TEXT, "at": at}),),
        recovery=RecoveryVerdict.model_validate({**RecoveryVerdict().model_dump(), "reason": TEXT}),
        health=HealthVerdict.model_validate({**HealthVerdict().model_dump(), "reasons": [TEXT]}),
        attempts=(Attempt.model_validate({**_required(Attempt), "reason": TEXT}),),
        notes=(TEXT,),
        learnings=(TEXT,),
        rules=(TEXT,),
    )


def _required(model: Any) -> dict[str, Any]:
    """Plausible values for a model's required fields (text fields carry the attack)."""
    values: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        if not field.is_required():
            continue
        annotation = str(field.annotation)
        if "datetime" in annotation:
            values[name] = "2026-11-29T12:00:00Z"
        elif "int" in annotation:
            values[name] = 1
        elif "Literal" in annotation:
            values[name] = field.annotation.__args__[0]  # type: ignore[union-attr]
        else:
            values[name] = TEXT if name != "head_sha" else "b" * 40
    return values


def every_effect() -> list[Any]:
    view = run_view()
    issue = IssueView(
        repository="o/r",
        summary=TEXT,
        severity="major",
        rule=TEXT,
        path=TEXT,
        line=2,
        commit="c" * 40,
        excerpt=TEXT,
        why=TEXT,
        decision=TEXT,
        evidence=(TEXT,),
        resolve=TEXT,
        accepted_by=TEXT,
        pr=1,
    )
    return [
        UpsertComment(pr=1, view=view),
        SetCheck(head_sha="a" * 40, conclusion="failure", title="t", view=view),
        WriteSummary(view=view),
        FileIssue(kind="risk", ident="x", title=TEXT, view=issue),
        FileIssue(kind="needs-human", ident="y", title=TEXT, view=issue),
        CloseIssue(kind="risk", ident="x", reason=TEXT),
        OpenRevertPR(
            culprit="c" * 40,
            base="main",
            view=RevertView(
                repository="o/r",
                culprit="c" * 40,
                subject=TEXT,
                author="bob",
                failing_runs=(TEXT, "a:1:1:" + TEXT),
                evidence=(TEXT,),
            ),
        ),
        OpenProposalPR(
            proposal_id="SH-1",
            base="main",
            rules=(TEXT,),
            view=ProposalView(
                repository="o/r",
                proposal_id="SH-1",
                level="PATCH",
                component="c",
                defect_type="d",
                rules=(TEXT,),
                evidence=(TEXT,),
            ),
        ),
        ReplyToComment(issue_number=1, comment_id=2, view=ReplyView(command=TEXT, outcome=TEXT, details=(TEXT,))),
        # Known failures (docs/known-failures.md): the rule Gauntlet files, the hit count, the answer to a bad rule.
        FileIssue(
            kind="known-failure",
            ident="z",
            title=TEXT,
            view=issue.model_copy(
                update={"known_block": block_text(RuleBlock(message=TEXT[:500], path="tests/**", kind="crash"))}
            ),
        ),
        RecordKnownHit(issue=3, branch=TEXT, count=2, last_sha="d" * 40),
        AnswerKnownRule(issue=3, version="abc", reason=TEXT),
        UpsertComment(
            pr=1,
            view=view.model_copy(
                update={
                    "blamed": (
                        Blamed(finding=record(4), provenance="known", why=TEXT, blocks=False, issue=3, issue_url=TEXT),
                    )
                }
            ),
        ),
    ]


def test_every_body_of_every_effect_holds_the_attack_inert() -> None:
    for effect in every_effect():
        body = body_of(effect)
        assert leaked(body, {k: v for k, v in SECRETS.items() if k != "masked value"}) == [], effect.type
        assert_inert(body)
