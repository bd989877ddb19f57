"""The local state folder: layout, compare-and-swap and the event log's parts."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from gauntlet.errors import StateConflict
from gauntlet.state.events import EVENT_PART_BYTES, Event
from gauntlet.state.local import LocalStore
from gauntlet.state.models import Scope
from gauntlet.vocabulary import branch_slug

NOW = datetime(2026, 11, 2, tzinfo=UTC)


def test_branch_slug_is_the_contract() -> None:
    assert branch_slug("feature/x y") == "feature--x%20y"
    assert branch_slug("main") == "main"


def test_a_concurrent_change_is_a_conflict(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    first = store.load(Scope(pr=1))
    second = store.load(Scope(pr=1))
    assert first.state.pr is not None
    store.save(first, first.state.model_copy(update={"pr": first.state.pr.model_copy(update={"comment_id": 5})}), "a")
    assert second.state.pr is not None
    with pytest.raises(StateConflict):
        store.save(
            second, second.state.model_copy(update={"pr": second.state.pr.model_copy(update={"closed": True})}), "b"
        )
    assert store.load(Scope(pr=1)).state.pr == first.state.pr.model_copy(update={"comment_id": 5})


def test_events_roll_over_to_a_new_part(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    big = Event(at=NOW, kind="x", key="k", data={"pad": "p" * 1000})
    for _ in range(EVENT_PART_BYTES // 1000 + 5):
        snapshot = store.load(Scope())
        store.save(snapshot, snapshot.state.model_copy(update={"events": [big]}), "e")
    parts = sorted(p.name for p in (tmp_path / "v1" / "events").iterdir())
    assert parts == ["2026-11.1.jsonl", "2026-11.2.jsonl"]
    assert (tmp_path / "v1" / "events" / "2026-11.1.jsonl").stat().st_size <= EVENT_PART_BYTES
