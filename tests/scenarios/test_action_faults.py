"""The action while GitHub misbehaves: 10% of requests fail (5xx, secondary rate limit, dropped connection).

Every run ends correctly or fails cleanly (exit 3) and succeeds when rerun; afterwards
nothing is duplicated (one comment per PR, one check run per SHA, one audit line per
observation) and nothing is lost (every observation is in its PR's record).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import pytest
from scenario import REPO, Outcome, Scenario, failing_ci

#: 6 runs per PR; GAUNTLET_FAULT_PRS raises it (34 PRs make 204 runs, about 3 minutes here).
PRS = int(os.environ.get("GAUNTLET_FAULT_PRS", "10"))
WORKERS = 4
RERUNS = 5


def run_until_done(world: Scenario, number: int, sha: str, run_id: int) -> list[Outcome]:
    """One CI result delivered to the action, rerun (as a person would) while it fails cleanly."""
    review = {"review.json": failing_ci(1)["review.json"]}
    outcomes = []
    for _ in range(RERUNS):
        outcome = world.run("pull_request", world.pull_request_event(number, sha), files=review, run_id=run_id)
        outcomes.append(outcome)
        if outcome.code != 3:
            break
    return outcomes


@pytest.mark.slow
def test_runs_under_faults_end_cleanly_and_nothing_is_duplicated_or_lost(world: Scenario) -> None:
    prs = [world.open_pr(f"flaky-{i}", {"calc.py": f"def add(a, b):\n    return a + b  # {i}\n"}) for i in range(PRS)]
    world.sandbox.set_faults(0.1, seed=7)
    shas: dict[int, list[str]] = {number: [sha] for number, sha in prs}
    outcomes: list[list[Outcome]] = []

    def phase(run_ids: tuple[int, int]) -> None:
        first, second = run_ids

        def one_pr(number: int) -> list[list[Outcome]]:
            # Runs for one PR one after another, as a workflow's concurrency group keeps them; PRs in parallel.
            sha = shas[number][-1]
            return [run_until_done(world, number, sha, run_id) for run_id in (first, second, first)]

        with ThreadPoolExecutor(max_workers=WORKERS) as pool:
            for runs in pool.map(one_pr, [number for number, _ in prs]):
                outcomes.extend(runs)

    phase((1, 2))
    world.sandbox.set_faults(0.0)
    for number, _ in prs:
        shas[number].append(world.push(number, {"calc.py": f"# pushed to {number}\n"}))
    world.sandbox.set_faults(0.1, seed=8)
    phase((3, 4))
    world.sandbox.set_faults(0.0)

    failed_cleanly = sum(1 for runs in outcomes for o in runs if o.code == 3)
    assert all(runs[-1].code == 0 for runs in outcomes), [runs[-1].error for runs in outcomes if runs[-1].code]
    assert all(o.code in (0, 3) for runs in outcomes for o in runs)
    assert all("GitHub" in o.error for runs in outcomes for o in runs if o.code == 3)
    served = world.sandbox.requests()
    faults = [r for r in served if r["status"] in (0, 403, 429, 500, 502, 503)]
    assert len(faults) > 0.05 * len(served) and len(faults) > PRS, "the faults really happened"
    print(f"{len(outcomes)} runs, {failed_cleanly} failed cleanly and succeeded on rerun, {len(faults)} faults")

    events = world.events()
    for number, _ in prs:
        assert len(world.comments(number)) == 1, number
        for sha in shas[number]:
            assert len(world.check_runs(sha)) == 1, (number, sha)
        record = world.pr_record(number)
        assert record is not None
        assert record.iteration_count == 2
        seen = [o.split(":")[1] for iteration in record.iterations for o in iteration.observations]
        assert sorted(seen) == ["1", "2", "3", "4"], (number, seen)
        lines = [e for e in events if e["kind"] == "iteration" and e["key"] == f"pr:{number}"]
        assert len(lines) == 4, (number, len(lines))


def test_a_run_that_dies_before_its_state_commit_fails_cleanly_and_its_rerun_duplicates_nothing(
    world: Scenario,
) -> None:
    number, sha = world.open_pr("dies", {"calc.py": "def add(a, b):\n    return a + b\n"})
    event = world.pull_request_event(number, sha, "opened")
    world.sandbox.set_faults(1.0, kinds=["502"], paths=[f"/repos/{REPO}/git/"])

    died = world.run("pull_request", event, files=failing_ci(1))

    world.sandbox.set_faults(0.0)
    assert died.code == 3 and "GitHub answered 502 after retries" in died.error
    assert len(world.comments(number)) == 1 and len(world.check_runs(sha)) == 1, "effects land before the commit"
    assert world.state_file("README.md") is None

    # Re-running the failed job is its next attempt (GITHUB_RUN_ATTEMPT 2): it looks before writing anything.
    rerun = world.run("pull_request", event, files=failing_ci(1), attempt=2)

    assert rerun.code == 0, rerun.error
    shown = [e["status"] for e in rerun.report["effects"] if e["type"] not in ("write_summary", "rerun_failed_jobs")]
    assert shown == ["unchanged", "unchanged"]
    assert len(world.comments(number)) == 1 and len(world.check_runs(sha)) == 1
    record = world.pr_record(number)
    assert record is not None and record.iteration_count == 1
    assert record.comment_id == world.comments(number)[0].id, "the rerun found the comment by listing"
