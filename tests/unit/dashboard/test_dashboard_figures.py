"""The dashboard's figures from a state folder written with the state's own models."""

from __future__ import annotations

from pathlib import Path

from statefiles import at, finding, iteration, run, write

from gauntlet.dashboard.figures import collect
from gauntlet.dashboard.source import StateSource
from gauntlet.models import CommitFact
from gauntlet.state.additions import Shard
from gauntlet.state.branch import BranchRecord, Breakage, RevertRecord, RunRecord
from gauntlet.state.pr import AcceptedRisk, Attempt, PRRecord
from gauntlet.state.shards import delta
from gauntlet.state.shared import (
    DefectEntry,
    DefectLog,
    EffectIndex,
    FixPair,
    LearnedRule,
    LearningBook,
    Proposal,
    ProposalBook,
)


def _branch() -> BranchRecord:
    culprit = CommitFact(sha="c0ffee1234567", subject="Use operator functions", at=at(0))
    return BranchRecord(
        name="main",
        runs=[run("c0ffee1234567", 1, ["F1"]), run("c0ffee1234567", 2, []), run("beef", 5, [])],
        breakages=[
            Breakage(id="b1", job="ci/test", first_red="c0ffee1234567", opened_at=at(1), suspects=[culprit],
                     culprit="c0ffee1234567", decision="revert",
                     findings=[finding("F1", "tests/test_calc.py::test_add")],
                     resolved_at=at(4.5), resolution="reverted"),
            Breakage(id="b2", job="ci/test", first_red="beef", opened_at=at(6)),
        ],
        reverts=[RevertRecord(culprit="c0ffee1234567", breakage="b1", opened_at=at(1.5), status="closed_unmerged"),
                 RevertRecord(culprit="abcdef1234567", breakage="b0", opened_at=at(0.5), status="merged", number=8)],
        flaky=["F9"],
    )  # fmt: skip


def test_every_figure_comes_from_the_files(tmp_path: Path) -> None:
    prs = [
        PRRecord(number=1, iteration_count=3, iterations=[
            iteration(1, "a", [finding("F1"), finding("F2")]), iteration(2, "b", [finding("F2")], ["F1"]),
            iteration(3, "c", [], ["F2"])]),
        PRRecord(number=2, iteration_count=2, iterations=[iteration(1, "d", [finding("F2")]),
                                                          iteration(2, "e", [finding("F2")])],
                 attempts=[Attempt(at=at(2), observation="o", head_sha="e", failure_type="circular_fix",
                                   action="escalate", reason="back again")],
                 accepted_risks=[AcceptedRisk(fingerprint="F2", by="maintainer", reason="later", at=at(3), issue=12)]),
    ]  # fmt: skip
    learnings = LearningBook(
        rules=[LearnedRule(id="r1", text="Compare floats with approx", kind="fix", first_seen=at(0), last_seen=at(0))],
        fixes=[FixPair(fingerprint="F1", error_class="test_failure", place="pr:1", failed_sha="a", fixed_sha="b",
                       files=["src/calc.py"], summary="tests/test_calc.py::test_add", rule="r1", at=at(2))],
    )  # fmt: skip
    proposals = ProposalBook(proposals=[
        Proposal(id="SH-1", component="calc", defect_type="test_failure", level="PATCH", status="verified",
                 created_at=at(48), watch_until=at(72)),
    ])  # fmt: skip
    defects = DefectLog(entries=[
        DefectEntry(at=at(h), component="calc", defect_type="test_failure", priority="P2", fingerprint=f"d{h}",
                    place="pr:1")
        for h in (30, 40, 47, 50, 100)
    ])  # fmt: skip
    # Flaky-test issues are keyed flaky:<component>:<fingerprint[:16]>, a later generation with ~<n>.
    index = EffectIndex(entries={"flaky:calc:F1": 44, "flaky:calc:F9~2": 45, "revert:c0ffee123456": 7,
                                 "proposal:SH-1": 9})  # fmt: skip
    root = write(tmp_path, prs=prs, branches=[_branch()], learnings=learnings, proposals=proposals,
                 defects=defects, index=index)  # fmt: skip

    d = collect(StateSource(root))

    main = d.default_branch
    assert main is not None and (main.runs, main.red_runs, main.open_breaks) == (3, 1, 1)
    assert [(b.id, b.hours_to_green) for b in main.breaks] == [("b2", None), ("b1", 3.5)]
    assert main.breaks[1].cause == "tests/test_calc.py::test_add"
    assert main.breaks[1].culprit_subject == "Use operator functions"
    assert [(r.number, r.status) for r in main.reverts] == [(7, "closed unmerged"), (8, "merged")]
    assert main.revert_status == (("opened", 0), ("merged", 1), ("withdrawn", 0), ("closed unmerged", 1))
    # F1 failed and passed on c0ffee…: flaky on one of the four commits it ran on (a, b, c0ffee, beef); F9 is
    # listed flaky.
    assert [(r.fingerprint, r.issue) for r in d.flaky] == [("F1", 44), ("F9", 45)]
    assert d.flaky[0].flake_rate == 1 / 4
    assert [(r.fingerprint, r.failures) for r in d.failures] == [("F2", 4), ("F1", 2)]
    assert d.failures[1].fix == "changed src/calc.py" and d.failures[1].rule == "Compare floats with approx"
    assert (d.prs.total, d.prs.green, d.prs.circular_prs, d.prs.accepted_risks) == (2, 1, 1, 1)
    assert dict(d.prs.histogram)["3"] == 1 and dict(d.prs.histogram)["not green"] == 1
    assert [r.number for r in d.prs.rows] == [2, 1]  # the circular one first
    # A 24 h watch: 30, 40 and 47 h fall in the day before it, 50 h in the day after, 100 h in neither.
    assert [(p.id, p.before, p.after, p.number) for p in d.proposals] == [("SH-1", 3, 1, 9)]
    assert d.outcomes == 10 and d.problems == ()  # 5 + 2 from the PRs, 3 from the branch


