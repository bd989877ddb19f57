"""A default-branch run on the state branch: its record only, one PUT, its shared additions pending inside."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from gauntlet.engine.decide import BRANCH_RUN_FILES
from gauntlet.errors import StateConflict
from gauntlet.github import gitstore
from gauntlet.github.client import GitHubClient
from gauntlet.github.gitstore import BranchStore
from gauntlet.models import evolve
from gauntlet.sandbox import Sandbox
from gauntlet.state.branch import BranchRecord, RunRecord
from gauntlet.state.events import Event
from gauntlet.state.models import Scope
from gauntlet.state.pr import PRRecord
from gauntlet.state.shared import DefectEntry, DefectLog, EffectIndex

REPO = "octo/app"
BOT = "github-actions[bot]"
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
RUN = Scope(branch="main", shared=BRANCH_RUN_FILES, branch_run=True)


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    with Sandbox.start() as running:
        running.create_repo(REPO, {"README.md": "# app\n"})
        running.set_permission(REPO, BOT, "write")
        # The branch exists (a PR run created it): the runs below are not the first commit of all.
        first = BranchStore(GitHubClient(BOT, running.url, throttle=False), REPO)
        snapshot = first.load(Scope(pr=1))
        assert snapshot.state.pr is not None
        first.save(snapshot, evolve(snapshot.state, pr=evolve(snapshot.state.pr, iteration_count=1)), "gauntlet: pr")
        yield running


def store(sandbox: Sandbox) -> BranchStore:
    return BranchStore(GitHubClient(BOT, sandbox.url, throttle=False), REPO)


def branch_run(branch: BranchStore, sha: str, *, revert: int | None = None) -> None:
    """One run on main: a run record, a defect, an event, and (when it opened one) a revert PR's number."""
    snapshot = branch.load(RUN)
    state = snapshot.state
    record = state.branch or BranchRecord(name="main")
    run = RunRecord(observation=sha, head_sha=sha * 40, at=NOW, green=False, job="ci/test")
    entry = DefectEntry(
        at=NOW, component="calc", defect_type="test_failure", priority="P0", fingerprint=sha, place="main"
    )
    index = state.index if revert is None else evolve(state.index, entries={**state.index.entries, "revert:x": revert})
    new = evolve(
        state,
        branch=evolve(record, runs=[*record.runs, run]),
        defects=DefectLog(entries=[*state.defects.entries, entry], activity={"2026-11-29": len(record.runs) + 1}),
        index=index,
        events=[Event(at=NOW, kind="run", key=f"branch:main:{sha}")],
    )
    branch.save(snapshot, new, f"gauntlet: workflow_run {sha}")


def files_at(sandbox: Sandbox) -> dict[str, bytes]:
    repo = sandbox.store.repo("octo", "app")
    assert repo is not None
    sha = repo.git.ref("refs/heads/gauntlet-state")
    assert sha is not None
    return {e.path: repo.git.read_blob(e.sha) for e in repo.git.ls_tree(sha, recursive=True)}


def main_record(sandbox: Sandbox) -> BranchRecord:
    return BranchRecord.model_validate_json(files_at(sandbox)["v1/branches/main.json"])


def test_a_branch_run_writes_its_record_with_one_put_and_its_next_run_sees_what_it_added(sandbox: Sandbox) -> None:
    branch_run(store(sandbox), "a", revert=7)
    sandbox.clear_requests()

    later = store(sandbox)
    snapshot = later.load(RUN)

    assert [e.fingerprint for e in snapshot.state.defects.entries] == ["a"], "the pending shard, folded in"
    assert later.known("revert:x") == 7, "a revert PR it opened is known before the scan folds the index"
    assert snapshot.state.events == [], "the earlier run's events are not this run's"
    branch_run(later, "b")
    writes = [f"{r['method']} {r['path'].split('/', 4)[4]}" for r in sandbox.requests() if r["method"] != "GET"]
    assert writes == ["PUT contents/v1/branches/main.json"]
    files = files_at(sandbox)
    assert "v1/defects.json" not in files and "v1/index.json" not in files, "no shared file is written"
    assert not any(p.startswith(("v1/events/", "v1/shards/")) for p in files)
    record = main_record(sandbox)
    assert [r.observation for r in record.runs] == ["a", "b"]
    assert len(record.pending) == 1, "one merged shard, however many runs"
    assert [e.key for e in record.pending[0].events] == ["branch:main:a", "branch:main:b"]
    head = store(sandbox).head()
    assert head is not None and "v1/branches/main.json" in head.pending


