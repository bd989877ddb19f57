"""Runs racing for the state branch: every run's update lands, none is lost, nothing is force-pushed."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from threading import Barrier

import pytest
from scenario import Outcome, Scenario, failing_ci

RUNS = 32
#: Calls all 32 runs may make together. One run alone makes 11; before shards (issue 21) 31 runs made 2,832
#: (each conflict re-read and re-wrote the shared files); now a conflict costs 4 calls (compare, tree, commit,
#: ref). The target is 1.3x the runs one after another (458): not met yet, see docs/scale.md.
MAX_CALLS = RUNS * 30


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

    world.sandbox.clear_requests()
    with ThreadPoolExecutor(max_workers=RUNS) as pool:
        outcomes = list(pool.map(one, range(RUNS)))
    calls = len(world.sandbox.requests())

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
    assert calls <= MAX_CALLS, f"{calls} API calls for {RUNS} runs"
    reads = [r for r in world.sandbox.requests() if r["method"] == "GET" and "/contents/v1/prs/" in r["path"]]
    assert len(reads) <= RUNS, "a conflict never re-reads the state: each run reads its PR file once"
    stored = world.sandbox.store.repo("octo", "app")
    assert stored is not None
    paths = {e.path for e in stored.git.ls_tree(stored.git.ref("refs/heads/gauntlet-state") or "", recursive=True)}
    assert not any(p in paths for p in ("v1/defects.json", "v1/learnings.json", "v1/index.json")), (
        "PR runs write their own files only; the scan folds their shards into the shared files"
    )
    assert len([p for p in paths if p.startswith("v1/shards/")]) == RUNS