def test_a_bad_file_is_skipped_and_named_and_the_rest_is_read(tmp_path: Path) -> None:
    root = write(tmp_path, prs=[PRRecord(number=5, iterations=[iteration(1, "a", [finding("F")])])])
    (root / "v1" / "prs" / "6.json").write_text('{"number": "six"}')
    (root / "v1" / "prs" / "7.json").write_bytes(b"\xff\xfe not json")
    (root / "v1" / "branches").mkdir(parents=True)
    (root / "v1" / "branches" / "main.json").write_text('{"name": "main", "runs": [{"at": "never"}]}')
    naive = PRRecord(number=8, iterations=[iteration(1, "a", [finding("G")])]).model_dump_json()
    (root / "v1" / "prs" / "8.json").write_text(naive.replace("+00:00", "").replace("Z", ""))  # a hand edit

    d = collect(StateSource(root))

    assert d.prs.total == 1 and d.failures[0].fingerprint == "F"
    assert [p.split(":")[0] for p in d.problems] == [
        "v1/prs/6.json", "v1/prs/7.json", "v1/prs/8.json", "v1/branches/main.json",
    ]  # fmt: skip
    assert "invalid at number" in d.problems[0] and "without a time zone" in d.problems[2]


def test_an_empty_state_has_no_figures(tmp_path: Path) -> None:
    d = collect(StateSource(tmp_path))
    assert d.as_of is None and d.prs.total == 0 and d.default_branch is None and not d.flaky and not d.proposals


def test_defects_the_records_still_hold_pending_count_before_the_scan_folds_them(tmp_path: Path) -> None:
    def pending(place: str) -> Shard:
        entry = DefectEntry(
            at=at(1), component="calc", defect_type="test_failure", priority="P1", fingerprint=place, place=place
        )
        change = delta({"entries": []}, {"entries": [entry.model_dump(mode="json")]})
        return Shard(run=place, at=at(1), changes={"defects": change})

    root = write(
        tmp_path,
        prs=[PRRecord(number=5, pending=[pending("pr:5")])],
        branches=[BranchRecord(name="main", pending=[pending("main")])],
    )

    defects = StateSource(root).shared("defects", DefectLog)

    assert sorted(e.place for e in defects.entries) == ["main", "pr:5"], "a PR's and the default branch's"


def test_reruns_are_attempts_of_one_run_a_withdrawn_revert_says_so_and_the_date_covers_every_row(
    tmp_path: Path,
) -> None:
    sha = "a" * 40
    attempts = [
        RunRecord(observation=f"{sha}:7:{n}:CI/test", head_sha=sha, at=at(n), green=n == 3, job="CI/test")
        for n in (1, 2, 3)
    ]
    red = RunRecord(observation=f"{'b' * 40}:8:1:CI/test", head_sha="b" * 40, at=at(4), green=False, job="CI/test")
    revert = RevertRecord(culprit="c" * 40, breakage="k", opened_at=at(5), status="open", withdrawn=True)
    breakage = Breakage(id="k", job="CI/test", opened_at=at(6), first_red="b" * 40)
    write(tmp_path, branches=[BranchRecord(name="main", runs=[*attempts, red], reverts=[revert], breakages=[breakage])])

    dashboard = collect(StateSource(tmp_path))

    [main] = dashboard.branches
    assert (main.runs, main.red_runs) == (2, 1), "a run and its two reruns are one run, green at its last attempt"
    assert [r.status for r in main.reverts] == ["withdrawn"]
    assert dashboard.as_of == at(6), "never earlier than the break the page lists"
