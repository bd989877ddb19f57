"""Stored bytes <-> state: deterministic JSON, defaults for absent files, a clear error for a bad one."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from gauntlet.errors import InputError
from gauntlet.models import evolve
from gauntlet.state.branch import BranchRecord
from gauntlet.state.codec import decode_state, encode_events, encode_file, needed_paths
from gauntlet.state.events import Event
from gauntlet.state.models import Scope
from gauntlet.state.pr import IterationRecord, PRRecord

NOW = datetime(2026, 11, 2, 9, tzinfo=UTC)


def test_a_run_reads_the_shared_files_and_only_its_own_pr_or_branch() -> None:
    shared = needed_paths(Scope())
    assert "v1/index.json" in shared and "v1/learnings.json" in shared
    assert not any(p.startswith(("v1/prs/", "v1/branches/")) for p in shared)
    assert needed_paths(Scope(pr=4)) == [*shared, "v1/prs/4.json"]
    assert needed_paths(Scope(branch="release/2.x")) == [*shared, "v1/branches/release--2.x.json"]


def test_absent_files_decode_as_empty_records_of_the_scope() -> None:
    state = decode_state(Scope(pr=4), {})
    assert state.pr == PRRecord(number=4)
    assert state.branch is None
    state = decode_state(Scope(branch="main"), {"v1/branches/main.json": None})
    assert state.branch == BranchRecord(name="main")


def test_what_is_encoded_decodes_to_the_same_state_and_the_same_bytes() -> None:
    iteration = IterationRecord(number=1, head_sha="a" * 40, action="fix_criticals", at=NOW)
    record = evolve(PRRecord(number=4), iteration_count=1, iterations=[iteration], comment_id=99)
    blobs = {"v1/prs/4.json": encode_file(record)}
    state = decode_state(Scope(pr=4), blobs)
    assert state.pr == record
    assert encode_file(state.pr) == blobs["v1/prs/4.json"]
    assert blobs["v1/prs/4.json"].endswith(b"}\n")


def test_a_bad_file_is_an_input_error_that_names_it() -> None:
    with pytest.raises(InputError, match=r"v1/prs/4\.json"):
        decode_state(Scope(pr=4), {"v1/prs/4.json": b'{"number": "four"}'})
    with pytest.raises(InputError, match=r"v1/index\.json"):
        decode_state(Scope(), {"v1/index.json": b"not json"})


def test_events_are_one_json_line_each_in_order() -> None:
    events = [Event(at=NOW, kind="effect", key=f"k{i}", data={"i": i}) for i in range(3)]
    lines = encode_events(events).decode().splitlines()
    assert [Event.model_validate_json(line) for line in lines] == events
