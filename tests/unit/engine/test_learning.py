"""Learning: failure→fix pairs, hints, rule reinforcement, confidence, near-duplicate merging and bounds."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from gauntlet.config import Config, SelfHealConfig
from gauntlet.engine import learning, selfheal
from gauntlet.engine.decide import decide
from gauntlet.engine.loop import merge_observation
from gauntlet.models import Finding, FixDiff, Kind, Observation, Severity
from gauntlet.state.branch import RunRecord
from gauntlet.state.models import State
from gauntlet.state.pr import PRRecord
from gauntlet.state.shared import MAX_RULES_PER_KIND, DefectLog, LearnedRule, LearningBook

NOW = datetime(2026, 11, 2, tzinfo=UTC)


def finding(fp: str, kind: Kind = "test_failure", severity: Severity = "critical", **extra: str) -> Finding:
    return Finding(
        fingerprint=fp,
        source="log",
        kind=kind,
        severity=severity,
        message=f"{fp} failed",
        test_id=f"tests/test_calc.py::{fp}",
        **extra,
    )


def rule(n: int = 1, days: float = 0, contradictions: int = 0) -> LearnedRule:
    seen = NOW - timedelta(days=days)
    return LearnedRule(
        id="R-1",
        text="t",
        kind="review",
        reinforcements=n,
        contradictions=contradictions,
        first_seen=seen,
        last_seen=seen,
    )


def test_confidence_formula() -> None:
    got = learning.confidence(rule(n=3, days=10, contradictions=1), NOW)
    assert math.isclose(got, (1 - math.exp(-3 / 5)) * math.exp(-10 / 30) * math.exp(-1 / 2))


@given(st.integers(1, 50), st.floats(0, 365), st.integers(0, 20))
def test_confidence_is_a_probability_and_grows_with_reinforcement(n: int, days: float, contra: int) -> None:
    c = learning.confidence(rule(n, days, contra), NOW)
    assert 0 <= c < 1
    assert learning.confidence(rule(n + 1, days, contra), NOW) >= c
    assert learning.confidence(rule(n, days + 1, contra), NOW) <= c


@given(st.text(max_size=60), st.text(max_size=60))
def test_similarity_is_symmetric_and_bounded(a: str, b: str) -> None:
    assert learning.similarity(a, b) == learning.similarity(b, a)
    assert 0 <= learning.similarity(a, b) <= 1
    assert learning.similarity(a, a) == 1


def test_the_same_rule_reinforces_instead_of_adding() -> None:
    book, first = learning.learn_rule(LearningBook(), "Validate  user input.", "review", ["review"], NOW)
    later = NOW + timedelta(days=1)
    book, second = learning.learn_rule(book, "validate user input", "review", ["security"], later)
    assert first == second
    [only] = book.rules
    assert (only.reinforcements, only.last_seen, only.classes) == (2, later, ["review", "security"])


def test_near_duplicates_merge_but_different_rules_do_not() -> None:
    book, _ = learning.learn_rule(
        LearningBook(), "Always close files opened in tests with a context manager", "review", ["review"], NOW
    )
    book, _ = learning.learn_rule(
        book, "Always close the files opened in tests with a context manager", "review", ["review"], NOW
    )
    book, _ = learning.learn_rule(book, "Never log secrets", "review", ["review"], NOW)
    assert [r.reinforcements for r in book.rules] == [2, 1]


def test_rules_are_bounded_per_kind_and_the_weakest_goes() -> None:
    book = LearningBook()
    book, strong = learning.learn_rule(book, "rule strong", "review", ["review"], NOW)
    book, _ = learning.learn_rule(book, "rule strong", "review", ["review"], NOW)
    for i in range(MAX_RULES_PER_KIND + 5):
        book, _ = learning.learn_rule(book, f"rule number {i} alpha{i}", "review", ["review"], NOW)
    book, _ = learning.learn_rule(book, "a curated one", "curated", ["review"], NOW)
    assert sum(1 for r in book.rules if r.kind == "review") == MAX_RULES_PER_KIND
    assert strong in {r.id for r in book.rules}
    assert any(r.kind == "curated" for r in book.rules)


def pr_after(*iterations: tuple[str, list[Finding]]) -> PRRecord:
    pr = PRRecord(number=7)
    for i, (sha, findings) in enumerate(iterations):
        pr = merge_observation(pr, f"{sha}:{i}", sha, findings, NOW + timedelta(hours=i))
    return pr


def diff(*files: str, base: str = "a" * 40, head: str = "b" * 40) -> FixDiff:
    return FixDiff(base_sha=base, head_sha=head, files=files)


def test_a_failure_then_a_pass_records_the_fixing_diff_ranked_and_teaches_a_rule() -> None:
    pr = pr_after(("a" * 40, [finding("t1"), finding("t2")]), ("b" * 40, [finding("t2")]))
    changed = diff("README.md", "src/app/calc.py", "docs/notes.md")
    book = learning.record_fixes(LearningBook(), pr.iterations[0], pr.iterations[1], "pr:7", changed, NOW)
    [pair] = book.fixes
    assert (pair.fingerprint, pair.failed_sha, pair.fixed_sha, pair.confidence) == ("t1", "a" * 40, "b" * 40, "high")
    assert pair.files == ["src/app/calc.py", "README.md", "docs/notes.md"]  # what the failure named first
    [taught] = book.rules
    assert taught.kind == "fix" and taught.classes == ["test_failure"] and "src/app/calc.py" in taught.text
    assert pair.rule == taught.id


def test_nitpicks_and_infra_disappearing_are_not_fixes() -> None:
    pr = pr_after(
        ("a" * 40, [finding("n", severity="nitpick"), finding("i", kind="infra", severity="major")]), ("b" * 40, [])
    )
    book = learning.record_fixes(LearningBook(), pr.iterations[0], pr.iterations[1], "pr:7", diff(), NOW)
    assert book.fixes == []


def test_a_diff_touching_nothing_the_failure_named_is_kept_with_low_confidence_and_teaches_nothing() -> None:
    failing = finding("t1", path="src/app/core.py", excerpt='File "src/app/util.py", line 3, in helper')
    pr = pr_after(("a" * 40, [failing]), ("b" * 40, []))
    book = learning.record_fixes(LearningBook(), pr.iterations[0], pr.iterations[1], "pr:7", diff("README.md"), NOW)
    [pair] = book.fixes
    assert (pair.confidence, pair.files, pair.rule, book.rules) == ("low", ["README.md"], None, [])
    other = pr_after(("d" * 40, [failing]))
    assert other.current is not None
    [hint] = learning.hints_for(book, other.current.findings, "pr:8", "d" * 40)
    assert "fixed by bbbbbbb" in hint and "README" not in hint
    # A stack frame the failure named counts: the same diff plus its frame's file is a confident pair.
    book = learning.record_fixes(
        LearningBook(), pr.iterations[0], pr.iterations[1], "pr:7", diff("README.md", "src/app/util.py"), NOW
    )
    assert (book.fixes[0].confidence, book.fixes[0].files[0]) == ("high", "src/app/util.py")


def test_a_diff_of_other_commits_is_not_this_fix() -> None:
    pr = pr_after(("a" * 40, [finding("t1")]), ("b" * 40, []))
    stale = diff("calc.py", base="c" * 40)
    book = learning.record_fixes(LearningBook(), pr.iterations[0], pr.iterations[1], "pr:7", stale, NOW)
    assert (book.fixes[0].files, book.fixes[0].confidence) == ([], "low")


def test_a_fix_that_does_not_hold_contradicts_its_rule() -> None:
    pr = pr_after(("a" * 40, [finding("t1")]), ("b" * 40, []), ("c" * 40, [finding("t1")]))
    book = learning.record_fixes(LearningBook(), pr.iterations[0], pr.iterations[1], "pr:7", diff("calc.py"), NOW)
    book = learning.record_fixes(book, pr.iterations[1], pr.iterations[2], "pr:7", None, NOW)
    assert book.rules[0].contradictions == 1


def test_hints_show_the_earlier_fix_when_the_failure_appears_elsewhere() -> None:
    pr = pr_after(("a" * 40, [finding("t1")]), ("b" * 40, []))
    book = learning.record_fixes(LearningBook(), pr.iterations[0], pr.iterations[1], "pr:7", diff("calc.py"), NOW)
    other = pr_after(("d" * 40, [finding("t1"), finding("t9")]))
    assert other.current is not None
    [hint] = learning.hints_for(book, other.current.findings, "pr:8", "d" * 40)
    assert "tests/test_calc.py::t1" in hint and "PR #7" in hint and "bbbbbbb" in hint and "calc.py" in hint


def obs(sha: str, findings: list[Finding], pr: int = 7) -> Observation:
    return Observation(pr=pr, head_sha=sha, findings=tuple(findings), changed_files=("src/app/calc.py",))


def test_learn_from_pr_records_defects_rules_and_shows_chosen_rules() -> None:
    config = Config(selfheal=SelfHealConfig(curated_rules={"test_failure": ("Run the whole test suite locally.",)}))
    review = finding("r1", kind="review", severity="major", rule_learned="Check inputs at the boundary")
    observation = obs("a" * 40, [finding("t1"), review])
    pr = merge_observation(PRRecord(number=7), observation.id, observation.head_sha, observation.findings, NOW)
    state = learning.learn_from_pr(State(pr=pr), observation, config=config, now=NOW, rng=np.random.default_rng(1))
    lessons = learning.lessons_for(state)
    assert {e.fingerprint for e in state.defects.entries} == {"t1", "r1"}
    assert {r.kind for r in state.learnings.rules} == {"curated", "review"}
    assert sorted(lessons.rules) == [
        "review: Check inputs at the boundary",
        "test_failure: Run the whole test suite locally.",
    ]
    assert {(s.context, s.place) for s in state.bandit.pending} == {("review", "pr:7"), ("test_failure", "pr:7")}


def test_the_report_reads_the_rules_chosen_when_the_observation_was_folded() -> None:
    config = Config(selfheal=SelfHealConfig(curated_rules={"test_failure": ("A", "B", "C", "D")}, rules_per_class=2))
    observation = obs("a" * 40, [finding("t1")])
    pr = merge_observation(PRRecord(number=7), observation.id, observation.head_sha, observation.findings, NOW)
    state = learning.learn_from_pr(State(pr=pr), observation, config=config, now=NOW, rng=np.random.default_rng(3))
    [shown] = state.bandit.pending
    by_id = {r.id: r.text for r in state.learnings.rules}
    # However often the report is planned again (a command, a redelivery), it shows what was drawn, and reads only.
    assert learning.lessons_for(state).rules == tuple(f"test_failure: {by_id[r]}" for r in shown.rules)
    assert learning.lessons_for(state) == learning.lessons_for(state)
    assert len(shown.rules) == 2


def branch_runs(*runs: tuple[str, bool, list[str]]) -> list[RunRecord]:
    return [
        RunRecord(observation=f"o{i}", head_sha=sha, at=NOW, green=green, failing=failing, job="ci/test")
        for i, (sha, green, failing) in enumerate(runs)
    ]


def test_a_branch_going_green_records_the_fixes_of_its_last_red_run() -> None:
    log = selfheal.record_defects(DefectLog(), [finding("t1")], "branch:main", NOW)
    runs = branch_runs(("a" * 40, False, ["t1"]), ("b" * 40, True, []))
    book = learning.record_branch_fixes(LearningBook(), log, runs, "branch:main", diff("src/app/calc.py"), NOW)
    [pair] = book.fixes
    assert (pair.place, pair.failed_sha, pair.fixed_sha, pair.summary) == (
        "branch:main",
        "a" * 40,
        "b" * 40,
        "tests/test_calc.py::t1",
    )
    assert learning.record_branch_fixes(book, log, runs, "branch:main", None, NOW) == book  # once per fix
    pr = pr_after(("d" * 40, [finding("t1")]))
    assert pr.current is not None
    [hint] = learning.hints_for(book, pr.current.findings, "pr:8", "d" * 40)
    assert "failed before on branch main, fixed by bbbbbbb" in hint


def test_a_branch_still_red_or_incomplete_records_nothing() -> None:
    log = selfheal.record_defects(DefectLog(), [finding("t1")], "branch:main", NOW)
    red = branch_runs(("a" * 40, False, ["t1"]), ("b" * 40, False, ["t2"]))
    assert learning.record_branch_fixes(LearningBook(), log, red, "branch:main", None, NOW).fixes == []
    cut = branch_runs(("a" * 40, False, ["t1"]), ("b" * 40, True, []))
    cut[-1] = cut[-1].model_copy(update={"complete": False})
    assert learning.record_branch_fixes(LearningBook(), log, cut, "branch:main", None, NOW).fixes == []


def test_a_redelivered_observation_changes_no_learning_and_shows_the_same_rules() -> None:
    config = Config(selfheal=SelfHealConfig(curated_rules={"test_failure": ("One", "Two", "Three", "Four")}))
    first = obs("a" * 40, [finding("t1")])
    state, _ = decide(State(pr=PRRecord(number=7)), first, config, NOW, np.random.default_rng(3))
    second = obs("b" * 40, [])
    state, plan = decide(state.model_copy(update={"events": []}), second, config, NOW, np.random.default_rng(4))
    again, replan = decide(state.model_copy(update={"events": []}), second, config, NOW, np.random.default_rng(4))
    assert again.model_copy(update={"events": []}) == state.model_copy(update={"events": []}) and replan == plan
    assert again.events == []
    rewarded = {a.rule: (a.alpha, a.beta) for a in state.bandit.arms}
    assert len(rewarded) == 3 and set(rewarded.values()) == {(4.0, 1.0)}  # curated α+2, then one success each


def test_a_review_finding_reported_again_teaches_nothing_new() -> None:
    review = finding("r1", kind="review", severity="minor", rule_learned="Check inputs at the boundary")
    state = State(pr=PRRecord(number=7))
    for sha, pr in (("a" * 40, 7), ("b" * 40, 7), ("c" * 40, 8)):
        state = state.model_copy(update={"pr": state.pr if state.pr and state.pr.number == pr else PRRecord(number=pr)})
        state, _ = decide(state, obs(sha, [review], pr=pr), Config(), NOW, np.random.default_rng(0))
    [rule] = state.learnings.rules
    assert rule.reinforcements == 2  # once on PR 7 (two iterations), once on PR 8
    assert state.learnings.taught == ["pr:7:r1", "pr:8:r1"]


def test_fix_rules_of_different_error_classes_stay_apart() -> None:
    lint = "When lint fails in other, look at calc.py first: an earlier fix changed it."
    tests = "When test_failure fails in tests, look at calc.py first: an earlier fix changed it."
    book, first = learning.learn_rule(LearningBook(), lint, "fix", ["lint"], NOW)
    book, second = learning.learn_rule(book, tests, "fix", ["test_failure"], NOW)
    assert first != second
    assert sorted(r.classes[0] for r in book.rules) == ["lint", "test_failure"]


def test_a_renamed_test_or_a_flake_that_did_not_recur_is_no_fix_pair() -> None:
    pr = pr_after(("a" * 40, [finding("t1")]), ("b" * 40, []))
    changed = diff("tests/test_calc.py")

    def pairs(passed: tuple[str, ...] = (), flaky: tuple[str, ...] = ()) -> list[str]:
        book = learning.record_fixes(
            LearningBook(), pr.iterations[0], pr.iterations[1], "pr:7", changed, NOW, passed=passed, flaky=flaky
        )
        return [p.fingerprint for p in book.fixes]

    # The reports list what passed: t1 renamed to t1_renamed (or deleted) is not among them.
    assert pairs(passed=("tests/test_calc.py::t1_renamed",)) == []
    assert pairs(passed=("tests/test_calc.py::t1",)) == ["t1"]  # it passes under the same id: a fix
    assert pairs(flaky=("t1",)) == []  # a flake that simply did not recur fixed nothing
