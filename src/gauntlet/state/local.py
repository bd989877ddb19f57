"""State in a local folder with the same layout as the state branch (``--state-dir``).

Compare-and-swap under an advisory file lock: a save re-reads the files the run
loaded and refuses with :class:`StateConflict` when another process changed one.
"""

from __future__ import annotations

import fcntl
import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from gauntlet.errors import InputError, StateConflict
from gauntlet.state.codec import README, decode_state, needed_paths
from gauntlet.state.models import Scope, State
from gauntlet.state.store import Snapshot, changed_files, event_part_name, events_by_month

__all__ = ["LocalStore"]

_PART = re.compile(r"^(\d{4}-\d{2})\.(\d+)\.jsonl$")


class LocalStore:
    """A :class:`~gauntlet.state.store.StateStore` on a folder."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def load(self, scope: Scope) -> Snapshot:
        """Read the files ``scope`` needs from the folder."""
        stored = {path: self._read(path) for path in needed_paths(scope)}
        return Snapshot(scope=scope, state=decode_state(scope, stored), stored=stored)

    def save(self, snapshot: Snapshot, new: State, message: str) -> None:
        """Write the changed files and append the new audit events, atomically per file."""
        del message  # a folder has no commit to describe
        changes = changed_files(snapshot, new)
        if not changes and not new.events:
            return
        with self._locked():
            for path, data in snapshot.stored.items():
                if self._read(path) != data:
                    raise StateConflict(f"{path} changed since it was read")
            if not (self.root / "README.md").exists():
                self._write("README.md", README.encode())
            for path, data in changes.items():
                self._write(path, data)
            for month, lines in events_by_month(new.events).items():
                self._append_events(month, lines)

    def _read(self, path: str) -> bytes | None:
        try:
            return (self.root / path).read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise InputError(f"cannot read state file {self.root / path}: {exc.strerror}") from exc

    def _write(self, path: str, data: bytes) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, target)

    def _append_events(self, month: str, lines: bytes) -> None:
        folder = self.root / "v1" / "events"
        parts = [int(m.group(2)) for p in folder.glob(f"{month}.*.jsonl") if (m := _PART.match(p.name))]
        newest = max(parts, default=0)
        size = (folder / f"{month}.{newest}.jsonl").stat().st_size if newest else 0
        target = self.root / event_part_name(month, newest, size, len(lines))
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("ab") as handle:
            handle.write(lines)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True)
        with (self.root / ".lock").open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
