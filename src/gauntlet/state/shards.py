"""``v1/shards/<run-id>.json``: what one run adds to the repository-wide files, folded in later by the scan.

Many runs add to the same files (defects, learnings, bandit, the effect index, the audit log). If each run
rewrote them, concurrent runs would collide on every commit and each collision would cost a re-read, a
re-decide and a re-write. Instead a run writes only its own files: its PR or branch record, and one shard
holding the *change* it made to the shared files. The scheduled scan reads the shards, folds them into the
shared files in run order and deletes them in the same commit (DESIGN §4, docs/scale.md).

The change is computed on the JSON of each file, so it follows new fields without code here:

- a number that changed is an increment (two runs each adding 1 add 2 when folded);
- a list of records with an identity (``id``, or ``context`` and ``rule``) is folded record by record
  (a record the run dropped is dropped);
- any other list gains the items the run added and loses the ones it removed;
- anything else is set to the run's value.

Folding is therefore order-insensitive for counts and appends, which is what concurrent runs produce.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from gauntlet.errors import InputError
from gauntlet.models import evolve
from gauntlet.state.additions import Shard
from gauntlet.state.codec import decode_state, encode_file, record_model
from gauntlet.state.models import Scope, State
from gauntlet.state.shared import MAX_INDEX_ENTRIES
from gauntlet.state.store import events_by_month
from gauntlet.vocabulary import SHARED_FILES, event_part_path

__all__ = [
    "MAX_SHARDS_FOLDED",
    "SHARDS_FOLDER",
    "Shard",
    "delta",
    "encode_shard",
    "fold",
    "fold_into",
    "fold_shared",
    "folded_view",
    "merged_shard",
    "pending_in",
    "seen_with",
    "shard_of",
    "shard_path",
]

M = TypeVar("M", bound=BaseModel)

SHARDS_FOLDER = "v1/shards"
#: Shards one scan folds (oldest first); the rest wait for the next scan, so a scan's cost stays bounded.
MAX_SHARDS_FOLDED = 500

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
#: Fields that name a record inside a list, so a changed record is folded as a change, not a second copy.
_IDENTITIES = (("id",), ("context", "rule"), ("place", "context"))


def shard_path(run: str) -> str:
    """Where the shard of ``run`` lives (one file per run: concurrent runs never write the same path)."""
    return f"{SHARDS_FOLDER}/{_UNSAFE.sub('_', run)[:120]}.json"


def shard_of(loaded: State, new: State, run: str, at: datetime) -> Shard | None:
    """The shard for what ``new`` changed in the shared files since ``loaded``; ``None`` when nothing changed."""
    changes: dict[str, Any] = {}
    for name in SHARED_FILES:
        before, after = _json(getattr(loaded, name)), _json(getattr(new, name))
        if before != after:
            changes[name] = delta(before, after)
    if not changes and not new.events:
        return None
    return Shard(run=run, at=at, changes=changes, events=list(new.events))


def seen_with(state: State, pending: list[Shard]) -> State:
    """``state`` as the runs that left ``pending`` in their record see it: the shared files with those shards
    folded in, so a run builds on what its record's earlier runs did (the audit events stay the run's own)."""
    if not pending:
        return state
    folded, _ = fold_into(state, {f"pending#{i}": encode_shard(shard) for i, shard in enumerate(pending)})
    return evolve(folded, events=state.events)


def merged_shard(stored: State, new: State, pending: list[Shard], run: str, at: datetime) -> Shard | None:
    """One shard for ``pending`` and this run together: the change from the shared files as stored to ``new``
    (which :func:`seen_with` built on ``pending``), with every event of them; ``None`` when there is none."""
    events = [event for shard in pending for event in shard.events]
    return shard_of(stored, evolve(new, events=[*events, *new.events]), run, at)


def delta(before: Any, after: Any) -> Any:
    """The change from ``before`` to ``after`` (JSON values), in the form :func:`fold` applies."""
    if before is None:  # a new key: a change from the empty value of its type, so counts still add up
        before = 0 if _number(after) else type(after)() if isinstance(after, dict | list) else None
    if isinstance(before, dict) and isinstance(after, dict):
        keys = [k for k in after if k not in before or before[k] != after[k]]
        return {"dict": {k: delta(before.get(k), after[k]) for k in keys}}
    if _number(before) and _number(after):
        return {"inc": after - before}
    if isinstance(before, list) and isinstance(after, list):
        identity = _identity([*before, *after])
        if identity is not None:
            old = {_key(item, identity): item for item in before}
            return {
                "records": identity,
                # A new record whole; a changed one as its change (counts then add up when folded).
                "changed": [
                    [_key(item, identity), {"set": item} if key not in old else delta(old[key], item)]
                    for item in after
                    if old.get(key := _key(item, identity)) != item
                ],
                "gone": sorted(old.keys() - {_key(item, identity) for item in after}),
            }
        return {"added": [i for i in after if i not in before], "removed": [i for i in before if i not in after]}
    return {"set": after}


def fold(base: Any, change: Any) -> Any:
    """Apply one :func:`delta` to ``base`` (the current JSON value, which other runs may have changed)."""
    if "set" in change:
        return change["set"]
    if "inc" in change:
        return (base if _number(base) else 0) + change["inc"]
    if "dict" in change:
        merged = dict(base) if isinstance(base, dict) else {}
        for key, sub in change["dict"].items():
            merged[key] = fold(merged.get(key), sub)
        return merged
    items = list(base) if isinstance(base, list) else []
    if "records" in change:
        identity = tuple(change["records"])
        gone = set(change.get("gone", []))
        items = [item for item in items if _key(item, identity) not in gone]
        where = {_key(item, identity): n for n, item in enumerate(items)}
        for key, sub in change["changed"]:
            if key in where:
                items[where[key]] = fold(items[where[key]], sub)
            elif "set" in sub:  # a change to a record dropped since (trimmed) has nothing left to apply to
                where[key] = len(items)
                items.append(sub["set"])
        return items
    removed = change.get("removed", [])
    kept = [i for i in items if i not in removed]
    return kept + [i for i in change.get("added", []) if i not in kept]


def fold_into(state: State, shards: Mapping[str, bytes]) -> tuple[State, list[str]]:
    """``state`` with ``shards`` (path -> bytes) folded in, oldest run first, and the paths folded.

    A shard that does not parse is left where it is (reported by path in the error), never half-applied.

    :raises InputError: a shard is not valid, or folding it breaks a file's schema.
    """
    parsed = _parsed(shards)
    files: dict[str, Any] = {name: _json(getattr(state, name)) for name in SHARED_FILES}
    events = list(state.events)
    for _, shard in parsed[:MAX_SHARDS_FOLDED]:
        for name, change in shard.changes.items():
            if name in files:
                files[name] = fold(files[name], change)
        events.extend(shard.events)
    # The index is the one shared file that only grows; the scan bounds it here, keeping the newest keys.
    entries = files["index"].get("entries", {})
    files["index"]["entries"] = dict(list(entries.items())[-MAX_INDEX_ENTRIES:])
    try:
        folded = State.model_validate({**state.model_dump(), **files, "events": events})
    except ValidationError as exc:
        raise InputError(f"folding state shards breaks a file: {exc.errors()[0]['msg']}") from exc
    return folded, [path for path, _ in parsed[:MAX_SHARDS_FOLDED]]


def fold_shared(name: str, base: M, shards: Mapping[str, bytes]) -> M:
    """One shared file (a key of ``SHARED_FILES``) with ``shards`` (path -> bytes) folded in, oldest run first.

    :raises InputError: a shard is not valid, or folding it breaks the file's schema.
    """
    value = _json(base)
    for _, shard in _parsed(shards)[:MAX_SHARDS_FOLDED]:
        if name in shard.changes:
            value = fold(value, shard.changes[name])
    try:
        return type(base).model_validate(value)
    except ValidationError as exc:
        raise InputError(f"folding state shards breaks {name}: {exc.errors()[0]['msg']}") from exc


def pending_in(records: Mapping[str, bytes]) -> dict[str, bytes]:
    """The pending shards PR and branch records hold (``pending``), keyed ``<record path>#<index>``, as bytes.

    A record that does not parse holds none here (its own next run reports it).
    """
    found: dict[str, bytes] = {}
    for path, data in records.items():
        model = record_model(path)
        if model is None:
            continue
        try:
            record = model.model_validate_json(data)
        except ValidationError:
            continue
        found.update({f"{path}#{i}": encode_shard(shard) for i, shard in enumerate(record.pending)})
    return found


def folded_view(files: Mapping[str, bytes]) -> dict[str, bytes]:
    """The whole state branch (path -> bytes) as it reads once every shard is folded: what the scan would write.

    For readers of the branch as a whole (``gauntlet status``, tests, a dashboard): the shared files with
    the shards (files, and those PR records hold) folded in, the shards' events appended to the newest part of
    their month, no shards left.

    :raises InputError: a stored file or shard is not valid.
    """
    shards = {p: d for p, d in files.items() if p.startswith(f"{SHARDS_FOLDER}/")}
    held = pending_in(files)
    if not shards and not held:
        return dict(files)
    state = decode_state(Scope(), files)
    folded, _ = fold_into(state, {**shards, **held})
    view = {p: d for p, d in files.items() if p not in shards}
    for path in {key.rsplit("#", 1)[0] for key in held}:
        model = record_model(path)
        assert model is not None  # pending_in holds only records' shards
        view[path] = encode_file(evolve(model.model_validate_json(files[path]), pending=[]))
    for name, path in SHARED_FILES.items():
        if path in files or getattr(folded, name) != getattr(state, name):
            view[path] = encode_file(getattr(folded, name))
    for month, lines in events_by_month(folded.events).items():
        numbers = [int(p.rsplit(".", 2)[1]) for p in files if p.startswith(f"v1/events/{month}.")]
        path = event_part_path(month, max(numbers, default=1))
        view[path] = view.get(path, b"") + lines
    return view


def encode_shard(shard: Shard) -> bytes:
    """The shard's bytes (the same deterministic JSON as every state file)."""
    return encode_file(shard)


def _parsed(shards: Mapping[str, bytes]) -> list[tuple[str, Shard]]:
    """The shards parsed, oldest run first."""
    parsed: list[tuple[str, Shard]] = []
    for path, data in shards.items():
        try:
            parsed.append((path, Shard.model_validate_json(data)))
        except ValidationError as exc:
            raise InputError(f"state shard {path} is invalid: {exc.errors()[0]['msg']}") from exc
    return sorted(parsed, key=lambda item: (item[1].at, item[0]))


def _json(model: BaseModel) -> Any:
    return json.loads(model.model_dump_json())


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _identity(items: list[Any]) -> tuple[str, ...] | None:
    if not items or not all(isinstance(i, dict) for i in items):
        return None
    return next((fields for fields in _IDENTITIES if all(all(f in i for f in fields) for i in items)), None)


def _key(item: Any, identity: tuple[str, ...]) -> str:
    return json.dumps([item.get(f) for f in identity], sort_keys=True)
