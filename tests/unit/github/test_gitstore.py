"""The state branch through the Git Data API on the sandbox: orphan creation, fast-forward only, cheap reads."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from gauntlet.errors import StateConflict
from gauntlet.github.client import GitHubClient
from gauntlet.github.gitstore import BranchStore
from gauntlet.sandbox import Sandbox
from gauntlet.state.events import EVENT_PART_BYTES, Event
from gauntlet.state.models import Scope
from gauntlet.state.pr import PRRecord

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


def files_at(sandbox: Sandbox, ref: str = "gauntlet-state") -> dict[str, bytes]:
    repo = sandbox.store.repo("octo", "app")
    assert repo is not None
    sha = repo.git.ref(f"refs/heads/{ref}")
    assert sha is not None
    return {e.path: repo.git.read_blob(e.sha) for e in repo.git.ls_tree(sha, recursive=True)}


def test_first_use_creates_an_orphan_branch_with_a_readme_and_only_what_changed(sandbox: Sandbox) -> None:
    save_pr(store(sandbox), 7)

    files = files_at(sandbox)
    assert "README.md" in files and "v1/prs/7.json" in files
    assert PRRecord.model_validate_json(files["v1/prs/7.json"]).iteration_count == 1
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


def test_a_save_after_someone_else_moved_the_branch_is_a_conflict_not_a_force_push(sandbox: Sandbox) -> None:
    save_pr(store(sandbox), 1)
    first, second = store(sandbox), store(sandbox)
    snapshot = second.load(Scope(pr=2))
    save_pr(first, 1)
    assert snapshot.state.pr is not None

    event = Event(at=NOW, kind="late", key="pr:2")
    with pytest.raises(StateConflict):
        second.save(snapshot, snapshot.state.model_copy(update={"events": [event]}), "gauntlet: late")

    assert PRRecord.model_validate_json(files_at(sandbox)["v1/prs/1.json"]).iteration_count == 2


def test_events_go_to_a_new_part_past_256_kib_without_reading_the_full_one(sandbox: Sandbox) -> None:
    branch = store(sandbox)
    save_pr(branch, 1, data={"blob": "x" * (EVENT_PART_BYTES - 200)})
    save_pr(branch, 1, data={"more": "y" * 500})
    sandbox.clear_requests()

    save_pr(branch, 1)

    files = files_at(sandbox)
    assert sorted(p for p in files if p.startswith("v1/events/")) == [
        "v1/events/2026-11.1.jsonl",
        "v1/events/2026-11.2.jsonl",
    ]
    assert files["v1/events/2026-11.2.jsonl"].count(b"\n") == 2
    reads = [r["path"] for r in sandbox.requests() if r["method"] == "GET"]
    assert not any(p.endswith("2026-11.1.jsonl") for p in reads), "the full part is left alone"


def test_a_hand_made_commit_without_trailers_falls_back_to_listing(sandbox: Sandbox) -> None:
    save_pr(store(sandbox), 1)
    sandbox.commit(REPO, {"NOTES.md": "hand edit\n"}, "Edit by hand", branch="gauntlet-state")

    save_pr(store(sandbox), 1)

    files = files_at(sandbox)
    assert files["v1/events/2026-11.1.jsonl"].count(b"\n") == 2, "appended to the existing part"
    assert PRRecord.model_validate_json(files["v1/prs/1.json"]).iteration_count == 2
    assert "NOTES.md" in files
