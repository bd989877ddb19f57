"""The comment step: commands act on stored findings, once, by permission; nothing a comment says is rendered raw."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gauntlet.config import CommandsConfig, Config, GauntletConfig
from gauntlet.effects.bodies import body_of
from gauntlet.effects.models import (
    Effect,
    FileIssue,
    OpenProposalPR,
    Plan,
    React,
    ReplyToComment,
    RerunFailedJobs,
    SetCheck,
    UpsertComment,
)
from gauntlet.effects.render import MAX_BODY_CHARS
from gauntlet.engine.decide import decide, scope_of
from gauntlet.models import CommentFact, Finding, Observation, Permission, Severity, evolve
from gauntlet.state.branch import BranchRecord
from gauntlet.state.models import Scope, State
from gauntlet.state.pr import Attempt, PRRecord
from gauntlet.state.shared import Proposal, ProposalBook, ProposalStatus

NOW = datetime(2026, 11, 2, 12, tzinfo=UTC)
SHA = "a" * 40
CRIT, MAJOR, MINOR = "c0c0c0c0c0c0c0c0", "3f9a02c1d4e5f607", "77bd0e4a11223344"


def finding(fp: str, severity: Severity, message: str | None = None) -> Finding:
    return Finding(
        fingerprint=fp, source="log", kind="lint", severity=severity, message=message or f"{severity} {fp}", path="a.py"
    )


def run(state: State, obs: Observation, config: Config | None = None) -> tuple[State, Plan]:
    return decide(state, obs, config or Config(), NOW, np.random.default_rng(0))


def pr_state(*findings: Finding, run_id: str = "555", config: Config | None = None) -> State:
    obs = Observation(
        repository="o/r", pr=7, pr_author="author", head_sha=SHA, run_id=run_id, run_attempt="2", job="ci",
        findings=findings or (finding(CRIT, "critical"), finding(MAJOR, "major"), finding(MINOR, "minor")),
    )  # fmt: skip
    state, _ = run(State(pr=PRRecord(number=7)), obs, config)
    return state.model_copy(update={"events": []})


def says(
    body: str, permission: Permission = "maintain", author: str = "maya", cid: int = 100, **extra: Any
) -> Observation:
    fact = CommentFact.model_validate(
        {"id": cid, "body": body, "author": author, "author_permission": permission, "issue_number": 7,
         "is_pull_request": True, **extra}
    )  # fmt: skip
    return Observation(repository="o/r", event="issue_comment", pr=7, pr_author="author", head_sha="", comment=fact)


def of_type(plan: Plan, kind: type[Any]) -> list[Any]:
    return [e for e in plan.effects if isinstance(e, kind)]


def reactions(plan: Plan) -> list[str]:
    return [e.content for e in of_type(plan, React)]


def replies(plan: Plan) -> list[str]:
    return [body_of(e) for e in of_type(plan, ReplyToComment)]


def test_comments_load_the_pr_or_nothing_and_the_default_branch_for_flaky_marks() -> None:
    assert scope_of(says("x")) == Scope(pr=7, branch="main")
    issue = says("x", is_pull_request=False)
    assert scope_of(issue.model_copy(update={"pr": None})) == Scope(branch="main")


def test_flaky_marks_a_test_in_the_default_branch_history_and_the_check_stops_failing_on_it() -> None:
    state = evolve(pr_state(finding(CRIT, "critical")), branch=BranchRecord(name="main"))
    refused, _ = run(state, says("/gauntlet flaky c0c0c0c0", permission="write"))
    assert refused.branch == state.branch, "maintain permission is needed"
    marked, plan = run(state, says("/gauntlet flaky c0c0c0c0 it times out on slow runners"))
    assert marked.branch is not None
    [test] = marked.branch.outcomes.tests
    assert (test.fingerprint, test.mark) == (CRIT, "flaky")
    assert reactions(plan) == ["rocket"] and "marked `c0c0c0c0` flaky" in replies(plan)[0]
    # The replanned check judges the critical flaky now: reported, and the check passes.
    [check] = of_type(plan, SetCheck)
    assert check.conclusion == "success"
    unmarked, _ = run(marked, says("/gauntlet not-flaky c0c0c0c0", cid=101))
    assert unmarked.branch is not None and unmarked.branch.outcomes.tests[0].mark == "not_flaky"
    unknown, plan = run(state, says("/gauntlet flaky tests/nowhere.py::test_z", cid=102))
    assert unknown.branch == state.branch and reactions(plan) == ["confused"]


def test_accept_risk_majors_files_one_issue_records_it_and_replans() -> None:
    state = pr_state()
    new, plan = run(state, says("/gauntlet accept-risk majors the vendor fixes it"))
    assert new.pr is not None
    assert [(r.fingerprint, r.by, r.reason) for r in new.pr.accepted_risks] == [(MAJOR, "maya", "the vendor fixes it")]
    (issue,) = of_type(plan, FileIssue)
    assert (issue.kind, issue.ident, issue.view.accepted_by, issue.view.why) == (
        "risk",
        MAJOR,
        "maya",
        "the vendor fixes it",
    )
    assert "accepted-risk" in issue.labels
    body = body_of(issue)
    assert "`maya`" in body
    assert "the vendor fixes it" in body
    assert new.triage.issues[f"risk:{MAJOR}"].since == NOW
    (sticky,) = of_type(plan, UpsertComment)
    assert [r.fingerprint for r in sticky.view.accepted] == [MAJOR]
    assert "accepted by `maya`" in body_of(sticky)
    assert plan.decision is not None
    assert plan.decision.majors == 0
    # The re-planned report is the answer: who accepted which finding and why, in the comment and the check.
    assert reactions(plan) == [] and replies(plan) == []
    (check,) = of_type(plan, SetCheck)
    for body in (body_of(sticky), body_of(check)):
        assert f"`{MAJOR[:12]}` major" in body
        assert "accepted by `maya`" in body and "the vendor fixes it" in body
    assert issue.assignees == ()  # the record keeps no code owners: filed without assignees, nothing looked up


def test_a_command_the_report_does_not_answer_keeps_its_reaction_first_and_its_reply() -> None:
    _, plan = run(pr_state(), says("/gauntlet accept-risk majors the vendor fixes it\n/gauntlet status"))
    # The one reaction comes first: a deleted comment stops the run before the issue is filed.
    assert plan.effects[0] == React(comment_id=100, content="rocket")
    assert not any(isinstance(effect, React) for effect in plan.effects[1:])
    accepted, _ = replies(plan)
    assert "> /gauntlet accept-risk majors the vendor fixes it" in accepted
    assert "maya accepted 1 risk: the vendor fixes it" in accepted
    _, refused = run(pr_state(), says("/gauntlet accept-risk majors", permission="read"))
    assert reactions(refused) == ["confused"] and len(replies(refused)) == 1


def test_the_issue_of_an_accepted_risk_is_assigned_to_the_owners_the_pr_run_kept() -> None:
    state = pr_state()
    assert state.pr is not None
    major = next(f for f in state.pr.iterations[-1].findings if f.fingerprint == MAJOR)
    assert major.path is not None
    kept = state.model_copy(update={"pr": state.pr.model_copy(update={"owners": {major.path: ["ana", "bo"]}})})
    _, plan = run(kept, says("/gauntlet accept-risk majors ok"))
    (issue,) = of_type(plan, FileIssue)
    assert issue.assignees == ("ana", "bo")


def test_accept_risk_all_leaves_criticals_alone_but_a_fingerprint_takes_them() -> None:
    state = pr_state()
    new, plan = run(state, says("/gauntlet accept-risk known flaky"))
    assert new.pr is not None
    assert sorted(r.fingerprint for r in new.pr.accepted_risks) == sorted([MAJOR, MINOR])
    assert {e.ident for e in of_type(plan, FileIssue)} == {MAJOR, MINOR}
    new, plan = run(new, says(f"/gauntlet accept-risk {CRIT[:8]} owned by infra", cid=101))
    assert new.pr is not None
    assert CRIT in {r.fingerprint for r in new.pr.accepted_risks}
    assert plan.decision is not None
    assert plan.decision.action == "clean"


def test_the_check_turns_neutral_or_success_as_configured_once_risks_are_accepted() -> None:
    for wanted in ("neutral", "success"):
        config = Config(gauntlet=GauntletConfig(fail_on="majors"), commands=CommandsConfig(accepted_conclusion=wanted))
        state = pr_state(finding(MAJOR, "major"), config=config)
        _, plan = run(state, says("/gauntlet accept-risk majors ok"), config)
        (check,) = of_type(plan, SetCheck)
        assert (check.conclusion, check.head_sha) == (wanted, SHA)


def test_the_check_keeps_failing_while_an_unaccepted_critical_is_open() -> None:
    _, plan = run(pr_state(), says("/gauntlet accept-risk majors ok"))
    (check,) = of_type(plan, SetCheck)
    assert check.conclusion == "failure"


def test_a_command_never_ingests_nor_advances_the_iteration() -> None:
    state = pr_state()
    assert state.pr is not None
    for i, text in enumerate(
        ["/gauntlet accept-risk all ok", "/gauntlet reset", "/gauntlet status", "/gauntlet retry"]
    ):
        new, _ = run(state, says(text, permission="admin", cid=200 + i))
        assert new.pr is not None
        assert new.pr.iteration_count == state.pr.iteration_count
        assert [it.model_dump(exclude={"action"}) for it in new.pr.iterations] == [
            it.model_dump(exclude={"action"}) for it in state.pr.iterations
        ]


def test_the_same_event_delivered_twice_acts_once() -> None:
    state = pr_state()
    first, plan = run(state, says("/gauntlet accept-risk majors ok"))
    assert plan.effects
    again, replay = run(first, says("/gauntlet accept-risk majors ok"))
    assert replay == Plan()
    assert again == first
    assert first.pr is not None
    assert len(first.pr.accepted_risks) == 1


def test_a_second_comment_does_not_accept_twice() -> None:
    first, _ = run(pr_state(), says("/gauntlet accept-risk majors ok"))
    second, plan = run(first, says("/gauntlet accept-risk majors ok", cid=101))
    assert second.pr is not None
    assert len(second.pr.accepted_risks) == 1
    assert of_type(plan, FileIssue) == []
    assert reactions(plan) == ["confused"]


def test_edited_comments_bots_and_gauntlet_itself_plan_nothing() -> None:
    state = pr_state()
    for obs in (
        says("/gauntlet accept-risk all", permission="admin", action="edited"),
        says("/gauntlet accept-risk all", permission="admin", author="ci[bot]", author_type="Bot"),
        says("/gauntlet help", permission="admin", author="github-actions[bot]"),
        says("> /gauntlet help\nquoted", permission="admin"),
        says("just a review comment", permission="admin"),
    ):
        new, plan = run(state, obs)
        assert (new, plan) == (state, Plan())


def assert_only_marked_handled(new: PRRecord | None, old: PRRecord | None) -> None:
    """The PR record is as it was, except that it remembers this comment was handled."""
    assert new is not None and old is not None
    assert new.model_copy(update={"effects": old.effects}) == old
    assert [key for key in new.effects if key not in old.effects and key.startswith("command:")] != []


def test_an_outsider_is_refused_with_a_reason_and_nothing_changes() -> None:
    state = pr_state()
    new, plan = run(state, says("/gauntlet accept-risk all\n/gauntlet reset", permission="none", author="eve"))
    assert_only_marked_handled(new.pr, state.pr)
    assert new.triage == state.triage
    assert of_type(plan, FileIssue) == of_type(plan, UpsertComment) == []
    assert reactions(plan) == ["confused"]
    first, second = replies(plan)
    assert "needs the maintain permission" in first
    assert "eve has none" in first
    assert "needs the maintain permission" in second


def test_anyone_may_ask_for_help_and_status() -> None:
    _, plan = run(pr_state(), says("/gauntlet help\n/gauntlet status", permission="none"))
    assert reactions(plan) == ["rocket"]
    help_reply, status_reply = replies(plan)
    assert "/gauntlet accept-risk" in help_reply
    assert "(maintain permission)" in help_reply
    assert "(anyone)" in help_reply
    assert "Iteration 1" in status_reply
    assert "1 critical, 1 major, 1 minor" in status_reply


def test_an_unknown_command_gets_the_help_and_a_confused_face() -> None:
    _, plan = run(pr_state(), says("/gauntlet deploy", permission="admin"))
    (reply,) = replies(plan)
    assert "`deploy` is not a Gauntlet command" in reply
    assert "/gauntlet retry" in reply
    assert reactions(plan) == ["confused"]


def test_the_pr_author_cannot_accept_their_own_risks() -> None:
    state = pr_state()
    new, plan = run(state, says("/gauntlet accept-risk all", permission="admin", author="author"))
    assert_only_marked_handled(new.pr, state.pr)
    assert "someone other than the author" in replies(plan)[0]


def test_retry_reruns_the_failed_jobs_of_the_latest_run() -> None:
    _, plan = run(pr_state(), says("/gauntlet retry", permission="write"))
    assert of_type(plan, RerunFailedJobs) == [RerunFailedJobs(run_id=555, attempt=2)]
    assert reactions(plan) == ["rocket"]


def test_retry_without_a_workflow_run_is_refused() -> None:
    _, plan = run(pr_state(run_id="0"), says("/gauntlet retry", permission="write"))
    assert of_type(plan, RerunFailedJobs) == []
    assert "no workflow run" in replies(plan)[0]
    _, plan = run(State(pr=PRRecord(number=7)), says("/gauntlet retry", permission="write"))
    assert of_type(plan, RerunFailedJobs) == []


def test_reset_forgets_the_attempts_and_replans() -> None:
    state = pr_state()
    assert state.pr is not None
    attempt = Attempt(at=NOW, observation="x", head_sha=SHA, failure_type="broken_build", action="retry", reason="r")
    state = state.model_copy(update={"pr": state.pr.model_copy(update={"attempts": [attempt, attempt]})})
    new, plan = run(state, says("/gauntlet reset", permission="maintain"))
    assert new.pr is not None
    assert new.pr.attempts == []
    assert len(of_type(plan, UpsertComment)) == 1
    assert "Forgot 2 recovery attempts" in replies(plan)[0]
    assert of_type(plan, RerunFailedJobs) == []  # the report is re-planned, not the recovery actions


def test_several_commands_run_in_order_on_the_updated_state() -> None:
    _, plan = run(pr_state(), says("/gauntlet accept-risk minors fine\n/gauntlet status", permission="admin"))
    _, status = replies(plan)
    assert "0 major" not in status
    assert "1 accepted risk" in status
    assert [e.index for e in of_type(plan, ReplyToComment)] == [0, 1]


def proposals(status: ProposalStatus, rules: list[str]) -> ProposalBook:
    proposal = Proposal(
        id="SH-3", component="api", defect_type="lint", level="MAJOR", status=status, created_at=NOW, rules=rules
    )
    return ProposalBook(proposals=[proposal])


def test_approve_opens_the_proposal_pr_through_self_healing() -> None:
    state = pr_state().model_copy(update={"proposals": proposals("needs_human", ["Pin the API client."])})
    new, plan = run(state, says("/gauntlet approve sh-3", permission="maintain"))
    assert new.proposals.proposals[0].status == "pending"
    assert new.proposals.proposals[0].decided_by == "maya"
    (pr,) = of_type(plan, OpenProposalPR)
    assert pr.proposal_id == "SH-3"
    assert reactions(plan) == ["rocket"]


def test_reject_and_unknown_proposals() -> None:
    state = pr_state().model_copy(update={"proposals": proposals("needs_human", [])})
    new, plan = run(state, says("/gauntlet reject SH-3 not useful\n/gauntlet approve SH-9", permission="admin"))
    assert new.proposals.proposals[0].status == "rejected"
    assert new.proposals.proposals[0].note == "not useful"
    assert "no proposal SH-9" in replies(plan)[1]
    assert reactions(plan) == ["confused"]


def on_issue(body: str, number: int) -> Observation:
    return says(body, cid=5, issue_number=number, is_pull_request=False).model_copy(update={"pr": None})


def test_comments_on_gauntlets_own_issues_are_read_and_others_are_not() -> None:
    state = State().model_copy(update={"index": State().index.model_copy(update={"entries": {f"risk:{MAJOR}": 42}})})
    new, plan = run(state, on_issue("/gauntlet status", 42))
    assert f"risk:{MAJOR}" in replies(plan)[0]
    assert new.index.entries["command:5"] == 42
    assert run(state, on_issue("/gauntlet status", 43)) == (state, Plan())


def test_accept_risk_on_a_pr_without_findings_is_refused() -> None:
    new, plan = run(State(pr=PRRecord(number=7)), says("/gauntlet accept-risk all"))
    assert_only_marked_handled(new.pr, PRRecord(number=7))
    assert "no findings" in replies(plan)[0]


def test_commands_can_be_switched_off() -> None:
    state = pr_state()
    assert run(state, says("/gauntlet help"), Config(commands=CommandsConfig(enabled=False))) == (state, Plan())


# Hostile comments: nothing a comment says is ever executed, rendered as a template or written unescaped.

HOSTILE = [
    "{{ 1234*1000 }}",
    "{% for x in range(3) %}LOOP{% endfor %}",
    "{{ self.__init__.__globals__ }}",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "<!-- gauntlet:key=pr-comment:7 -->",
    "-->",
    "@octocat @org/team hi",
    "```\nfence\n```",
    "| table | break |",
    "\u202e\u200b",
]
_MENTION = re.compile(r"(?<![`\w])@[A-Za-z0-9]")


#: The verdict that ends a check's summary: Gauntlet's own fence, around JSON whose text cannot hold one.
_VERDICT = re.compile(r"\n```json\n([^`]*)\n```\n\Z")


def assert_safe(effect: Effect) -> None:
    body = _VERDICT.sub("", body_of(effect))
    assert len(body) <= MAX_BODY_CHARS
    assert "1234000" not in body
    assert "LOOPLOOP" not in body
    assert "__globals__" not in body or "{{ self.__init__.__globals__ }}" in body
    lowered = body.lower()
    assert "<script" not in lowered
    assert "<img" not in lowered
    assert body.count("<!--") == body.count("-->") == (1 if body.startswith("<!-- gauntlet:key=") else 0)
    assert not _MENTION.search(body), body
    assert "```" not in body


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(HOSTILE) | st.text(max_size=40), min_size=1, max_size=5).map(" ".join),
    st.sampled_from(["accept-risk majors", "accept-risk", "reject SH-3", "", "status", "nonsense"]),
    st.sampled_from(["admin", "none"]),
)
def test_hostile_text_never_reaches_a_body_unescaped(payload: str, verb: str, permission: Permission) -> None:
    state = pr_state(finding(MAJOR, "major", message=payload), finding(MINOR, "minor", message=payload))
    state = state.model_copy(update={"proposals": proposals("needs_human", [])})
    body = f"/gauntlet {verb} {payload}\n{payload}\n/gauntlet {verb} {payload}"
    _, plan = run(state, says(body, permission=permission, author="maya"))
    assert plan.effects
    for effect in plan.effects:
        assert_safe(effect)


def test_a_100_kb_comment_is_bounded_everywhere() -> None:
    # GitHub keeps 65,536 characters of a comment, and so does the parser: the commands come first.
    junk = ("{{ 1234*1000 }} <b>@octocat</b> " * 4000)[:100_000]
    body = "\n".join([f"/gauntlet accept-risk majors {junk}", f"/gauntlet {junk}", junk, junk])
    new, plan = run(pr_state(), says(body))
    assert new.pr is not None
    assert len(new.pr.accepted_risks[0].reason) <= 250
    assert len(new.model_dump_json()) < 20_000
    for effect in plan.effects:
        assert_safe(effect)


def test_triage_window_starts_when_the_risk_is_accepted() -> None:
    new, _ = run(pr_state(), says("/gauntlet accept-risk majors ok"))
    watched = new.triage.issues[f"risk:{MAJOR}"]
    assert watched.since == NOW
    assert watched.closed is False
    assert watched.since + timedelta(days=Config().commands.triage_days) > NOW


def test_accepted_risks_show_their_issue_once_it_is_known() -> None:
    first, _ = run(pr_state(), says("/gauntlet accept-risk minors later"))
    filed = first.model_copy(
        update={"index": first.index.model_copy(update={"entries": {**first.index.entries, f"risk:{MINOR}": 31}})}
    )
    new, plan = run(filed, says("/gauntlet accept-risk majors now", cid=101))
    assert new.pr is not None
    assert {r.fingerprint: r.issue for r in new.pr.accepted_risks} == {MINOR: 31, MAJOR: None}
    (sticky,) = of_type(plan, UpsertComment)
    assert "(tracked in #31)" in body_of(sticky)


LINES = st.sampled_from(
    [
        "/gauntlet help",
        "/gauntlet status",
        "/gauntlet retry",
        "/gauntlet reset",
        "/gauntlet accept-risk all ok",
        "/gauntlet accept-risk majors",
        f"/gauntlet accept-risk {CRIT[:8]},{MINOR[:10]} fine",
        "/gauntlet approve SH-3",
        "/gauntlet reject SH-3 no",
        "/gauntlet frobnicate",
        "plain text",
    ]
)
PERMISSION_LEVELS: list[Permission] = ["none", "read", "triage", "write", "maintain", "admin"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(LINES, min_size=1, max_size=6).map("\n".join), st.sampled_from(PERMISSION_LEVELS))
def test_same_inputs_same_result_and_a_redelivery_changes_nothing(body: str, permission: Permission) -> None:
    state = pr_state().model_copy(update={"proposals": proposals("needs_human", ["Pin it."])})
    obs = says(body, permission=permission)
    first = run(state, obs)
    assert run(state, obs) == first
    new, plan = first
    assert run(new, obs) == (new, Plan())
    assert new.pr is not None
    assert state.pr is not None
    assert new.pr.iteration_count == state.pr.iteration_count
    if any(isinstance(effect, React) for effect in plan.effects):
        assert isinstance(plan.effects[0], React)
        assert sum(isinstance(effect, React) for effect in plan.effects) == 1
    elif plan.effects:
        # Answered by the report alone: every command accepted a risk, and the comment and check say so.
        assert of_type(plan, FileIssue) and of_type(plan, UpsertComment) and of_type(plan, SetCheck)
        assert not of_type(plan, ReplyToComment)
