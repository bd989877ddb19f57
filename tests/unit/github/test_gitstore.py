"""The state branch through the Git Data API on the sandbox: orphan creation, fast-forward only, cheap reads."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from gauntlet.errors import StateConflict
from gauntlet.github.client import GitHubClient
from gauntlet.github.gitstore import BranchStore
from gauntlet.sandbox import Sandbox
from gauntlet.state.branch import BranchRecord
from gauntlet.state.events import EVENT_PART_BYTES, Event
from gauntlet.state.models import Scope
from gauntlet.state.pr import PRRecord
from gauntlet.state.shared import DefectEntry, DefectLog

REPO = "octo/app"
BOT = "github-actions[bot]"
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    with Sandbox.start() as running:
        running.create_repo(REPO, {"README.md": "# app\n"})
        running.set_permission(REPO, BOT, "write")
        yield running


def store(sandbox: Sandbox) -> BranchStore:
    return BranchStore(GitHubClient(BOT, sandbox.url, throttle=False), REPO)


def save_pr(branch: BranchStore, number: int, *, data: dict[str, object] | None = None) -> None:
    snapshot = branch.load(Scope(pr=number))
    assert snapshot.state.pr is not None
    pr = snapshot.state.pr.model_copy(update={"iteration_count": snapshot.state.pr.iteration_count + 1})
    event = Event(at=NOW, kind="iteration", key=f"pr:{number}", data=data or {})
    branch.save(snapshot, snapshot.state.model_copy(update={"pr": pr, "events": [event]}), f"gauntlet: pr {number}")


def save_branch(branch: BranchStore, name: str = "main", *, data: dict[str, object] | None = None) -> None:
    """A branch run: it writes shared files whole and appends its events to the log."""
    snapshot = branch.load(Scope(branch=name))
    record = snapshot.state.branch or BranchRecord(name=name)
    changed = record.model_copy(update={"last_good": f"{len(record.runs):040x}", "runs": []})
    event = Event(at=NOW, kind="run", key=f"branch:{name}", data=data or {})
    new = snapshot.state.model_copy(update={"branch": changed, "events": [event]})
    branch.save(snapshot, new, f"gauntlet: branch {name}")


def add_defect(branch: BranchStore, number: int, fingerprint: str) -> None:
    """A PR run that adds one defect (a shared file): it lands as the run's shard."""
    snapshot = branch.load(Scope(pr=number))
    assert snapshot.state.pr is not None
    entry = DefectEntry(
        at=NOW,
        component="calc",
        defect_type="test_failure",
        priority="P1",
        fingerprint=fingerprint,
        place=f"pr:{number}",
    )
    defects = DefectLog(entries=[*snapshot.state.defects.entries, entry], activity={"2026-11-29": 1})
    pr = snapshot.state.pr.model_copy(update={"iteration_count": snapshot.state.pr.iteration_count + 1})
    event = Event(at=NOW, kind="iteration", key=f"pr:{number}")
    new = snapshot.state.model_copy(update={"pr": pr, "defects": defects, "events": [event]})
    branch.save(snapshot, new, f"gauntlet: pr {number} {fingerprint}")


def files_at(sandbox: Sandbox, ref: str = "gauntlet-state") -> dict[str, bytes]:
    repo = sandbox.store.repo("octo", "app")
    assert repo is not None
    sha = repo.git.ref(f"refs/heads/{ref}")
    assert sha is not None
    return {e.path: repo.git.read_blob(e.sha) for e in repo.git.ls_tree(sha, recursive=True)}


def test_first_use_creates_an_orphan_branch_with_a_readme_and_only_what_changed(sandbox: Sandbox) -> None:
    save_branch(store(sandbox))

    files = files_at(sandbox)
    assert "README.md" in files and "v1/branches/main.json" in files
    assert "v1/events/2026-11.1.jsonl" in files
    assert "v1/proposals.json" not in files, "a file still at its default is not written"
    repo = sandbox.store.repo("octo", "app")
    assert repo is not None
    head = repo.git.read_commit(repo.git.ref("refs/heads/gauntlet-state") or "")
    assert list(head.parents) == []
    assert "Gauntlet-Events: v1/events/2026-11.1.jsonl" in head.message


