"""The branch state file: commit identity, lookups and a JSON round trip."""

from __future__ import annotations

from datetime import UTC, datetime

from gauntlet.models import CommitFact
from gauntlet.state.branch import BranchRecord, Breakage, RevertRecord, RunRecord, same_commit

NOW = datetime(2026, 11, 29, 10, tzinfo=UTC)
SHA = "0123456789abcdef0123456789abcdef01234567"


def test_same_commit_accepts_abbreviations_of_seven_or_more() -> None:
    assert same_commit(SHA, SHA[:7].upper())
    assert same_commit(SHA[:12], SHA)
    assert not same_commit(SHA, SHA[:6])
    assert not same_commit(SHA, "fedcba9")


def test_lookups_find_the_open_breakage_and_the_revert_of_a_culprit() -> None:
    done = Breakage(id="j@1", job="ci/test", first_red=SHA, opened_at=NOW, resolved_at=NOW, resolution="recovered")
    live = Breakage(id="j@2", job="ci/test", first_red=SHA, opened_at=NOW)
    other = Breakage(id="k@1", job="ci/lint", first_red=SHA, opened_at=NOW)
    revert = RevertRecord(culprit=SHA[:12], breakage="j@2", opened_at=NOW, status="closed_unmerged", number=9)
    record = BranchRecord(name="main", breakages=[done, live, other], reverts=[revert])
    assert record.open_breakage("ci/test") == live
    assert record.open_breakage("ci/build") is None
    assert record.revert_of(SHA) == revert
    assert record.revert_of("f" * 40) is None


def test_a_branch_file_round_trips_as_json() -> None:
    fact = CommitFact.of(sha=SHA, message="Faster add()", author="bob", files=("a.py",), parents=(), at=NOW)
    record = BranchRecord(
        name="main",
        runs=[RunRecord(observation="o", head_sha=SHA, at=NOW, green=False, failing=["f"], job="ci/test")],
        good={"ci/test": SHA},
        breakages=[Breakage(id="b", job="ci/test", first_red=SHA, opened_at=NOW, suspects=[fact], sightings={"f": 2})],
        reverts=[RevertRecord(culprit=SHA, breakage="b", opened_at=NOW)],
        daily={"2026-11-29": 1},
        flaky=["g"],
    )
    assert BranchRecord.model_validate_json(record.model_dump_json()) == record
