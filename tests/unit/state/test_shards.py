"""Shards: what concurrent runs add to the shared files, folded without losing any run's part."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from gauntlet.errors import InputError
from gauntlet.state.events import Event
from gauntlet.state.models import State
from gauntlet.state.shards import encode_shard, fold_into, fold_shared, folded_view, shard_of, shard_path
from gauntlet.state.shared import (
    MAX_INDEX_ENTRIES,
    Arm,
    BanditTable,
    DefectEntry,
    DefectLog,
    EffectIndex,
    LearnedRule,
    LearningBook,
    Shown,
)

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
RULE = LearnedRule(id="R-1", text="check None", kind="review", first_seen=NOW, last_seen=NOW)
SHOWN = Shown(place="pr:1", head_sha="a" * 40, context="test_failure", rules=["R-1"])


def base() -> State:
    return State(
        learnings=LearningBook(rules=[RULE]),
        bandit=BanditTable(arms=[Arm(context="test_failure", rule="R-1")], pending=[SHOWN]),
    )


def run(state: State, number: int, minutes: int) -> State:
    """What one PR run does to the shared files: reinforce, reward, count a defect, index an issue."""
    at = NOW + timedelta(minutes=minutes)
    rule = state.learnings.rules[0].model_copy(update={"reinforcements": 2, "last_seen": at})
    arm = state.bandit.arms[0].model_copy(update={"alpha": 2.0})
    entry = DefectEntry(
        at=at,
        component="calc",
        defect_type="test_failure",
        priority="P1",
        fingerprint=f"f{number}",
        place=f"pr:{number}",
    )
    return state.model_copy(
        update={
            "learnings": LearningBook(rules=[rule], taught=[f"pr:{number}:f{number}"]),
            "bandit": BanditTable(arms=[arm], pending=[]),
            "defects": DefectLog(entries=[entry], activity={"2026-11-29": 1}),
            "index": EffectIndex(entries={f"risk:f{number}": 100 + number}),
            "events": [Event(at=at, kind="iteration", key=f"pr:{number}")],
        }
    )


def shards_of_two_runs() -> dict[str, bytes]:
    loaded = base()
    first, second = shard_of(loaded, run(loaded, 1, 1), "pr-1", NOW), shard_of(loaded, run(loaded, 2, 2), "pr-2", NOW)
    assert first is not None and second is not None
    return {shard_path("pr-2"): encode_shard(second), shard_path("pr-1"): encode_shard(first)}


def test_two_runs_from_the_same_state_both_count_when_folded() -> None:
    folded, paths = fold_into(base(), shards_of_two_runs())

    assert folded.learnings.rules[0].reinforcements == 3, "each run's reinforcement counts"
    assert folded.bandit.arms[0].alpha == 3.0
    assert folded.bandit.pending == [], "a rewarded record is dropped"
    assert sorted(e.fingerprint for e in folded.defects.entries) == ["f1", "f2"]
    assert folded.defects.activity == {"2026-11-29": 2}
    assert folded.index.entries == {"risk:f1": 101, "risk:f2": 102}
    assert sorted(folded.learnings.taught) == ["pr:1:f1", "pr:2:f2"]
    assert [e.key for e in folded.events] == ["pr:1", "pr:2"], "folded in run order"
    assert paths == [shard_path("pr-1"), shard_path("pr-2")]


def test_a_run_that_changed_nothing_shared_leaves_no_shard() -> None:
    assert shard_of(base(), base(), "pr-3", NOW) is None


def test_one_shared_file_and_the_whole_view_agree_with_the_fold() -> None:
    shards = shards_of_two_runs()
    assert fold_shared("defects", DefectLog(), shards).activity == {"2026-11-29": 2}
    view = folded_view({**shards, "v1/learnings.json": b'{"rules": []}'})
    assert not any(path.startswith("v1/shards/") for path in view)
    assert b"pr:2" in view["v1/events/2026-11.1.jsonl"]
    learned = LearningBook.model_validate_json(view["v1/learnings.json"])
    assert learned.taught == ["pr:1:f1", "pr:2:f2"]
    assert learned.rules == [], "a change to a rule dropped since has nothing to apply to"


def test_a_broken_shard_is_a_clear_error_not_a_traceback() -> None:
    with pytest.raises(InputError, match=r"v1/shards/bad\.json"):
        fold_into(base(), {"v1/shards/bad.json": b"{not json"})


def test_the_scan_keeps_the_index_within_its_bound_newest_first() -> None:
    crowded = State(index=EffectIndex(entries={f"risk:{n:06d}": n for n in range(MAX_INDEX_ENTRIES + 10)}))

    folded, _ = fold_into(crowded, {})

    assert len(folded.index.entries) == MAX_INDEX_ENTRIES
    assert "risk:000009" not in folded.index.entries, "the oldest keys go"
    assert f"risk:{MAX_INDEX_ENTRIES + 9:06d}" in folded.index.entries
