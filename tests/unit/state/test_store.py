"""What every store shares: only changed files are written, audit lines go by month into bounded parts."""

from __future__ import annotations

from datetime import UTC, datetime

from gauntlet.models import evolve
from gauntlet.state.codec import decode_state, encode_file
from gauntlet.state.events import EVENT_PART_BYTES, Event
from gauntlet.state.models import Scope
from gauntlet.state.store import Snapshot, changed_files, event_part_name, events_by_month


def test_only_files_whose_bytes_changed_are_written() -> None:
    scope = Scope(pr=3)
    loaded = decode_state(scope, {})
    stored = {path: encode_file(model) for path, model in loaded.files().items()}
    snapshot = Snapshot(scope=scope, state=loaded, stored=dict(stored))
    assert changed_files(snapshot, loaded) == {}
    assert loaded.pr is not None
    new = evolve(loaded, pr=evolve(loaded.pr, comment_id=12))
    assert list(changed_files(snapshot, new)) == ["v1/prs/3.json"]
    # A file never stored before is written even when it holds only defaults.
    fresh = Snapshot(scope=scope, state=loaded, stored={})
    assert set(changed_files(fresh, loaded)) == set(stored)
    # A repository-wide file the scope did not read is never written, whatever the state holds for it.
    narrow = Scope(branch="main", shared=frozenset({"defects"}))
    unread = Snapshot(scope=narrow, state=decode_state(narrow, {}), stored={})
    assert set(changed_files(unread, decode_state(narrow, {}))) == {"v1/defects.json", "v1/branches/main.json"}


def test_audit_lines_are_grouped_by_month_in_order() -> None:
    events = [
        Event(at=datetime(2026, 10, 31, 23, tzinfo=UTC), kind="decision", key="a"),
        Event(at=datetime(2026, 11, 1, 0, tzinfo=UTC), kind="decision", key="b"),
        Event(at=datetime(2026, 10, 31, 23, 30, tzinfo=UTC), kind="effect", key="c"),
    ]
    grouped = events_by_month(events)
    assert list(grouped) == ["2026-10", "2026-11"]
    assert [Event.model_validate_json(line).key for line in grouped["2026-10"].splitlines()] == ["a", "c"]


def test_a_new_part_starts_when_the_newest_would_pass_its_bound() -> None:
    assert event_part_name("2026-11", 0, 0, 100) == "v1/events/2026-11.1.jsonl"
    assert event_part_name("2026-11", 2, EVENT_PART_BYTES - 100, 100) == "v1/events/2026-11.2.jsonl"
    assert event_part_name("2026-11", 2, EVENT_PART_BYTES - 100, 101) == "v1/events/2026-11.3.jsonl"
    # One oversized batch still goes into an empty newest part rather than skipping it.
    assert event_part_name("2026-11", 2, 0, EVENT_PART_BYTES * 2) == "v1/events/2026-11.2.jsonl"
