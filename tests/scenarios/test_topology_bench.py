"""bench/topology.py works: a few streams per documented setup through the Action (its figures are the bench's;
this checks the bench itself, and that the setups it reads from examples/workflows/ are the documented ones)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import topology


def test_the_setups_are_read_from_the_documented_workflows() -> None:
    by_name = {s.name: s for s in topology.setups()}
    assert by_name["step"].step_events == {"pull_request", "merge_group"}, "pull-request.yml skips pushes"
    assert by_name["step"].watched == {"push"}, "default-branch.yml watches main"
    assert by_name["workflow_run"].step_events == set()
    assert by_name["workflow_run"].watched == {"pull_request", "push", "merge_group"}


@pytest.mark.slow
def test_a_few_streams_play_through_every_setup() -> None:
    tallies = topology.bench(streams=8, seed=3, histories=5)
    assert set(tallies) == {"step", "workflow_run", "step + push"}
    for tally in tallies.values():
        assert tally.failing > 0 and tally.runs > 10 and tally.calls > tally.runs
        assert tally.regressions_new == tally.regressions
        assert tally.main_histories == 5 and tally.breaks > 0
        assert tally.bad_reverts == 0 and tally.early_issues == 0 and tally.false_alarms == 0
        assert tally.breaks_handled == tally.breaks
