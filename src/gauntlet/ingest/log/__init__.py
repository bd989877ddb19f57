"""CI log scanning: one finding per real failure in a job log, at close to grep's speed.

``read_log`` adapts a binary stream to :func:`scan`. The work is split so that
each part stays small:

* :mod:`.scanner` reads blocks, asks :mod:`.prefilter` where the candidate lines
  are and feeds only those (with some lines of context) onward;
* :mod:`.text` cleans a line (timestamps, ANSI, ``\\r``, BuildKit prefixes);
* :mod:`.analyser` dispatches lines to the tool parsers and applies the "one
  root cause, one finding" rules;
* one module per tool family holds its parsers (:mod:`.ci`, :mod:`.pytests`,
  :mod:`.python`, :mod:`.c`, :mod:`.rust`, :mod:`.go`, :mod:`.javascript`, :mod:`.jstests`,
  :mod:`.jvm`, :mod:`.ruby`, :mod:`.php`, :mod:`.dotnet`, :mod:`.packages`,
  :mod:`.shell`).

The package's names load the parsers, the analyser and pydantic on first use, not with the package: ``gauntlet
ingest`` imports :mod:`.prefetch` (which needs none of them) and starts a big log's read-ahead child first, so
that its pass over the log runs while they load.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gauntlet.ingest.log.reading import make_parsers, read_log, scan

__all__ = ["make_parsers", "read_log", "scan"]


def __getattr__(name: str) -> Any:
    """Load :mod:`.reading` (every parser) when one of its names is first asked for."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from gauntlet.ingest.log import reading

    return getattr(reading, name)
