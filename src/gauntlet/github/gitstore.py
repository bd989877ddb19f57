"""State on the orphan branch ``gauntlet-state`` through the Git Data API (DESIGN §2, §4).

Theory of operation:

- **Load** reads the branch head (one call: commit SHA, tree SHA and message),
  then each file the run needs through the contents API pinned to that commit
  (one call per file), so the snapshot is consistent and its cost does not depend
  on how many PRs the branch holds. A run that starts with its GraphQL query
  (``github/start.py``) has the head and its records from it, read at the head
  commit too (:meth:`BranchStore.preload`): none of those calls.
- **Save** writes the changed files inline in one ``POST git/trees`` on top of the
  head's tree, one ``POST git/commits`` with the head as parent and one
  ``PATCH git/refs`` without ``force``. Nothing is ever force-pushed. (The calls
  that write, and the compare after a refused ref update: ``github/gitdata.py``.)
- **A PR run, or a run on the default branch, writes one file.** What it added to
  the shared files (its shard, :mod:`gauntlet.state.shards`) travels in its own
  record (``PRRecord.pending``, ``BranchRecord.pending``), written with one
  ``PUT contents/v1/prs/<n>.json`` (or ``v1/branches/<slug>.json``) carrying the
  blob sha it read: one call, one commit, and runs of different PRs touch different
  files. A branch record holds one shard, merged: a branch run reads the shared
  files with its record's shard folded in (its earlier runs' revert and issue
  numbers stay known before the scan), so its change from the files as stored
  covers them all. GitHub builds the commit on the branch as it is, so a moved
  branch is no conflict; a 409 naming the file (another run of the same PR or
  branch wrote it) or a 422 (it was created meanwhile) is
  :class:`~gauntlet.errors.StateConflict`, and a 409 naming the branch (two
  writes at the same instant, which GitHub refuses) is sent again.
  The commit's ``Gauntlet-Pending:`` trailer lists the records with pending
  shards, and the scan (``Scope.shards``) reads those, folds their shards in and
  writes them back emptied in the commit that writes the shared files. A run whose
  record is full (:data:`MAX_PENDING`, :data:`MAX_PENDING_BYTES`), or a command,
  writes with the Git Data API as before: its record, and its shard as
  ``v1/shards/<run-id>.json``; the first commit of all, which creates the branch,
  keeps the shard in the record.
- **Conflicts.** GitHub answers 422 when the ref moved. One ``GET compare`` says
  what the other commits touched: when none of it is a file this run writes whole
  (a PR run's record, say), the same files are committed again on the new head
  (4 calls, nothing re-read or re-decided); otherwise it is
  :class:`~gauntlet.errors.StateConflict`, and the pipeline re-reads, re-decides
  and retries.
- **Trailers.** Every commit Gauntlet writes ends with lines that spare the
  next run calls: ``Gauntlet-Events:`` names the newest audit-log part and its
  size (appending reads only that part, never a listing), and ``Gauntlet-Shared:``
  lists which repository-wide files exist (an absent file is its default, so
  it is not fetched), ``Gauntlet-Shards:`` how many shards wait to be folded
  (the scan lists the folder only when some do), ``Gauntlet-Pending:`` the PR and
  branch records holding pending shards, and ``Gauntlet-Blobs:`` the files' blobs
  (below). A contents ``PUT``'s commit copies the trailers of the head it read and
  names it in ``Gauntlet-Base:``; when GitHub put other commits in between (the
  commit's parent is not its base), the reader lists the recent commits (one call)
  and takes the trailers of the newest commit that is exact, with the pending
  records and the written blobs (``Gauntlet-Wrote:``) of every commit above it. A commit without trailers
  (written by hand) makes the next run fall back to listing and reading everything it needs.
- A repository-wide file that still holds its default is not written: absent
  means default, which keeps the first runs cheap.
- **Reads by blob.** Each commit's ``Gauntlet-Blobs:`` trailer names the blob of every
  shared file and branch record known at it (or that it is absent), and a PR run,
  branch run or command keeps what it read of them in its record (``reads``, under
  the blob): a file whose blob is the one remembered costs no request at all, and
  any other is read once at the head, its blob named in the run's own commit. (A
  conditional request is no substitute: GitHub binds an ``ETag`` to the token that
  read it, and each Actions job has a new one.) What a run keeps of another run's
  record leaves that record's own ``reads`` out. The record is read first
  (:meth:`BranchStore.preload`, before the run reads GitHub's data, some of it
  conditionally), and the run's answers are written back into it.
"""

