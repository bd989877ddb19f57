"""Bytes on the state branch <-> state models: deterministic JSON, so equal state is equal bytes."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from gauntlet.errors import InputError
from gauntlet.state.branch import BranchRecord
from gauntlet.state.events import Event
from gauntlet.state.models import Scope, State
from gauntlet.state.pr import PRRecord
from gauntlet.untrusted import redact_json
from gauntlet.vocabulary import SHARED_FILES, branch_path, pr_path

__all__ = ["README", "RECORD_FOLDERS", "decode_state", "encode_events", "encode_file", "needed_paths", "record_model"]

M = TypeVar("M", bound=BaseModel)

#: Where the records live that one PR or one branch owns (and that may hold pending shards).
RECORD_FOLDERS: dict[str, type[PRRecord] | type[BranchRecord]] = {"v1/prs/": PRRecord, "v1/branches/": BranchRecord}

README = """# Gauntlet state

This branch holds the state of [Gauntlet](https://github.com/) for this repository: pull request
iterations, branch history, learned rules and the audit log. Gauntlet writes it with fast-forward
commits only. Never edit it by hand; delete the branch to reset Gauntlet.
"""


def encode_file(model: BaseModel) -> bytes:
    """Serialise one state file (sorted keys, trailing newline), redacted as it is written (DESIGN §6)."""
    return (redact_json(_canonical(model, indent=1)) + "\n").encode()


def encode_events(events: list[Event]) -> bytes:
    """Serialise audit events as JSON lines (sorted keys), redacted as they are written."""
    return redact_json("".join(_canonical(event) + "\n" for event in events)).encode()


def _canonical(model: BaseModel, indent: int | None = None) -> str:
    """The model as JSON with every object's keys sorted: a dict filled in set order (which follows the hash
    seed) is the same bytes in every run, so an unchanged file keeps its blob and costs no write."""
    separators = None if indent is not None else (",", ":")
    return json.dumps(
        model.model_dump(mode="json"), sort_keys=True, indent=indent, ensure_ascii=False, separators=separators
    )


def needed_paths(scope: Scope) -> list[str]:
    """The files a run with ``scope`` reads (and may write)."""
    paths = [path for name, path in SHARED_FILES.items() if scope.shared is None or name in scope.shared]
    if scope.pr is not None:
        paths.append(pr_path(scope.pr))
    if scope.branch is not None:
        paths.append(branch_path(scope.branch))
    if scope.base is not None and scope.base != scope.branch:
        paths.append(branch_path(scope.base))
    return paths


def decode_state(scope: Scope, blobs: Mapping[str, bytes | None]) -> State:
    """Build the :class:`State` for ``scope`` from the stored bytes (``None`` for a missing file).

    :raises InputError: a stored file is not valid; nothing is overwritten.
    """
    fields: dict[str, BaseModel] = {}
    for name, path in SHARED_FILES.items():
        model_type = State.model_fields[name].annotation
        assert isinstance(model_type, type) and issubclass(model_type, BaseModel)
        fields[name] = _decode(path, blobs.get(path), model_type) or model_type()
    if scope.pr is not None:
        fields["pr"] = _decode(pr_path(scope.pr), blobs.get(pr_path(scope.pr)), PRRecord) or PRRecord(number=scope.pr)
    if scope.branch is not None:
        path = branch_path(scope.branch)
        fields["branch"] = _decode(path, blobs.get(path), BranchRecord) or BranchRecord(name=scope.branch)
    if scope.base is not None and scope.base != scope.branch:
        path = branch_path(scope.base)
        fields["base"] = _decode(path, blobs.get(path), BranchRecord) or BranchRecord(name=scope.base)
    return State.model_validate(fields)


def record_model(path: str) -> type[PRRecord] | type[BranchRecord] | None:
    """The model of the PR or branch record at ``path`` (``None``: not a record's path)."""
    return next((model for folder, model in RECORD_FOLDERS.items() if path.startswith(folder)), None)


def _decode(path: str, data: bytes | None, model_type: type[M]) -> M | None:
    if data is None:
        return None
    try:
        return model_type.model_validate_json(data)
    except ValidationError as exc:
        raise InputError(f"state file {path} is invalid: {exc.errors()[0]['msg']}") from exc
