"""Runs racing for the state branch: every run's update lands, none is lost, nothing is force-pushed."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from threading import Barrier

import pytest
from scenario import Outcome, Scenario, failing_ci

RUNS = 32


@pytest.mark.slow
def test_32_runs_for_different_prs_at_the_same_moment_all_land(world: Scenario) -> None:
    review = {"review.json": failing_ci(1)["review.json"]}
    prs = [world.open_pr(f"race-{i}", {"calc.py": f"def add(a, b):\n    return a + b  # {i}\n"}) for i in range(RUNS)]
    start = Barrier(RUNS)

    def one(index: int) -> Outcome:
        number, sha = prs[index]
        start.wait()
        return world.run(
            "pull_request", world.pull_request_event(number, sha, "opened"), files=review, run_id=1000 + index
        )

    with ThreadPoolExecutor(max_workers=RUNS) as pool:
        outcomes = list(pool.map(one, range(RUNS)))

    assert [o.code for o in outcomes] == [0] * RUNS, [o.error for o in outcomes if o.code]
    for number, sha in prs:
        record = world.pr_record(number)
        assert record is not None and record.iteration_count == 1, number
        assert len(world.comments(number)) == 1, number
        assert len(world.check_runs(sha)) == 1, number
    iterations = [e for e in world.events() if e["kind"] == "iteration"]
    assert sorted(e["key"] for e in iterations) == sorted(f"pr:{n}" for n, _ in prs), "one audit line per run"
    for number, _ in prs:  # each run's effect ids landed in its own record, none lost to a concurrent commit
        record = world.pr_record(number)
        assert record is not None and record.effects == {f"pr-comment:{number}": world.comments(number)[0].id}
    commits = world.state_commits()
    assert len(commits) == RUNS, "one fast-forward commit per run, none lost or squashed"
    assert all(len(c.parents) <= 1 for c in commits)