from __future__ import annotations

import base64
import random
import re
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from gauntlet.engine.results import known_numbers
from gauntlet.errors import StateConflict
from gauntlet.github.client import GitHubClient, NotFound
from gauntlet.github.gitdata import REBASES, commit_files, moved_head, put_file
from gauntlet.github.start import Start
from gauntlet.github.trailers import WALK, Head, blob_sha, commit_message, folded, parse_head
from gauntlet.models import evolve
from gauntlet.state.additions import Shard
from gauntlet.state.branch import BranchRecord, same_commit
from gauntlet.state.codec import README, decode_state, encode_file, needed_paths, record_model
from gauntlet.state.models import Scope, State
from gauntlet.state.pr import PRRecord, Written
from gauntlet.state.shards import (
    MAX_SHARDS_FOLDED,
    SHARDS_FOLDER,
    encode_shard,
    fold_into,
    merged_shard,
    seen_with,
    shard_of,
    shard_path,
)
from gauntlet.state.store import Snapshot, changed_files, event_part_name, events_by_month
from gauntlet.vocabulary import SHARED_FILES, branch_path, event_part_path, pr_path

__all__ = ["DEFAULT_STATE_BRANCH", "BranchStore", "Head"]

DEFAULT_STATE_BRANCH = "gauntlet-state"

#: Pending shards one PR record holds at most; a run past it writes its shard as a file (Git Data API).
MAX_PENDING = 20
#: The bytes of the one pending shard a branch record holds at most; a run past it writes it as a file instead.
MAX_PENDING_BYTES = 16 * 1024
#: PR records the ``Gauntlet-Pending:`` trailer lists at most; past it, runs write shard files instead.
MAX_PENDING_LISTED = 500
_PART = re.compile(r"^(\d{4}-\d{2})\.(\d+)\.jsonl$")