def test_the_scan_folds_the_branch_records_shard_and_keeps_its_own_change_to_the_record(sandbox: Sandbox) -> None:
    branch_run(store(sandbox), "a", revert=7)
    branch_run(store(sandbox), "b")

    scan = store(sandbox)
    snapshot = scan.load(Scope(branch="main", shards=True))
    assert snapshot.state.branch is not None
    scanned = evolve(snapshot.state.branch, last_good="c" * 40)
    scan.save(snapshot, evolve(snapshot.state, branch=scanned), "gauntlet: scheduled scan")

    files = files_at(sandbox)
    assert [e.fingerprint for e in DefectLog.model_validate_json(files["v1/defects.json"]).entries] == ["a", "b"]
    assert EffectIndex.model_validate_json(files["v1/index.json"]).entries == {"revert:x": 7}
    events = files["v1/events/2026-11.1.jsonl"].decode()
    assert "branch:main:a" in events and "branch:main:b" in events
    record = main_record(sandbox)
    assert record.pending == [] and record.last_good == "c" * 40, "emptied, and the scan's change kept"
    head = store(sandbox).head()
    assert head is not None and "v1/branches/main.json" not in head.pending


def test_a_branch_record_whose_shard_outgrew_its_bound_writes_the_shard_as_a_file(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    branch_run(store(sandbox), "a")
    monkeypatch.setattr(gitstore, "MAX_PENDING_BYTES", 100)

    branch_run(store(sandbox), "b")

    files = files_at(sandbox)
    assert main_record(sandbox).pending == []
    shards = [json.loads(d) for p, d in files.items() if p.startswith("v1/shards/")]
    assert len(shards) == 1 and len(shards[0]["events"]) == 2, "both runs' additions, in one file"
    scan = store(sandbox)
    snapshot = scan.load(Scope(branch="main", shards=True))
    assert [e.fingerprint for e in snapshot.state.defects.entries] == ["a", "b"]


def test_two_runs_of_main_at_once_conflict_and_the_retry_keeps_both(sandbox: Sandbox) -> None:
    first, second = store(sandbox), store(sandbox)
    snapshot = second.load(RUN)
    branch_run(first, "a")
    assert snapshot.state.branch is not None

    late = evolve(snapshot.state, branch=evolve(snapshot.state.branch, last_good="b" * 40))
    with pytest.raises(StateConflict):
        second.save(snapshot, late, "gauntlet: workflow_run b")
    branch_run(store(sandbox), "b")  # the pipeline's retry: read again, decide again

    record = main_record(sandbox)
    assert [r.observation for r in record.runs] == ["a", "b"]
    assert [e.key for e in record.pending[0].events] == ["branch:main:a", "branch:main:b"]


def test_a_pr_run_remembers_the_default_branch_record_without_the_answers_it_keeps(sandbox: Sandbox) -> None:
    branch_run(store(sandbox), "a")
    scan = store(sandbox)
    folded = scan.load(Scope(branch="main", shards=True))
    scan.save(folded, folded.state, "gauntlet: scheduled scan")  # defects.json exists now
    branch_run(store(sandbox), "b")  # reads it conditionally: its record remembers the answer
    assert main_record(sandbox).reads, "the branch record keeps its runs' answers"
    sandbox.clear_requests()
    branch_run(store(sandbox), "c")
    defects = [r["status"] for r in sandbox.requests() if r["path"].endswith("/contents/v1/defects.json")]
    assert defects == [], "the head names the blob its record remembers: no request at all"

    pr_run = store(sandbox)
    snapshot = pr_run.load(Scope(pr=1, base="main"))
    assert snapshot.state.pr is not None and snapshot.state.base is not None
    assert [r.observation for r in snapshot.state.base.runs] == ["a", "b", "c"]
    pr_run.save(snapshot, evolve(snapshot.state, pr=evolve(snapshot.state.pr, iteration_count=2)), "gauntlet: pr")

    kept = PRRecord.model_validate_json(files_at(sandbox)["v1/prs/1.json"]).reads
    main = kept["blob:v1/branches/main.json"]
    assert isinstance(main.body, str)
    assert json.loads(main.body)["reads"] == {}, "a cache of a cache would fill the PR's record"


def pr_run(sandbox: Sandbox, number: int = 1) -> tuple[list[str], list[str]]:
    """One run of PR ``number``: what it saw of main's runs, and the paths of the files it read."""
    sandbox.clear_requests()
    branch = store(sandbox)
    snapshot = branch.load(Scope(pr=number, base="main"))
    assert snapshot.state.pr is not None and snapshot.state.base is not None
    record = evolve(snapshot.state.pr, iteration_count=snapshot.state.pr.iteration_count + 1)
    branch.save(snapshot, evolve(snapshot.state, pr=record), f"gauntlet: pr {number}")
    read = [r["path"].split("/contents/")[-1] for r in sandbox.requests() if r["method"] == "GET"]
    return [r.observation for r in snapshot.state.base.runs], read


def test_a_pr_run_reads_the_default_branch_record_only_when_it_changed(sandbox: Sandbox) -> None:
    branch_run(store(sandbox), "a")
    assert pr_run(sandbox)[0] == ["a"]

    seen, read = pr_run(sandbox)

    assert seen == ["a"] and "v1/branches/main.json" not in read, "its blob is the one the record remembers"
    branch_run(store(sandbox), "b")
    seen, read = pr_run(sandbox)
    assert seen == ["a", "b"] and read.count("v1/branches/main.json") == 1


def test_a_branch_run_landing_under_another_runs_put_is_still_seen(sandbox: Sandbox) -> None:
    branch_run(store(sandbox), "a")
    pr_run(sandbox)  # PR 1 remembers main.json with run a
    other = store(sandbox)
    snapshot = other.load(Scope(pr=2, base="main"))  # PR 2 reads the head before main's next run lands
    branch_run(store(sandbox), "b")
    assert snapshot.state.pr is not None
    other.save(snapshot, evolve(snapshot.state, pr=evolve(snapshot.state.pr, iteration_count=1)), "gauntlet: pr 2")

    seen, read = pr_run(sandbox)

    # PR 2's commit copied the stale head's blobs; the branch run's own commit names what it wrote.
    assert seen == ["a", "b"] and read.count("v1/branches/main.json") == 1


def test_what_a_run_read_at_the_head_is_named_in_its_commit_even_when_absent(sandbox: Sandbox) -> None:
    # A state written by hand (or before the trailers named blobs): nothing is known, so the run reads.
    record = BranchRecord(name="main").model_dump_json(indent=1) + "\n"
    sandbox.commit(REPO, {"v1/branches/main.json": record}, "Seed by hand\n", branch="gauntlet-state")
    assert "v1/branches/main.json" in pr_run(sandbox)[1]

    assert "v1/branches/main.json" not in pr_run(sandbox)[1], "the first run named the blob it read"
    sandbox.commit(REPO, {"v1/branches/main.json": None}, "Remove by hand\n", branch="gauntlet-state")
    assert "v1/branches/main.json" in pr_run(sandbox)[1], "a commit without trailers: read again (404)"
    assert "v1/branches/main.json" not in pr_run(sandbox)[1], "named absent: no 404 asked for again"
