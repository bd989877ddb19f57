"""``gauntlet status``: what a local state folder holds, read from files the real store wrote."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from gauntlet.errors import InputError
from gauntlet.models import evolve
from gauntlet.state.branch import RunRecord
from gauntlet.state.local import LocalStore
from gauntlet.state.models import Scope
from gauntlet.state.pr import IterationRecord
from gauntlet.status import summarise

NOW = datetime(2026, 11, 2, 9, tzinfo=UTC)


def _save(store: LocalStore, scope: Scope, **changes: object) -> None:
    snapshot = store.load(scope)
    store.save(snapshot, evolve(snapshot.state, **changes), "test")


def test_an_empty_folder_has_no_state_yet(tmp_path: Path) -> None:
    summary = summarise(tmp_path)
    assert summary.prs == () and summary.branches == ()
    assert summary.text() == f"{tmp_path}: no state yet"


def test_prs_and_branches_are_listed_in_order(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    for number in (12, 3):
        pr = store.load(Scope(pr=number)).state.pr
        assert pr is not None
        iteration = IterationRecord(number=2, head_sha="b" * 40, action="checkpoint_majors", at=NOW)
        _save(store, Scope(pr=number), pr=evolve(pr, iteration_count=2, iterations=[iteration]))
    branch = store.load(Scope(branch="main")).state.branch
    assert branch is not None
    runs = [RunRecord(observation="c:1:1:test", head_sha="c" * 40, at=NOW, green=True, job="ci/test")]
    _save(store, Scope(branch="main"), branch=evolve(branch, last_good="c" * 40, runs=runs))

    summary = summarise(tmp_path)
    assert [p.number for p in summary.prs] == [3, 12]
    assert summary.prs[0].iteration == 2 and summary.prs[0].action == "checkpoint_majors"
    assert summary.text().splitlines()[1:] == [
        "  PR #3: iteration 2, checkpoint_majors, 0 open, 0 accepted",
        "  PR #12: iteration 2, checkpoint_majors, 0 open, 0 accepted",
        f"  branch main: last good {'c' * 40} (1 runs)",
    ]


def test_a_bad_state_file_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "v1" / "prs").mkdir(parents=True)
    (tmp_path / "v1" / "prs" / "1.json").write_text('{"number": "one"}', encoding="utf-8")
    with pytest.raises(InputError, match="a state file is invalid"):
        summarise(tmp_path)