class BranchStore:
    """A :class:`~gauntlet.state.store.StateStore` on a branch of the repository.

    :param client: the GitHub client.
    :param repository: ``owner/name``.
    :param branch: the state branch (``state_branch`` input).
    """

    def __init__(
        self,
        client: GitHubClient,
        repository: str,
        branch: str = DEFAULT_STATE_BRANCH,
        *,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.client = client
        self.sleep = sleep
        self.repository = repository
        self.api = f"/repos/{repository}"
        self.branch = branch
        self._heads: dict[str, Head] = {}
        self._index: dict[str, int] = {}
        self._pr: PRRecord | None = None
        self._served: set[str] | None = None
        self._branch: BranchRecord | None = None
        #: The head and the run's own record :meth:`preload` read (its path, its bytes), for the first :meth:`load`.
        self._preloaded: tuple[Head | None, str, bytes | None] | None = None
        #: The files the run's start query read, and the commit it read them at.
        self._started: tuple[str, dict[str, bytes | None]] = ("", {})

    # reading ------------------------------------------------------------------------------------------------

    def head(self) -> Head | None:
        """The branch head, or ``None`` when the branch does not exist yet (one call)."""
        try:
            branch = self.client.request("GET", f"{self.api}/branches/{self.branch}")
        except NotFound:
            return None
        return self._settled(parse_head(branch))

    def _settled(self, head: Head) -> Head:
        """``head`` with the trailers that hold at it (free when they are its own)."""
        if head.exact:
            return head
        # GitHub built this PR run's commit on a later head than the one it copied the trailers of: the
        # trailers of the newest exact commit hold, with what the commits above it left pending (one call).
        listed = self.client.request("GET", f"{self.api}/commits", params={"sha": head.commit, "per_page": WALK})
        heads = [parse_head({"commit": item}) for item in listed if isinstance(item, dict)]
        walked = folded(heads)
        if walked is not None:
            return walked
        pending = frozenset().union(*(found.pending for found in heads))
        return replace(head, events=None, shared=None, shards=None, base=None, pending=pending, blobs=None, wrote={})

    def read(self, path: str, commit: str) -> bytes | None:
        """One file at ``commit`` (``None`` when absent): the contents API, or the blob for files over 1 MB; free
        for a file the run's start query read there (:meth:`preload`)."""
        if commit == self._started[0] and path in self._started[1]:
            return self._started[1][path]
        try:
            found = self.client.request("GET", f"{self.api}/contents/{path}", params={"ref": commit})
        except NotFound:
            return None
        if not isinstance(found, dict) or found.get("type") != "file":
            return None
        if found.get("encoding") == "base64" and (found.get("content") or not found.get("size")):
            return base64.b64decode(found.get("content") or "")
        blob = self.client.request("GET", f"{self.api}/git/blobs/{found['sha']}")
        return base64.b64decode(blob.get("content") or "")

    def preload(self, record: str, start: Start | None = None) -> None:
        """Read the branch head and the run's own ``record`` now, before the run reads GitHub (2 calls, or none
        when ``start``, the run's start query, read them: ``github/start.py``).

        The record's remembered answers (``PRRecord.reads``) make the run's conditional requests possible;
        the first :meth:`load` whose own record it is uses what was read here instead of reading it again.
        """
        if start is not None and start.head is not None:
            head: Head | None = self._settled(start.head)
            self._started = (start.head.commit, dict(start.files))
        else:
            head = self.head() if start is None else None
        data = self.read(record, head.commit) if head is not None else None
        self._preloaded = (head, record, data)
        self._remember_reads(record, data)

    def _remember_reads(self, path: str, record: bytes | None) -> None:
        """Give the client the answers a run's own record remembers (a record it cannot parse remembers none)."""
        model = record_model(path)
        if record is None or model is None:
            return
        try:
            reads = model.model_validate_json(record).reads
        except ValueError:
            return  # decode_state reports the broken record when the run loads it
        self.client.cache.entries.update(reads)

    def _read_other(self, path: str, head: Head) -> bytes | None:
        """A file other runs write, for a run whose record remembers it: no request when the head's trailers name
        the blob it is remembered at (or name it absent), else one read at the head, remembered for next time."""
        version = (head.blobs or {}).get(path)
        if version == _ABSENT:
            return None
        kept = self.client.cache.recall(_BLOB_KEY + path, version) if version is not None else None
        if isinstance(kept, str):
            return kept.encode()
        data = self._read_at_head(path, head)
        if data is not None:
            self.client.cache.remember(_BLOB_KEY + path, self._learned[path], _kept_text(path, data))
        return data

    def _read_at_head(self, path: str, head: Head) -> bytes | None:
        """One file at ``head``; its blob (or that it is absent) is learned for this run's commit's trailers."""
        data = self.read(path, head.commit)
        if _versioned(path):
            self._learned[path] = blob_sha(data) if data is not None else _ABSENT
        return data

    def load(self, scope: Scope) -> Snapshot:
        """Read the files ``scope`` needs at the branch head (absent files are their defaults)."""
        preloaded, self._preloaded = self._preloaded, None
        own = _own_record(scope)
        if preloaded is not None and preloaded[1] == own:
            head, stored = preloaded[0], {preloaded[1]: preloaded[2]}
        else:
            head, stored = self.head(), {}
        remembers = own is not None  # a PR run's, a branch run's or a command's record remembers what it read
        self._learned: dict[str, str] = {}
        if own is not None and own not in stored and head is not None:
            stored[own] = self.read(own, head.commit)
            self._remember_reads(own, stored[own])
        for path in needed_paths(scope):
            if path in stored:
                continue
            skip = head is None or (head.shared is not None and path in _SHARED and path not in head.shared)
            # A PR run decides nothing on the effect index (its own effects are in its record): its handlers find
            # a shared effect's earlier result by listing and marker instead of reading thousands of keys.
            skip = skip or (_is_sharded(scope) and path == SHARED_FILES["index"])
            if skip or head is None:
                stored[path] = None
            else:
                stored[path] = self._read_other(path, head) if remembers else self._read_at_head(path, head)
        state = decode_state(scope, stored)
        if scope.branch_run and state.branch is not None:
            state = seen_with(state, state.branch.pending)  # what its earlier runs added, not yet folded
        # Only a record that exists says what its earlier runs wrote (a PR's first run may follow one that died).
        self._pr = state.pr if state.pr is not None and own is not None and stored.get(own) is not None else None
        # A branch run: the head commits its record holds runs of (a check run may exist only on those).
        self._branch = state.branch if scope.pr is None and not scope.shards else None
        self._served = {run.head_sha for run in self._branch.runs} if self._branch is not None else None
        folded: list[str] = []
        rewritten: dict[str, bytes] = {}
        self._checked: frozenset[str] = frozenset()
        if scope.shards:  # the scan: fold what runs left, and bound the index, even with nothing to fold
            files = self._shards(head) if head is not None and head.shards != 0 else {}
            records = self._pending_records(head, stored) if head is not None else {}
            pending = {
                f"{path}#{i}": encode_shard(shard) for path, r in records.items() for i, shard in enumerate(r.pending)
            }
            state, folded = fold_into(state, {**files, **pending})
            rewritten = _emptied(records, set(folded))
            mine = branch_path(scope.branch) if scope.branch is not None else None
            if mine in rewritten and state.branch is not None:  # the scan's own record: it writes it anyway
                emptied = BranchRecord.model_validate_json(rewritten.pop(mine))
                state = evolve(state, branch=evolve(state.branch, pending=emptied.pending))
            folded = [path for path in folded if path in files]
            self._checked = frozenset(records)
        self._index = known_numbers(state)
        if state.pr is not None and state.pr.comment_id is not None:  # records written before PR-scoped keys
            self._index.setdefault(f"pr-comment:{state.pr.number}", state.pr.comment_id)
        if head is not None:
            self._heads[head.commit] = head
        version = head.commit if head else None
        return Snapshot(
            scope=scope, state=state, stored=stored, version=version, folded=tuple(folded), rewritten=rewritten
        )

    def _shards(self, head: Head) -> dict[str, bytes]:
        """Every shard at ``head`` (one listing, then one read per shard)."""
        try:
            listing = self.client.request("GET", f"{self.api}/contents/{SHARDS_FOLDER}", params={"ref": head.commit})
        except NotFound:
            return {}
        found: dict[str, bytes] = {}
        for item in (listing if isinstance(listing, list) else [])[:MAX_SHARDS_FOLDED]:
            path = str(item.get("path", ""))
            if item.get("type") == "file" and path.endswith(".json"):
                data = self.read(path, head.commit)
                if data is not None:
                    found[path] = data
        return found

    def _pending_records(self, head: Head, stored: dict[str, bytes | None]) -> dict[str, PRRecord | BranchRecord]:
        """The PR and branch records the head's trailers list as holding pending shards (one read each, at most
        :data:`~gauntlet.state.shards.MAX_SHARDS_FOLDED`, but those in ``stored`` already); a record that does
        not parse is left for later."""
        records: dict[str, PRRecord | BranchRecord] = {}
        for path in sorted(head.pending)[:MAX_SHARDS_FOLDED]:
            model = record_model(path)
            data = stored[path] if path in stored else self.read(path, head.commit) if model is not None else None
            if model is None or data is None:
                continue
            try:
                records[path] = model.model_validate_json(data)
            except ValueError:
                continue  # the record's own next run reports it; its pending shards wait
        return records

    def known(self, key: str) -> int | None:
        """The number the last loaded index holds for an effect key (for :class:`~gauntlet.github.backend.Hub`)."""
        return self._index.get(key)

    def written(self, key: str) -> Written | None:
        """What the last loaded PR record (or branch record) says Gauntlet last wrote for ``key``."""
        if self._pr is not None:
            return self._pr.written.get(key)
        return self._branch.written.get(key) if self._branch is not None else None

    def remembers(self) -> bool:
        """Whether the last load read a PR's record, which keeps what its committed runs wrote."""
        return self._pr is not None

    def fresh(self, head_sha: str) -> bool:
        """Whether the last loaded branch record holds no run on ``head_sha`` (``False`` for any other run).

        No committed run served that commit, so no check run was created on it (but by a run that died before
        its commit, or one whose runs the record trimmed since: GitHub then shows the newer of two).
        """
        return self._served is not None and not any(same_commit(sha, head_sha) for sha in self._served)

    # writing ------------------------------------------------------------------------------------------------

    def save(self, snapshot: Snapshot, new: State, message: str) -> None:
        """Commit what changed since ``snapshot`` as one fast-forward commit.

        A run not about a branch writes its own record and its shard only; when the branch moved meanwhile,
        and the other commits touched none of the files this run writes whole, the same files are committed
        on the new head (up to :data:`REBASES` times, with jitter).

        :raises StateConflict: the branch moved (or appeared) in a way that needs a fresh read.
        """
        head = self._heads.get(snapshot.version) if snapshot.version else None
        self._events_after: tuple[str, int, int] | None = head.events if head else None
        # The answers this run read ride along when its record is written anyway: never a commit of their own.
        if new.pr is not None and not snapshot.scope.shards and new.pr != snapshot.state.pr:
            new = evolve(new, pr=evolve(new.pr, reads=self.client.cache.keep()))
        elif snapshot.scope.branch_run and new.branch is not None and new.branch != snapshot.state.branch:
            new = evolve(new, branch=evolve(new.branch, reads=self.client.cache.keep()))
        if _own_record(snapshot.scope) is not None and self._put_record(snapshot, new, head, message):
            return
        if _is_sharded(snapshot.scope):
            files, whole = self._sharded_files(snapshot, new, message, first=head is None)
        else:
            files, whole = self._whole_files(snapshot, new, head)
        if not files:
            return
        if head is None:
            files["README.md"] = README.encode()
        jitter = random.Random(message)
        for attempt in range(REBASES + 1):
            started = time.monotonic()
            try:
                trailers = self._trailers(message, head, files, snapshot)
                commit_files(self.client, self.api, self.branch, head, files, trailers)
                return
            except StateConflict:
                if head is None or attempt == REBASES:
                    raise
                # Full jitter, doubling with each attempt and scaled by how long a commit takes here: runs that
                # collided spread out instead of colliding again (each collision costs 4 calls). Waiting before
                # the compare means the head it returns is as fresh as it can be.
                took = time.monotonic() - started
                self.sleep(jitter.uniform(0.0, max(took, 0.05) * 2 ** (attempt + 2)))
                moved = moved_head(self.client, self.api, self.branch, head, whole)
                if moved is None:
                    raise
                head = moved

    def _put_record(self, snapshot: Snapshot, new: State, head: Head | None, message: str) -> bool:
        """Write a run's own record, its shard inside, with one contents ``PUT``; ``False``: use the Git Data API.

        :raises StateConflict: another run wrote the record since it was read.
        """
        path = _own_record(snapshot.scope)
        record = self._with_shard(snapshot, new, message)
        if head is None or path is None or record is None or len(head.pending | {path}) > MAX_PENDING_LISTED:
            return False
        if any(p != path and p not in _SHARED for p in changed_files(snapshot, new)):
            return False  # a command that marks a test flaky writes the default branch's record too: one commit
        data = encode_file(record)
        stored = snapshot.stored.get(path)
        if data == stored:
            return True
        pending = head.pending | {path} if record.pending else head.pending - {path}
        wrote = {path: blob_sha(data)} if _versioned(path) else {}
        blobs = {**(head.blobs or {}), **self._learned, **wrote}
        trailers = commit_message(
            message, head.events, set(head.shared or ()), head.shards or 0, pending, base=head, blobs=blobs, wrote=wrote
        )
        body: dict[str, Any] = {
            "message": trailers,
            "content": base64.b64encode(data).decode(),
            "branch": self.branch,
        }
        if stored is not None:
            body["sha"] = blob_sha(stored)
        put_file(self.client, self.api, path, body, jitter=random.Random(message), sleep=self.sleep)
        return True

    def _with_shard(self, snapshot: Snapshot, new: State, message: str) -> PRRecord | BranchRecord | None:
        """The run's own record holding its shard; ``None`` when it has no room (or the run has no record).

        A PR record lists its runs' shards (up to :data:`MAX_PENDING`). A branch record holds one, merged: the
        run saw the earlier ones folded in (:meth:`load`), so its change from the stored files covers them all.
        """
        run, at = _run_of(message), _newest_time(new)
        if snapshot.scope.branch_run and new.branch is not None:
            pending = new.branch.pending
            merged = merged_shard(decode_state(snapshot.scope, snapshot.stored), new, pending, run, at)
            if merged is not None and len(encode_shard(merged)) > MAX_PENDING_BYTES:
                return None
            return evolve(new.branch, pending=[merged] if merged is not None else [])
        if new.pr is None or len(new.pr.pending) >= MAX_PENDING:
            return None
        shard = shard_of(snapshot.state, new, run, at)
        return new.pr if shard is None else evolve(new.pr, pending=[*new.pr.pending, shard])

    def _sharded_files(
        self, snapshot: Snapshot, new: State, message: str, *, first: bool
    ) -> tuple[dict[str, bytes | None], set[str]]:
        """The run's own records whole, and its shard (shared-file changes and events) as a file; in the
        ``first`` commit of all, the shard in the record, as a contents ``PUT`` would have written it."""
        own = {p: d for p, d in changed_files(snapshot, new).items() if p not in _SHARED}
        files: dict[str, bytes | None] = dict(own)
        path, record = _own_record(snapshot.scope), self._with_shard(snapshot, new, message) if first else None
        if path is not None and record is not None:
            files[path] = encode_file(record)
            return files, set(files)
        shard: Shard | None
        if snapshot.scope.branch_run and new.branch is not None:
            # Its record is full: the merged shard becomes a file and the record holds none.
            run, at = _run_of(message), _newest_time(new)
            shard = merged_shard(decode_state(snapshot.scope, snapshot.stored), new, new.branch.pending, run, at)
            files[branch_path(new.branch.name)] = encode_file(evolve(new.branch, pending=[]))
        else:
            shard = shard_of(snapshot.state, new, _run_of(message), _newest_time(new))
        if shard is not None:
            files[shard_path(shard.run)] = encode_shard(shard)
        return files, set(files) - {p for p in files if p.startswith(SHARDS_FOLDER)}

    def _whole_files(
        self, snapshot: Snapshot, new: State, head: Head | None
    ) -> tuple[dict[str, bytes | None], set[str]]:
        """Changed files whole, the new events appended to the newest part, and the folded shards deleted."""
        changes = {p: d for p, d in changed_files(snapshot, new).items() if not _absent_default(snapshot, p, d)}
        events = events_by_month(new.events)
        files: dict[str, bytes | None] = dict(changes)
        newest = self._newest(head, next(iter(events), None))
        for month, lines in events.items():
            number, size = (newest[1], newest[2]) if newest and newest[0] == month else (0, 0)
            path = event_part_name(month, number, size, len(lines))
            content = lines
            if number and path == event_part_path(month, number) and head is not None:
                content = (self.read(path, head.commit) or b"") + lines
            files[path] = content
            newest = (month, int(path.rsplit(".", 2)[1]), len(content))
        self._events_after = newest
        files.update(dict.fromkeys(snapshot.folded))
        files.update(snapshot.rewritten)
        # What this run read and decided on: another commit touching any of it means deciding again.
        return files, {p for p, d in snapshot.stored.items() if d is not None} | set(files) - set(snapshot.folded)

    def _trailers(self, subject: str, head: Head | None, files: dict[str, bytes | None], snapshot: Snapshot) -> str:
        """The commit message: the subject, then the trailers the next run reads (module docstring)."""
        events = self._events_after if not _is_sharded(snapshot.scope) else (head.events if head else None)
        shared = set(head.shared) if head and head.shared is not None else self._shared_at(snapshot)
        shared |= {p for p, d in files.items() if p in _SHARED and d is not None}
        waiting = (head.shards or 0) if head else 0
        waiting += sum(1 for p, d in files.items() if p.startswith(SHARDS_FOLDER) and d is not None)
        waiting -= len(snapshot.folded)
        pending = set(head.pending) - set(self._checked) if head else set()
        pending -= {p for p in files if record_model(p) is not None}
        pending |= {p for p, d in files.items() if d is not None and _has_pending(p, d)}
        # The blobs the head names, those this run read there (not on a head it moved to since), those it writes.
        blobs = dict(head.blobs or {}) if head else {}
        if head is not None and head.commit == snapshot.version:
            blobs |= self._learned
        for path, data in files.items():
            if _versioned(path) and data is None:
                blobs.pop(path, None)
            elif _versioned(path) and data is not None:
                blobs[path] = blob_sha(data)
        return commit_message(subject, events, shared, max(waiting, 0), pending, blobs=blobs)

    def _newest(self, head: Head | None, month: str | None) -> tuple[str, int, int] | None:
        """The newest audit-log part at ``head``: from its trailer, else by listing the events folder."""
        if head is None:
            return None
        if head.shared is not None or month is None:  # a commit Gauntlet wrote: its trailer is authoritative
            return head.events
        try:
            listing = self.client.request("GET", f"{self.api}/contents/v1/events", params={"ref": head.commit})
        except NotFound:
            return None
        parts = [
            (int(found.group(2)), int(item.get("size") or 0))
            for item in listing
            if (found := _PART.match(str(item.get("name", "")))) and found.group(1) == month
        ]
        if not parts:
            return None
        number, size = max(parts)
        return month, number, size

    def _shared_at(self, snapshot: Snapshot) -> set[str]:
        return {p for p, data in snapshot.stored.items() if p in _SHARED and data is not None}


_SHARED = frozenset(SHARED_FILES.values())
#: Where a run's record remembers a state file it read, under the file's blob (``ReadCache.recall``).
_BLOB_KEY = "blob:"
#: The "blob" the trailers name for a file that does not exist (git's null object id).
_ABSENT = "0" * 40


def _versioned(path: str) -> bool:
    """Whether the trailers name ``path``'s blob: the files runs read but do not own (shared files, branch records)."""
    return path in _SHARED or path.startswith("v1/branches/")


def _kept_text(path: str, data: bytes) -> str:
    """What a run's record remembers of a file it read: its text, a branch record's without its own ``reads``."""
    text = data.decode("utf-8", "replace")
    return _without_reads(text) if path.startswith("v1/branches/") else text


def _without_reads(text: str) -> str:
    """A branch record's text without the answers it remembers for its own runs (``reads``): a reader keeping
    them would keep a cache of a cache. Text that does not parse is kept as it is (decode_state reports it)."""
    try:
        record = BranchRecord.model_validate_json(text)
    except ValueError:
        return text
    return encode_file(evolve(record, reads={})).decode()


def _absent_default(snapshot: Snapshot, path: str, data: bytes) -> bool:
    """True for a repository-wide file that is absent and would be written with its default content."""
    if path not in _SHARED or snapshot.stored.get(path) is not None:
        return False
    default = State().files()[path]
    return data == encode_file(type(default)())


def _has_pending(path: str, record: bytes) -> bool:
    """Whether the bytes of the record at ``path`` hold pending shards (an unreadable one counts: it waits to
    be read); ``False`` for any other file."""
    model = record_model(path)
    if model is None:
        return False
    try:
        return bool(model.model_validate_json(record).pending)
    except ValueError:
        return True


def _emptied(records: dict[str, PRRecord | BranchRecord], folded: set[str]) -> dict[str, bytes]:
    """The records without the pending shards the scan folded (their keys: ``<path>#<index>``)."""
    rewritten: dict[str, bytes] = {}
    for path, record in records.items():
        kept = [shard for i, shard in enumerate(record.pending) if f"{path}#{i}" not in folded]
        if len(kept) != len(record.pending):
            rewritten[path] = encode_file(evolve(record, pending=kept))
    return rewritten


def _is_sharded(scope: Scope) -> bool:
    """Whether the run writes only its own record (its additions to the shared files as a shard)."""
    return not scope.shards and (scope.branch is None or scope.branch_run)


def _own_record(scope: Scope) -> str | None:
    """The record a run writes as its own: its PR's (a PR run, a command on a PR) or its branch's (a branch run)."""
    if scope.shards:
        return None
    if scope.pr is not None:
        return pr_path(scope.pr)
    return branch_path(scope.branch) if scope.branch_run and scope.branch is not None else None


def _run_of(message: str) -> str:
    """The run's id for its shard's name: the commit subject names the event and the observation."""
    return message.removeprefix("gauntlet: ").replace(" ", "-")


def _newest_time(state: State) -> datetime:
    """When the run happened, for folding shards in order: its newest event (the engine stamps every run)."""
    return max((event.at for event in state.events), default=datetime.min.replace(tzinfo=UTC))
