"""All three writes under injected faults: runs fail part-way and are run again; still one of each."""

from __future__ import annotations

from scenario import OWNER, REPO, Scenario
from test_effects_issues import risk
from test_effects_proposals import proposal
from test_effects_reverts import revert_of

from gauntlet.errors import GitHubUnavailable


def test_runs_killed_by_faults_and_rerun_leave_one_issue_one_revert_and_one_proposal(world: Scenario) -> None:
    culprit = world.sandbox.commit(REPO, {"src/util.py": "X = 7\n"}, "Seven")
    plan = (risk(), revert_of(culprit, "Seven"), proposal())
    # Few retries and many faults, so runs really do die part-way, between any two calls.
    world.retries = 1
    world.sandbox.set_faults(0.3, seed=11, paths=(f"/repos/{REPO}/",), kinds=("500", "502", "503", "drop"))
    failed_runs = 0
    for _ in range(30):
        try:
            world.apply(*plan)  # a run that raises never records: the state keeps what it had
        except GitHubUnavailable:
            failed_runs += 1
            continue
        break
    world.sandbox.set_faults(0.0)
    faults = [r for r in world.sandbox.requests() if r["status"] in (0, 500, 502, 503)]
    assert failed_runs >= 2, "the seed should make runs fail part-way"

    results = world.apply(*plan)
    assert [r.status for r in results] == ["unchanged", "unchanged", "unchanged"]
    for result in results:
        assert world.index(result.key) == result.number
    issues = [i for i in world.repo.get_issues(state="all") if "gauntlet:key=risk:fp-sql-1" in (i.body or "")]
    assert [i.number for i in issues] == [results[0].number]
    reverts = world.repo.get_pulls(state="all", head=f"{OWNER}:gauntlet/revert-{culprit[:12]}")
    assert [p.number for p in reverts] == [results[1].number]
    proposals = world.repo.get_pulls(state="all", head=f"{OWNER}:gauntlet/proposal-P-7")
    assert [p.number for p in proposals] == [results[2].number]
    print(f"{len(faults)} injected faults, {failed_runs} runs failed part-way")
