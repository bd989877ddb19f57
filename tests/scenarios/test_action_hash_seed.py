"""The same Action runs write the same state bytes under any hash seed (issue 30, item 11).

A dict filled in set order follows ``PYTHONHASHSEED``; a state file written from it changes bytes for nothing, which
rewrites a blob and costs a call. Each play here is the same runs through the Action against the same repository,
each run a process of its own with the play's seed, from no state at all; the state branch's files must be the
same bytes in every play.
"""

from __future__ import annotations

from scenario import REPO, Scenario, failing_ci

from gauntlet.demo.payloads import schedule_event

SEEDS = (0, 1, 2)


def _written(world: Scenario) -> dict[str, bytes]:
    """The state branch's files as the runs wrote them (shards not folded: folding would encode them again)."""
    repo = world.sandbox.store.repo(*REPO.split("/"))
    assert repo is not None
    head = repo.git.ref("refs/heads/gauntlet-state")
    assert head is not None
    return {e.path: repo.git.read_blob(e.sha) for e in repo.git.ls_tree(head, recursive=True) if e.type == "blob"}


def _play(world: Scenario, number: int, sha: str, seed: int) -> dict[str, bytes]:
    """The PR's failing run (the demo's real pytest log and its review findings), the nightly scan that folds the
    run's additions into the shared files; the files they wrote. (No run of main: its check run is created anew
    in each play, a number the state keeps, which no hash seed decides.)"""
    if world.sandbox.store.repo(*REPO.split("/")).git.ref("refs/heads/gauntlet-state"):  # type: ignore[union-attr]
        world.repo.get_git_ref("heads/gauntlet-state").delete()  # forget everything: the play starts from no state
    runs = [
        ("pull_request", world.pull_request_event(number, sha, "opened"), failing_ci(1), {}),
        ("schedule", schedule_event(REPO), {}, {"logs": "", "findings": ""}),
    ]
    for run_id, (event, payload, files, inputs) in enumerate(runs, start=10):
        done = world.run(event, payload, files=files, inputs=inputs, run_id=run_id, hash_seed=seed)
        assert done.code in (0, 1), (event, done.error)
    return _written(world)


def test_the_same_action_runs_write_the_same_bytes_under_every_hash_seed(world: Scenario) -> None:
    number, sha = world.open_pr("seeds", {"calc.py": "def add(a, b):\n    return a * b\n"})

    played = {seed: _play(world, number, sha, seed) for seed in SEEDS}

    first = played[SEEDS[0]]
    assert "v1/defects.json" in first and f"v1/prs/{number}.json" in first, sorted(first)
    for seed, files in played.items():
        assert files.keys() == first.keys(), seed
        changed = [name for name in sorted(files) if files[name] != first[name]]
        assert changed == [], f"PYTHONHASHSEED={seed} wrote other bytes for {changed}"
