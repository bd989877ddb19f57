"""Reading the state for the dashboard: a folder with the state branch's layout (DESIGN §4), or a git ref of it.

The dashboard reads every PR and branch file, which no run ever does, so it reads them one at a time and lets
the caller reduce each to rows before the next is parsed. A file that is unreadable, too large or invalid is
recorded in :attr:`StateSource.problems` and skipped: one bad file never hides the rest of the dashboard.
"""

from __future__ import annotations

import re
import subprocess
import tarfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from gauntlet.errors import InputError
from gauntlet.state.branch import BranchRecord
from gauntlet.state.pr import PRRecord
from gauntlet.state.shards import SHARDS_FOLDER, fold_shared, pending_in
from gauntlet.vocabulary import SHARED_FILES

__all__ = ["MAX_FILE_BYTES", "StateSource", "export_ref"]

M = TypeVar("M", bound=BaseModel)

#: Every state file is bounded far below this; a larger one is not Gauntlet's and is skipped unread.
MAX_FILE_BYTES = 32 * 1024 * 1024
#: A timestamp field without a time zone (Gauntlet always writes UTC): only a hand edit makes one, and comparing
#: it with the others would fail half-way through the report, so its file is skipped instead.
_NAIVE_TIME = re.compile(
    rb'"(?:at|[a-z]+_at|watch_until|first_seen|last_seen|since|last_flake)": ?"\d{4}-\d\d-\d\dT[\d:.]+"'
)


@dataclass
class StateSource:
    """The state files under ``root``, read on demand."""

    root: Path
    #: ``path: what is wrong`` for each file that was skipped.
    problems: list[str] = field(default_factory=list)

    def prs(self) -> Iterator[PRRecord]:
        """Every readable PR file, by PR number."""
        yield from self._records("prs", PRRecord, key=_number)

    def branches(self) -> Iterator[BranchRecord]:
        """Every readable branch file, by file name."""
        yield from self._records("branches", BranchRecord, key=lambda path: (0, path.stem))

    def shared(self, name: str, model: type[M]) -> M:
        """A repository-wide file (a key of :data:`~gauntlet.state.models.SHARED_FILES`); its default if absent."""
        base = self._read(self.root / SHARED_FILES[name], model) or model()
        # Runs leave their additions as shards until the scan folds them (docs/scale.md): show them too.
        shards = {p.name: p.read_bytes() for p in sorted((self.root / SHARDS_FOLDER).glob("*.json"))}
        records = sorted(p for folder in ("prs", "branches") for p in (self.root / "v1" / folder).glob("*.json"))
        shards |= pending_in({p.relative_to(self.root).as_posix(): p.read_bytes() for p in records})
        if not shards:
            return base
        try:
            return fold_shared(name, base, shards)
        except InputError as exc:
            self.problems.append(f"{SHARDS_FOLDER}: {exc}")
            return base

    def _records(self, folder: str, model: type[M], key: Callable[[Path], tuple[int, int | str]]) -> Iterator[M]:
        paths = sorted((self.root / "v1" / folder).glob("*.json"), key=key)
        for path in paths:
            record = self._read(path, model)
            if record is not None:
                yield record

    def _read(self, path: Path, model: type[M]) -> M | None:
        name = path.relative_to(self.root).as_posix() if path.is_relative_to(self.root) else str(path)
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                self.problems.append(f"{name}: larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB, skipped")
                return None
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            self.problems.append(f"{name}: cannot be read ({exc.strerror})")
            return None
        if _NAIVE_TIME.search(data):
            self.problems.append(f"{name}: a timestamp without a time zone, skipped")
            return None
        try:
            return model.model_validate_json(data)
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"]) or "file"
            self.problems.append(f"{name}: invalid at {where} ({error['msg']})")
            return None


def _number(path: Path) -> tuple[int, int | str]:
    # PR files are ``<number>.json``: numeric order, anything else (not Gauntlet's) after them.
    return (0, int(path.stem)) if path.stem.isdigit() else (1, path.stem)


def export_ref(repository: Path, ref: str, target: Path) -> None:
    """Write the ``v1/`` tree of ``ref`` (the state branch, local or ``origin/…``) in ``repository`` to ``target``.

    :raises InputError: git cannot read ``ref`` there.
    """
    command = ["git", "-C", str(repository), "archive", "--format=tar", ref, "--", "v1"]
    broken: Exception | None = None
    try:
        with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
            assert process.stdout is not None and process.stderr is not None
            try:
                with tarfile.open(fileobj=process.stdout, mode="r|") as archive:
                    # "data" refuses links out of the target, devices and absolute names (the ref is not trusted).
                    archive.extractall(target, filter="data")
            except tarfile.TarError as exc:
                broken = exc
            error = process.stderr.read().decode(errors="replace").strip()
    except OSError as exc:
        raise InputError(f"cannot run git to read the state branch {ref!r}: {exc.strerror}") from exc
    if process.returncode != 0 or broken is not None:
        reason = error or str(broken) or "git failed"
        raise InputError(f"cannot read the state branch {ref!r} in {repository}: {reason}") from broken