def test_a_load_reads_the_head_and_each_needed_file_once(sandbox: Sandbox) -> None:
    save_pr(store(sandbox), 7)
    sandbox.clear_requests()

    store(sandbox).load(Scope(pr=7))

    paths = [r["path"] for r in sandbox.requests()]
    assert paths[0].endswith("/branches/gauntlet-state")
    assert len(paths) == len(set(paths)), "no file is read twice"
    assert not any("/proposals.json" in p for p in paths), "the trailer says it does not exist"
    assert not any("/git/trees" in p or "recursive" in p for p in paths), "the branch is never listed"


def test_a_save_after_someone_else_wrote_the_same_file_is_a_conflict_not_a_force_push(sandbox: Sandbox) -> None:
    save_pr(store(sandbox), 1)
    first, second = store(sandbox), store(sandbox)
    snapshot = second.load(Scope(pr=1))
    save_pr(first, 1)
    assert snapshot.state.pr is not None

    late = snapshot.state.pr.model_copy(update={"iteration_count": 99})
    with pytest.raises(StateConflict):
        second.save(snapshot, snapshot.state.model_copy(update={"pr": late}), "gauntlet: late")

    assert PRRecord.model_validate_json(files_at(sandbox)["v1/prs/1.json"]).iteration_count == 2


def test_a_pr_run_writes_only_its_record_with_one_put_its_shard_inside_on_a_moved_head(sandbox: Sandbox) -> None:
    save_pr(store(sandbox), 1)
    first, second = store(sandbox), store(sandbox)
    snapshot = second.load(Scope(pr=2))
    add_defect(first, 1, "aaa")
    assert snapshot.state.pr is not None
    sandbox.clear_requests()

    pr = snapshot.state.pr.model_copy(update={"iteration_count": 1})
    event = Event(at=NOW, kind="iteration", key="pr:2")
    second.save(snapshot, snapshot.state.model_copy(update={"pr": pr, "events": [event]}), "gauntlet: pr 2")

    calls = [f"{r['method']} {r['path'].split('/')[4]}" for r in sandbox.requests()]
    assert calls == ["PUT contents"], "one call: GitHub builds the commit on the moved branch"
    files = files_at(sandbox)
    two = PRRecord.model_validate_json(files["v1/prs/2.json"])
    assert two.iteration_count == 1 and [e.key for e in two.pending[0].events] == ["pr:2"]
    one = PRRecord.model_validate_json(files["v1/prs/1.json"])
    assert one.iteration_count == 2 and "aaa" in str(one.pending[-1].changes), "the other run's write is kept"
    assert "v1/defects.json" not in files, "a PR run never writes a shared file"
    assert len(one.pending) == 2, "the first commit of all kept its shard in the record too"
    assert not any(p.startswith("v1/shards/") for p in files)
    trailers = store(sandbox).head()
    assert trailers is not None and trailers.pending == {"v1/prs/1.json", "v1/prs/2.json"}


