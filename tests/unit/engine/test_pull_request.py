"""The PR steps through ``decide``: a closed PR's record is compacted there, once, and nothing is posted; the
report re-planned from the record (as a command does) is the run's report, and learns nothing again."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from gauntlet.config import Config, SelfHealConfig
from gauntlet.engine.decide import decide
from gauntlet.engine.pull_request import (
    ATTEMPTS_KEPT_WHEN_CLOSED,
    REVIEW_QUOTE_CHARS,
    ReportFacts,
    iteration_evidence,
    plan_iteration,
)
from gauntlet.models import Finding, Observation, evolve
from gauntlet.state.models import State
from gauntlet.state.pr import AcceptedRisk, FindingRecord, IterationRecord, PRRecord

NOW = datetime(2026, 11, 2, tzinfo=UTC)


def _run(state: State, sha: str, run_id: str = "1") -> State:
    finding = Finding(fingerprint=f"f-{sha}", source="log", kind="infra", severity="major", message="runner lost")
    obs = Observation(pr=7, head_sha=sha, run_id=run_id, findings=(finding,))
    new, _ = decide(state, obs, Config(), NOW, np.random.default_rng(0))
    return new


def _closed() -> Observation:
    return Observation(pr=7, head_sha="z" * 40, closed=True)


def test_a_closed_pr_keeps_its_latest_iteration_and_last_attempts() -> None:
    state = State(pr=PRRecord(number=7))
    for sha in "abcde":
        state = _run(evolve_events(state), sha * 40, run_id=str(ord(sha)))
    assert len(state.pr.iterations) == 5 and len(state.pr.attempts) > ATTEMPTS_KEPT_WHEN_CLOSED
    closed, plan = decide(evolve_events(state), _closed(), Config(), NOW, np.random.default_rng(0))
    escalated = sorted({a.failure_type for a in state.pr.attempts if a.action == "escalate"})
    assert plan.decision is None
    # The needs-human issues its escalations filed are closed, saying why; nothing else is planned.
    assert [(e.type, e.key, e.reason) for e in plan.effects] == [  # type: ignore[union-attr]
        ("close_issue", f"needs-human:pr-7:{kind}", "PR #7 was closed without merging.") for kind in escalated
    ]
    assert closed.pr is not None and closed.pr.closed
    assert [it.head_sha for it in closed.pr.iterations] == ["e" * 40]
    assert closed.pr.attempts == state.pr.attempts[-ATTEMPTS_KEPT_WHEN_CLOSED:]
    assert closed.pr.iteration_count == state.pr.iteration_count
    assert [e.kind for e in closed.events] == ["pr_closed"]
    # A redelivered close changes nothing.
    again, _ = decide(evolve_events(closed), _closed(), Config(), NOW, np.random.default_rng(0))
    assert again == evolve_events(closed)


def test_a_pr_gauntlet_never_recorded_is_left_alone() -> None:
    state = State(pr=PRRecord(number=7))
    assert decide(state, _closed(), Config(), NOW, np.random.default_rng(0))[0] == state


def evolve_events(state: State) -> State:
    """The state as the next run loads it: the audit events already written."""
    return evolve(state, events=[])


def test_the_report_planned_again_from_the_record_is_the_runs_report_and_changes_nothing() -> None:
    config = Config(selfheal=SelfHealConfig(curated_rules={"test_failure": ("A", "B", "C", "D")}, rules_per_class=2))
    failing = Finding(fingerprint="t1", source="log", kind="test_failure", severity="critical", message="boom")
    obs = Observation(repository="octo/app", pr=7, head_sha="a" * 40, run_id="41", run_attempt="2", findings=(failing,))
    state, plan = decide(State(pr=PRRecord(number=7)), obs, config, NOW, np.random.default_rng(5))
    assert state.pr is not None
    facts = ReportFacts.latest(state.pr, "octo/app")
    assert facts == ReportFacts(
        repository="octo/app", pr=7, observation=obs.id, head_sha="a" * 40, run_id="41", run_attempt="2", job="/"
    )
    # No rng: planning draws nothing, so the rules shown are the ones the run chose, and nothing is learned twice.
    again, replanned = plan_iteration(state, facts, config, NOW, fresh=False)
    assert again == state
    assert replanned.effects == plan.effects
    assert len(plan.effects[0].view.rules) == 2  # type: ignore[attr-defined]


def test_nothing_is_planned_again_for_a_pr_without_an_observation() -> None:
    assert ReportFacts.latest(PRRecord(number=7), "octo/app") is None


def test_the_record_keeps_the_code_owners_of_the_current_findings_paths_only() -> None:
    def seen(sha: str, run_id: str, paths: dict[str, tuple[str, ...]], *findings: str) -> Observation:
        found = tuple(
            Finding(fingerprint=f"f-{p}", source="log", kind="lint", severity="minor", path=p, message="m")
            for p in findings
        )
        return Observation(pr=7, head_sha=sha, run_id=run_id, findings=found, assignees=paths)

    state = State(pr=PRRecord(number=7))
    for obs in (
        seen("a" * 40, "1", {"src/a.py": ("ana",), "src/b.py": ("bo",)}, "src/a.py", "src/b.py"),
        # Another job on the same head names one path: what the first saw of the other stays.
        seen("a" * 40, "2", {"src/a.py": ("cy",)}, "src/a.py"),
    ):
        state, _ = decide(state, obs, Config(), NOW, np.random.default_rng(0))
    assert state.pr is not None and state.pr.owners == {"src/a.py": ["cy"], "src/b.py": ["bo"]}
    # A new head whose findings name only src/b.py, without owners this time: nothing is kept for a gone path.
    state, _ = decide(state, seen("b" * 40, "3", {}, "src/b.py"), Config(), NOW, np.random.default_rng(0))
    assert state.pr is not None and state.pr.owners == {}


def test_a_clean_iteration_with_only_an_accepted_finding_left_needs_no_recovery() -> None:
    review = Finding(
        fingerprint="r1", source="review", kind="review", severity="critical", message="unchecked input", path="a.py"
    )
    state = State(pr=PRRecord(number=7, accepted_risks=[AcceptedRisk(fingerprint="r1", by="max", at=NOW)]))
    _, plan = decide(
        state,
        Observation(pr=7, head_sha="a" * 40, run_id="1", findings=(review,)),
        Config(),
        NOW,
        np.random.default_rng(0),
    )
    assert plan.recovery.failure_type is None and plan.recovery.action == "continue"


def test_issue_evidence_quotes_a_review_comment_redacted_and_bounded() -> None:
    """Issue 30: a review finding in a needs-human issue's evidence says what the reviewer wrote, not a hash."""
    secret = "AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    said = f"critical: this leaks the key {secret} " + "and more words " * 40
    review = FindingRecord(
        fingerprint="f" * 16,
        source="review",
        kind="review",
        severity="critical",
        message=said,
        path="src/app.py",
        line=3,
    )
    it = IterationRecord(number=1, head_sha="a" * 40, findings=[review], at=datetime(2026, 12, 1, tzinfo=UTC))
    [line] = iteration_evidence(PRRecord(number=7, iterations=[it]))
    assert "src/app.py:3: “critical: this leaks the key" in line
    assert "wJalrXUtnFEMI" not in line and "AKIAIOSFODNN7EXAMPLE" not in line
    quote = line.split("“", 1)[1]
    assert len(quote) <= REVIEW_QUOTE_CHARS + 1 and quote.endswith("…”")
