"""Ingest: turn files (logs, findings documents) into :class:`~gauntlet.models.Finding` s.

Streaming and bounded: logs are read line by line, structured files are capped
in size, and every reader obeys :class:`~gauntlet.ingest.limits.Limits`.
:func:`ingest_paths` reads many inputs; one that cannot be read becomes an
:class:`InputProblem` of the :class:`IngestResult` while every other input is
still read.

The names that need pydantic (and the readers) load on first use, not with the package: ``gauntlet ingest``
starts a big log's read-ahead child (:func:`.log.prefetch.read_ahead_paths`) before they load, so that its
pass over the log runs while they do.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from gauntlet.ingest.formats import FORMATS, Format
from gauntlet.ingest.limits import Limits
from gauntlet.ingest.paths import Checkout

if TYPE_CHECKING:
    from gauntlet.ingest.files import ingest_file, ingest_paths
    from gauntlet.ingest.result import IngestResult, InputProblem

__all__ = [
    "FORMATS",
    "Checkout",
    "Format",
    "IngestResult",
    "InputProblem",
    "Limits",
    "ingest_file",
    "ingest_paths",
]

# Each name loaded on first use, and the module it comes from.
_LAZY = {
    "IngestResult": "gauntlet.ingest.result",
    "InputProblem": "gauntlet.ingest.result",
    "ingest_file": "gauntlet.ingest.files",
    "ingest_paths": "gauntlet.ingest.files",
}


def __getattr__(name: str) -> Any:
    """Load a name of :data:`_LAZY` from its module when it is first asked for."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
