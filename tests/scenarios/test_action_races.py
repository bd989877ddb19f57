"""Runs racing for the state branch: every run's update lands, none is lost, nothing is force-pushed."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from threading import Barrier
from typing import Any

import pytest
from scenario import REPO, Outcome, Scenario, failing_ci

from gauntlet.state.pr import PRRecord

STATE = "gauntlet-state"

RUNS = 32
#: Counted calls (304s are free) the 32 runs may make together, against the same runs one after another:
#: each writes only its own record (one contents PUT), so running them at once costs little more (issue 21).
#: Before shards 31 runs made 2,832 calls; with shards and a rebuild per conflict, 1.8-2.0x.
RATIO = 1.3


@pytest.mark.slow
def test_32_runs_for_different_prs_at_the_same_moment_all_land(world: Scenario) -> None:
    review = {"review.json": failing_ci(1)["review.json"]}
    # The state branch exists already, as in any repository after Gauntlet's first run.
    world.sandbox.commit(REPO, {"README.md": "state\n"}, "gauntlet: start\n\nGauntlet-Shared: \n", branch=STATE)
    prs = [world.open_pr(f"race-{i}", {"calc.py": f"def add(a, b):\n    return a + b  # {i}\n"}) for i in range(RUNS)]
    alone = world.open_pr("alone", {"calc.py": "def add(a, b):\n    return a + b  # alone\n"})
    start = Barrier(RUNS)

    def one(pr: tuple[int, str], run_id: int) -> Outcome:
        event = world.pull_request_event(pr[0], pr[1], "opened")
        return world.run("pull_request", event, files=review, run_id=run_id)

    world.sandbox.clear_requests()
    assert one(alone, 999).code == 0
    per_run = counted(world.sandbox.requests())
    before = len(world.state_commits())

    def racing(index: int) -> Outcome:
        start.wait()
        return one(prs[index], 1000 + index)

    world.sandbox.clear_requests()
    with ThreadPoolExecutor(max_workers=RUNS) as pool:
        outcomes = list(pool.map(racing, range(RUNS)))
    served = world.sandbox.requests()

    assert [o.code for o in outcomes] == [0] * RUNS, [o.error for o in outcomes if o.code]
    stored = raw_state(world)
    for number, sha in prs:
        record = PRRecord.model_validate_json(stored[f"v1/prs/{number}.json"])
        assert record.iteration_count == 1, number
        assert len(world.comments(number)) == 1, number
        assert len(world.check_runs(sha)) == 1, number
        # Its effect ids and its additions to the shared files (its shard, audit line included) are in its own
        # record, none lost to a concurrent commit.
        assert record.effects == {f"pr-comment:{number}": world.comments(number)[0].id}
        assert [[e.key for e in shard.events] for shard in record.pending] == [[f"pr:{number}"]], number
    iterations = [e for e in world.events() if e["kind"] == "iteration"]
    expected = sorted(f"pr:{n}" for n, _ in [*prs, alone])
    assert sorted(e["key"] for e in iterations) == expected, "one audit line per run, once the shards are read"
    commits = world.state_commits()
    assert len(commits) == before + RUNS, "one commit per run, none lost or squashed"
    assert all(len(c.parents) <= 1 for c in commits)
    calls = counted(served)
    assert calls <= RATIO * RUNS * per_run, f"{calls} counted calls for {RUNS} runs; one alone makes {per_run}"
    reads = [r for r in served if r["path"] == "/graphql" or (r["method"] == "GET" and "/contents/v1/" in r["path"])]
    assert len(reads) <= RUNS, "a run never re-reads the state: each reads it once, in its start query"
    shared = ("v1/defects.json", "v1/learnings.json", "v1/index.json", "v1/shards/")
    assert not any(p.startswith(shared) for p in stored), (
        "PR runs write their own record only; the scan folds the shards they hold into the shared files"
    )


def raw_state(world: Scenario) -> dict[str, bytes]:
    """The state branch's files as stored (nothing folded)."""
    repo = world.sandbox.store.repo(*REPO.split("/"))
    assert repo is not None
    head = repo.git.ref(f"refs/heads/{STATE}") or ""
    return {e.path: repo.git.read_blob(e.sha) for e in repo.git.ls_tree(head, recursive=True)}


def counted(requests: list[dict[str, Any]]) -> int:
    """Requests counted against the rate limit: all but the 304s (GitHub's conditional requests are free)."""
    return sum(1 for r in requests if r["status"] != 304 and not r["path"].startswith("/_sandbox"))
