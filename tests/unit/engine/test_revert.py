"""Revert safety: commit facts, first-parent suspects, culprit identification and every refusal reason."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

import pytest

from gauntlet.config import RevertConfig
from gauntlet.engine.revert import (
    REFUSAL_ACTIONS,
    decide_revert,
    failing_files,
    first_parent_chain,
    identify_culprit,
    suspects_between,
)
from gauntlet.models import CommitFact, Kind
from gauntlet.state.branch import BranchRecord, Breakage, RevertRecord, RunRecord, same_commit
from gauntlet.state.pr import FindingRecord
from gauntlet.vocabulary import RevertReason

NOW = datetime(2026, 11, 29, 12, tzinfo=UTC)
CONFIG = RevertConfig()


def sha(name: str) -> str:
    return hashlib.sha1(name.encode()).hexdigest()


def commit(
    name: str,
    parent: str | None,
    files: tuple[str, ...] = ("src/app/calc.py",),
    *,
    message: str | None = None,
    at: datetime = NOW - timedelta(hours=1),
    merges: tuple[str, ...] = (),
) -> CommitFact:
    parents = tuple(sha(p) for p in ((parent,) if parent else ()) + merges)
    return CommitFact.of(
        sha=sha(name), message=message or f"Change {name}", author="bob", files=files, parents=parents, at=at
    )


def failure(fp: str = "t1", kind: Kind = "test_failure", path: str | None = "tests/test_calc.py") -> FindingRecord:
    return FindingRecord(fingerprint=fp, source="log", kind=kind, severity="critical", path=path, message=fp)


def breakage(suspects: list[CommitFact] | None, sightings: int = 1, fp: str = "t1") -> Breakage:
    first = suspects[-1].sha if suspects else sha("x")
    return Breakage(
        id="ci/test@1",
        job="ci/test",
        first_red=first,
        opened_at=NOW,
        last_good=sha("c0"),
        suspects=suspects,
        observations=["o1"],
        sightings={fp: sightings},
    )


def red_run(head: str, failing: tuple[str, ...] = ("t1",), obs: str = "o1") -> RunRecord:
    return RunRecord(observation=obs, head_sha=head, at=NOW, green=False, failing=list(failing), job="ci/test")


# Commit facts, as the edge builds them.


def test_commit_facts_read_reverts_and_noautorevert_from_the_message() -> None:
    target = sha("c1")
    fact = CommitFact.of(
        sha=sha("r1"),
        message=f'Revert "Faster add()"\n\nThis reverts commit {target}.\nNOAUTOREVERT please',
        author=None,
        files=("a.py",),
        parents=(target,),
        at=NOW,
    )
    assert fact.reverts == target
    assert fact.noautorevert
    assert fact.subject == 'Revert "Faster add()"'
    plain = CommitFact.of(sha=sha("c2"), message="Fix it", author=None, files=(), parents=(), at=NOW)
    assert plain.reverts is None and not plain.noautorevert


def test_commit_facts_from_the_rest_api() -> None:
    payload = {
        "sha": sha("m1"),
        "commit": {"message": "Merge pull request #12\n\nNOAUTOREVERT", "committer": {"date": "2026-11-29T10:00:00Z"}},
        "author": {"login": "bob"},
        "parents": [{"sha": sha("c0")}, {"sha": sha("side")}],
        "files": [{"filename": "src/app/calc.py", "status": "modified"}, {"status": "removed"}],
    }
    fact = CommitFact.from_api(payload)
    assert (fact.sha, fact.author, fact.files) == (sha("m1"), "bob", ("src/app/calc.py",))
    assert fact.parents == (sha("c0"), sha("side"))
    assert fact.at == datetime(2026, 11, 29, 10, tzinfo=UTC)
    assert fact.noautorevert and fact.subject == "Merge pull request #12"
    bare = CommitFact.from_api({"sha": sha("x")})
    assert bare.at.year == 1970 and bare.files == () and bare.author is None


def test_abbreviated_shas_name_the_same_commit_but_not_too_short_ones() -> None:
    assert same_commit(sha("c1"), sha("c1")[:7])
    assert not same_commit(sha("c1"), sha("c1")[:6])
    assert not same_commit(sha("c1"), sha("c2"))


# First-parent history and suspects.


def test_the_chain_follows_first_parents_only() -> None:
    c0 = commit("c0", None)
    side = commit("side", "c0")
    m1 = commit("m1", "c0", merges=("side",))
    chain = first_parent_chain([m1, side, c0])
    assert [c.sha for c in chain] == [m1.sha, c0.sha]


def test_suspects_are_the_commits_after_last_good_up_to_the_first_red_run() -> None:
    c0, c1, c2, c3 = commit("c0", None), commit("c1", "c0"), commit("c2", "c1"), commit("c3", "c2")
    chain = first_parent_chain([c3, c2, c1, c0])
    suspects = suspects_between(chain, c0.sha, c2.sha)
    assert suspects is not None
    assert [s.sha for s in suspects] == [c1.sha, c2.sha]
    assert suspects_between(chain, None, c2.sha) is None
    assert suspects_between(chain, sha("elsewhere"), c2.sha) is None
    assert suspects_between(chain, c0.sha, sha("unknown")) is None


def test_failing_files_include_the_file_of_a_test_id() -> None:
    assert failing_files([failure(path=None)]) == set()  # no path and no test id: nothing to point at
    with_id = FindingRecord(
        fingerprint="t",
        source="log",
        kind="test_failure",
        severity="critical",
        test_id="tests/t.py::test_x",
        message="",
    )
    assert failing_files([with_id, failure(fp="b", path="./native/parser.c")]) == {"tests/t.py", "native/parser.c"}
    framed = failure().model_copy(update={"frames": ["tests/test_calc.py", "src/app/calc.py"]})
    assert failing_files([framed]) == {"tests/test_calc.py", "src/app/calc.py"}  # its stack frames too


def test_the_culprit_is_the_only_suspect_or_the_one_closest_to_the_failure() -> None:
    a = commit("a", "c0", files=("docs/a.md",))
    b = commit("b", "a", files=("src/app/calc.py",))
    c = commit("c", "b", files=("src/app/calc.py", "docs/c.md"))
    assert identify_culprit([a], set())[0] == a
    assert identify_culprit([a, b], {"src/app/calc.py"})[0] == b
    culprit, why = identify_culprit([a, b, c], {"src/app/calc.py"})
    assert culprit is None and "2 of 3 suspects" in why
    # A code commit and a docs commit pushed together: the code under test by name blames the code commit.
    culprit, why = identify_culprit([a, b], {"tests/test_calc.py"})
    assert culprit == b and "changed the code under test" in why
    culprit, why = identify_culprit([a, b], {"tests/test_cli.py"})
    assert culprit is None and "none of the 2 suspects" in why
    # The failing file itself beats the code under test by name.
    t = commit("t", "b", files=("tests/test_calc.py",))
    assert identify_culprit([b, t], {"tests/test_calc.py"})[0] == t
    assert identify_culprit([], set())[0] is None


# Every refusal, and its precedence.


def decide(
    suspects: list[CommitFact] | None,
    *,
    findings: list[FindingRecord] | None = None,
    branch: BranchRecord | None = None,
    chain: list[CommitFact] | None = None,
    config: RevertConfig = CONFIG,
    sightings: int = 4,
) -> tuple[RevertReason | None, str]:
    record = branch or BranchRecord(name="main", runs=[red_run(suspects[-1].sha if suspects else sha("x"))])
    decision = decide_revert(record, breakage(suspects, sightings), findings or [failure()], chain or [], config, NOW)
    return decision.refusal, decision.detail


@pytest.mark.parametrize(
    ("kind", "files", "needed"),
    [
        ("build_error", ("native/parser.c",), 2),  # compilers do not flake: the rerun confirms
        ("type_error", ("src/app/calc.py",), 2),
        ("test_failure", ("tests/test_calc.py",), 3),  # the failing test itself: tests flake
        ("crash", ("tests/test_calc.py",), 3),
        ("test_failure", ("src/app/calc.py",), 4),  # only the code it tests (the same stem)
        ("test_failure", ("tests/conftest.py",), 4),  # only the same folder
        ("test_failure", ("src/app/cli.py",), None),  # nothing the failure points at: never
        ("test_failure", ("README.md", "src/app/cli.py"), None),
    ],
)
def test_the_sightings_that_confirm_grow_with_how_a_failure_can_flake_and_how_far_the_culprit_is(
    kind: Kind, files: tuple[str, ...], needed: int | None
) -> None:
    suspects = [commit("c1", "c0", files)]
    path = "native/parser.c" if kind == "build_error" else "src/app/calc.py" if kind == "type_error" else None
    found = failure(kind=kind, path=path or "tests/test_calc.py")
    for seen in range(1, 6):
        decision = decide_revert(
            BranchRecord(name="main", runs=[red_run(sha("c1"))]), breakage(suspects, seen), [found], [], CONFIG, NOW
        )
        assert (decision.refusal is None) == (needed is not None and seen >= needed), (files, seen, decision.detail)
        if decision.refusal is not None:
            assert decision.refusal == RevertReason.NOT_CONFIRMED
            # The rerun budget grows by what confirmation lacks; an unrelated culprit gets reruns to tell a flake.
            assert decision.extra_reruns == (needed - 2 if needed else 1)


def test_a_failure_naming_no_file_points_at_the_culprit() -> None:
    crash = failure(kind="crash", path=None)
    assert decide([commit("c1", "c0", ("src/app/cli.py",))], findings=[crash], sightings=2)[0] is not None
    assert decide([commit("c1", "c0", ("src/app/cli.py",))], findings=[crash], sightings=3)[0] is None


def test_a_lone_confirmed_culprit_is_reverted() -> None:
    refusal, detail = decide([commit("c1", "c0")])
    assert refusal is None
    assert "only commit since the last green run" in detail


def test_infra_and_unknown_failures_never_justify_a_revert() -> None:
    c1 = commit("c1", "c0")
    assert decide([c1], findings=[failure(kind="infra")])[0] == RevertReason.INFRA
    assert decide([c1], findings=[failure(kind="timeout")])[0] == RevertReason.INFRA
    assert decide([c1], findings=[failure(kind="dependency")])[0] == RevertReason.INFRA
    assert decide([c1], findings=[failure(kind="unknown")])[0] == RevertReason.NOT_CONFIRMED
    assert decide([c1], findings=[failure(kind="lint")])[0] == RevertReason.NOT_CONFIRMED


@pytest.mark.parametrize("kind", ["test_failure", "build_error", "type_error", "crash"])
def test_the_four_breaking_kinds_justify_a_revert(kind: Kind) -> None:
    assert decide([commit("c1", "c0")], findings=[failure(kind=kind)])[0] is None


def test_a_failure_that_also_passed_on_the_same_commit_is_flaky() -> None:
    c1 = commit("c1", "c0")
    passed = RunRecord(observation="o2", head_sha=c1.sha, at=NOW, green=True, job="ci/test")
    branch = BranchRecord(name="main", runs=[red_run(c1.sha), passed])
    assert decide([c1], branch=branch)[0] == RevertReason.FLAKY


def test_a_flaky_history_does_not_skip_a_failure_on_a_new_commit() -> None:
    # t1 failed and passed on c0 once (so it is listed flaky); failing on c1 it is confirmed like any failure.
    c0, c1 = sha("c0"), commit("c1", "c0")
    earlier = [
        red_run(c0, obs="o0"),
        RunRecord(observation="o0b", head_sha=c0, at=NOW, green=True, job="ci/test"),
    ]
    known = BranchRecord(name="main", runs=[*earlier, red_run(c1.sha)], flaky=["t1"])
    assert decide([c1], branch=known, sightings=5)[0] is None
    # Its known flake rate asks one sighting more than a test with no flaky history needs.
    assert decide([c1], sightings=4)[0] is None
    assert decide([c1], branch=known, sightings=4)[0] == RevertReason.NOT_CONFIRMED


def test_a_pass_in_a_run_cut_short_by_infra_proves_nothing() -> None:
    c1 = commit("c1", "c0")
    cut = RunRecord(
        observation="o2", head_sha=c1.sha, at=NOW, green=False, job="ci/test", failing=["i"], complete=False
    )
    assert decide([c1], branch=BranchRecord(name="main", runs=[red_run(c1.sha), cut]))[0] is None


def test_no_suspects_or_several_is_ambiguous() -> None:
    assert decide(None)[0] == RevertReason.AMBIGUOUS
    two = [commit("c1", "c0"), commit("c2", "c1")]
    assert decide(two)[0] == RevertReason.AMBIGUOUS


def test_a_revert_is_never_reverted_automatically() -> None:
    r1 = commit("r1", "c0", message=f'Revert "x"\n\nThis reverts commit {sha("c-1")}.', at=NOW - timedelta(days=3))
    assert decide([r1])[0] == RevertReason.IS_REVERT  # before too_old


@pytest.mark.parametrize(("status", "declined"), [("open", False), ("merged", False), ("closed_unmerged", True)])
def test_one_revert_per_culprit_ever(status: str, declined: bool) -> None:
    c1 = commit("c1", "c0")
    earlier = RevertRecord(culprit=c1.sha[:12], breakage="b", opened_at=NOW, status=status, number=41)
    branch = BranchRecord(name="main", runs=[red_run(c1.sha)], reverts=[earlier])
    decision = decide_revert(branch, breakage([c1]), [failure()], [], CONFIG, NOW)
    assert decision.refusal == RevertReason.ALREADY_REVERTED
    assert "#41" in decision.detail
    assert decision.declined is declined
    assert decision.action == ("escalate" if declined else "skip")


def test_a_revert_commit_on_the_branch_counts_as_already_reverted() -> None:
    c1 = commit("c1", "c0")
    r1 = commit("r1", "c1", message=f"Revert it\n\nThis reverts commit {c1.sha[:10]}.")
    refusal, detail = decide([c1], chain=[r1, c1])
    assert refusal == RevertReason.ALREADY_REVERTED
    assert r1.sha[:7] in detail


def test_noautorevert_too_old_not_confirmed_conflict_and_daily_cap() -> None:
    flagged = commit("c1", "c0", message="Migrate\n\nNOAUTOREVERT")
    assert decide([flagged])[0] == RevertReason.NOAUTOREVERT
    old = commit("c1", "c0", at=NOW - timedelta(hours=25))
    assert decide([old])[0] == RevertReason.TOO_OLD
    assert decide([old], config=RevertConfig(max_age_hours=48))[0] is None
    lone = commit("c1", "c0")
    # A single red run never confirms, not even for a lone suspect (DESIGN §3): reruns must fail again.
    assert decide([lone], sightings=1)[0] == RevertReason.NOT_CONFIRMED
    assert decide([lone], sightings=4)[0] is None
    later = commit("c2", "c1", files=("src/app/calc.py",))
    refusal, detail = decide([lone], chain=[later, lone])
    assert refusal == RevertReason.CONFLICT and "src/app/calc.py" in detail
    capped = BranchRecord(name="main", runs=[red_run(lone.sha)], daily={NOW.date().isoformat(): 3})
    assert decide([lone], branch=capped)[0] == RevertReason.DAILY_CAP
    yesterday = BranchRecord(name="main", runs=[red_run(lone.sha)], daily={"2026-11-28": 3})
    assert decide([lone], branch=yesterday)[0] is None


def test_permanent_refusals_come_before_confirmation() -> None:
    old = commit("c1", "c0", at=NOW - timedelta(hours=30))
    two = [commit("c0b", "c0", files=("docs/x.md",)), old]
    files = [failure(path="src/app/calc.py")]
    assert decide(two, findings=files)[0] == RevertReason.TOO_OLD


def test_every_reason_has_an_action_and_none_rolls_back() -> None:
    assert set(REFUSAL_ACTIONS) == set(RevertReason)
    assert "rollback" not in REFUSAL_ACTIONS.values()
    assert {str(r) for r in RevertReason} == {
        "infra",
        "flaky",
        "not_confirmed",
        "ambiguous",
        "too_old",
        "noautorevert",
        "is_revert",
        "already_reverted",
        "daily_cap",
        "conflict",
        "known",
    }