def test_a_branch_run_between_a_pr_runs_read_and_its_put_keeps_the_trailers_true(sandbox: Sandbox) -> None:
    save_pr(store(sandbox), 1)
    pr_run = store(sandbox)
    snapshot = pr_run.load(Scope(pr=2))
    assert snapshot.state.pr is not None
    save_branch(store(sandbox))  # writes its record and a new audit-log part: the trailers change
    pr = snapshot.state.pr.model_copy(update={"iteration_count": 1})
    event = Event(at=NOW, kind="iteration", key="pr:2")
    pr_run.save(snapshot, snapshot.state.model_copy(update={"pr": pr, "events": [event]}), "gauntlet: pr 2")
    sandbox.clear_requests()

    head = store(sandbox).head()

    # The PR run's commit copied the trailers of the head before the branch run's: a reader takes the newest
    # exact commit's (one listing), with the records pending above it.
    assert [r["path"].split("/")[4] for r in sandbox.requests()] == ["branches", "commits"]
    assert head is not None and head.events is not None and head.events[2] > 0
    repo = sandbox.store.repo("octo", "app")
    assert repo is not None
    assert head.commit == repo.git.ref("refs/heads/gauntlet-state")
    assert "v1/prs/2.json" in head.pending
    save_branch(store(sandbox))  # appends to the part the branch run wrote, not to a stale one
    events = [p for p in files_at(sandbox) if p.startswith("v1/events/")]
    assert events == ["v1/events/2026-11.1.jsonl"]
    assert files_at(sandbox)["v1/events/2026-11.1.jsonl"].count(b"branch:main") == 2


def test_the_scan_folds_every_shard_into_the_shared_files_and_deletes_them(sandbox: Sandbox) -> None:
    for number, fingerprint in ((1, "aaa"), (2, "bbb"), (3, "ccc")):
        add_defect(store(sandbox), number, fingerprint)

    branch = store(sandbox)
    snapshot = branch.load(Scope(branch="main", shards=True))
    assert {e.fingerprint for e in snapshot.state.defects.entries} == {"aaa", "bbb", "ccc"}
    assert snapshot.state.defects.activity == {"2026-11-29": 3}, "counts add up across runs"
    branch.save(snapshot, snapshot.state, "gauntlet: scheduled scan")

    files = files_at(sandbox)
    assert not any(p.startswith("v1/shards/") for p in files)
    assert len(DefectLog.model_validate_json(files["v1/defects.json"]).entries) == 3
    # Runs after the first kept their shard in their record: the scan emptied them, and nothing waits now.
    assert all(not PRRecord.model_validate_json(files[f"v1/prs/{n}.json"]).pending for n in (1, 2, 3))
    head = store(sandbox).head()
    assert head is not None and head.pending == frozenset() and head.shards == 0
    assert files["v1/events/2026-11.1.jsonl"].count(b"\n") == 3, "the runs' events reach the log"
    sandbox.clear_requests()
    again = store(sandbox).load(Scope(branch="main", shards=True))
    assert len(again.state.defects.entries) == 3
    assert not any("/v1/shards" in r["path"] for r in sandbox.requests()), "the trailer says none are waiting"


def test_events_go_to_a_new_part_past_256_kib_without_reading_the_full_one(sandbox: Sandbox) -> None:
    branch = store(sandbox)
    save_branch(branch, data={"blob": "x" * (EVENT_PART_BYTES - 200)})
    save_branch(branch, data={"more": "y" * 500})
    sandbox.clear_requests()

    save_branch(branch)

    files = files_at(sandbox)
    assert sorted(p for p in files if p.startswith("v1/events/")) == [
        "v1/events/2026-11.1.jsonl",
        "v1/events/2026-11.2.jsonl",
    ]
    assert files["v1/events/2026-11.2.jsonl"].count(b"\n") == 2
    reads = [r["path"] for r in sandbox.requests() if r["method"] == "GET"]
    assert not any(p.endswith("2026-11.1.jsonl") for p in reads), "the full part is left alone"


def test_a_hand_made_commit_without_trailers_falls_back_to_listing(sandbox: Sandbox) -> None:
    save_branch(store(sandbox))
    sandbox.commit(REPO, {"NOTES.md": "hand edit\n"}, "Edit by hand", branch="gauntlet-state")

    save_branch(store(sandbox))

    files = files_at(sandbox)
    assert files["v1/events/2026-11.1.jsonl"].count(b"\n") == 2, "appended to the existing part"
    assert "NOTES.md" in files
