"""Known failures in the engine (engine/known.py): matching, the check, hits per run, answers (DESIGN §5)."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from gauntlet.config import Config
from gauntlet.effects.models import (
    AnswerKnownRule,
    Effect,
    FileIssue,
    OpenRevertPR,
    RecordKnownHit,
    RerunFailedJobs,
    SetCheck,
)
from gauntlet.engine.decide import decide
from gauntlet.engine.known import MAX_ANSWERS, match
from gauntlet.known import KnownFailures, KnownRule, RuleProblem
from gauntlet.models import Finding, Observation
from gauntlet.state.branch import BranchRecord
from gauntlet.state.models import State
from gauntlet.state.pr import PRRecord

NOW = datetime(2026, 12, 4, 6, tzinfo=UTC)


def finding(fp: str, message: str, *, path: str = "tests/test_net.py", excerpt: str = "") -> Finding:
    return Finding.model_validate(
        {
            "fingerprint": fp,
            "source": "junit",
            "kind": "test_failure",
            "severity": "critical",
            "test_id": f"{path}::test_{fp}",
            "path": path,
            "message": message,
            "excerpt": excerpt,
        }
    )


RESET = KnownRule(issue=40, url="https://github.test/o/r/issues/40", message="connectionreset")


def test_a_rule_matches_by_message_excerpt_pattern_path_and_kind() -> None:
    findings = [
        finding("a", "ConnectionResetError: peer"),
        finding("b", "boom", excerpt="Traceback ...\nConnectionResetError"),
        finding("c", "AssertionError: 3 != 4"),
        finding("d", "timed out after 30s", path="src/app.py"),
    ]
    rules = [
        KnownRule(issue=41, message="ConnectionReset", path="tests/**"),
        RESET,
        KnownRule(issue=42, pattern=r"timed out after \d+s", path="tests/**"),
        KnownRule(issue=43, pattern=r"timed out after \d+s", kind="build_error"),
    ]
    found = match(findings, rules)
    assert {fp: m.issue for fp, m in found.items()} == {"a": 40, "b": 40}, "the oldest issue wins"


def run(
    state: State, findings: tuple[Finding, ...], read: KnownFailures | None, run_id: str = "1"
) -> tuple[State, tuple[Effect, ...]]:
    obs = Observation(
        pr=7, head_sha="b" * 40, run_id=run_id, workflow="ci", job="test", findings=findings, known_failures=read
    )
    state, plan = decide(state, obs, Config(), NOW, np.random.default_rng(0))
    return state, plan.effects


def check_of(effects: tuple[Effect, ...]) -> SetCheck:
    return next(e for e in effects if isinstance(e, SetCheck))


def test_a_known_failure_does_not_fail_the_check_and_records_one_hit_per_run() -> None:
    read = KnownFailures(rules=(RESET,), read=1)
    failures = (finding("net", "ConnectionResetError: peer"),)
    state, effects = run(State(pr=PRRecord(number=7)), failures, read)
    check = check_of(effects)
    assert check.conclusion == "success"
    assert [(b.provenance, b.issue, b.blocks) for b in check.view.blamed] == [("known", 40, False)]
    hits = [e for e in effects if isinstance(e, RecordKnownHit)]
    assert [(h.issue, h.pr, h.count) for h in hits] == [(40, 7, 1)]
    # The same observation again changes nothing; another run of the commit counts one more.
    again, effects = run(state, failures, read)
    assert again == state and [e for e in effects if isinstance(e, RecordKnownHit)] == hits
    state, effects = run(state, failures, read, run_id="2")
    assert [(e.issue, e.count) for e in effects if isinstance(e, RecordKnownHit)] == [(40, 2)]
    # A command re-plans without reading the issues: the record's matches hold.
    _, effects = run(state, failures, None, run_id="2")
    assert check_of(effects).conclusion == "success"
    # block_on: [known] makes it count again.
    strict = Config.model_validate({"gauntlet": {"block_on": ["new", "unknown", "known"]}})
    obs = Observation(pr=7, head_sha="c" * 40, run_id="3", job="test", findings=failures, known_failures=read)
    _, plan = decide(State(pr=PRRecord(number=7)), obs, strict, NOW, np.random.default_rng(0))
    assert check_of(plan.effects).conclusion == "failure"


def test_closing_the_issue_ends_the_rule() -> None:
    failures = (finding("net", "ConnectionResetError: peer"),)
    state, _ = run(State(pr=PRRecord(number=7)), failures, KnownFailures(rules=(RESET,), read=1))
    state, effects = run(state, failures, KnownFailures(), run_id="2")
    assert check_of(effects).conclusion == "failure"
    assert not [e for e in effects if isinstance(e, RecordKnownHit)]


def test_unusable_rules_are_answered_once_a_few_at_a_time() -> None:
    problems = tuple(RuleProblem(issue=n, version="v1", reason="bad") for n in range(1, 6))
    state, effects = run(State(pr=PRRecord(number=7)), (), KnownFailures(problems=problems, read=5))
    answers = [e for e in effects if isinstance(e, AnswerKnownRule)]
    assert [a.issue for a in answers] == [1, 2, 3][:MAX_ANSWERS]
    answered = state.index.model_copy(update={"entries": {answers[0].key: 99}})
    _, effects = run(state.model_copy(update={"index": answered}), (), KnownFailures(problems=problems), "2")
    assert [e.issue for e in effects if isinstance(e, AnswerKnownRule)] == [2, 3, 4]


def test_a_default_branch_run_records_its_hits_per_branch() -> None:
    obs = Observation(
        head_sha="d" * 40,
        branch="main",
        event="push",
        run_id="5",
        job="test",
        findings=(finding("net", "ConnectionResetError"),),
        known_failures=KnownFailures(rules=(RESET,), read=1),
    )
    state, plan = decide(State(branch=BranchRecord(name="main")), obs, Config(), NOW, np.random.default_rng(0))
    hits = [e for e in plan.effects if isinstance(e, RecordKnownHit)]
    assert [(h.issue, h.branch, h.count) for h in hits] == [(40, "main", 1)]
    assert hits[0].key.startswith("known-hit:40:branch-") and "main" not in hits[0].key
    assert state.branch is not None and state.branch.known_hits["40"].count == 1
    # Known is not this commit's to revert: no rerun to confirm it, no revert, no needs-human issue.
    assert plan.recovery.action == "skip" and "(known)" in plan.recovery.reason
    assert not [e for e in plan.effects if isinstance(e, RerunFailedJobs | FileIssue | OpenRevertPR)]
    assert state.branch.breakages[-1].decision == "known"
    # Without the rule the same run asks for a rerun to confirm the breakage.
    unknown = obs.model_copy(update={"known_failures": KnownFailures()})
    _, plan = decide(State(branch=BranchRecord(name="main")), unknown, Config(), NOW, np.random.default_rng(0))
    assert plan.recovery.action != "skip"
