"""What a tool parser reports, before the analyser turns it into a :class:`~gauntlet.models.Finding`.

Parsers only say what they saw; the analyser owns dedupe, redaction, excerpts,
fingerprints and the "one root cause, one finding" rules. ``role`` tells it how a
report relates to the others:

* ``primary``: a defect the tool names (a failing test, a compile error). Always reported.
* ``fallback``: a line that explains a failure only if nothing better does (``make: *** Error 1``,
  ``npm ERR! Test failed``, a bare ``##[error]``, a connection refused). Held until the scope ends.
* ``terminal``: the end of a failed step (``Process completed with exit code 1``). Closes the
  scope: if no primary was reported in it, the best fallback, else this line, becomes the finding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from gauntlet.ingest.fingerprint import normalise_message, normalise_path
from gauntlet.ingest.log.text import repo_path
from gauntlet.models import Kind

__all__ = ["Draft", "Line", "Parser", "Repeats", "Role", "Sink", "diagnostic", "failed_test"]

Role = Literal["primary", "fallback", "terminal"]

#: One cleaned line: its 1-based number in the raw log and its text.
Line = tuple[int, str]


@dataclass(slots=True)
class Draft:
    """A failure as a parser saw it; ``start``/``end`` are 1-based raw log line numbers."""

    tool: str | None
    kind: Kind
    message: str
    start: int
    end: int
    path: str | None = None
    line: int | None = None
    column: int | None = None
    test_id: str | None = None
    rule: str | None = None
    #: Identity for dedupe and the fingerprint when the message is not part of it (tests: their name).
    key: str | None = None
    role: Role = "primary"
    #: Among fallbacks, the higher rank explains more (infra cause > tool driver > bare exit code).
    rank: int = 0
    #: A fallback that by itself shows the job failed (``make: *** Error``) rather than a hint.
    fails: bool = True
    warning: bool = False


class Sink(Protocol):
    """What a parser may ask of the analyser."""

    def emit(self, draft: Draft) -> None:
        """Report a failure."""

    def tail(self, count: int, before: int) -> Sequence[Line]:
        """Up to ``count`` contiguous lines that were read just before line number ``before``."""

    @property
    def step(self) -> str:
        """The command of the current CI step (``##[group]Run ruff check .``), lower case, or ``""``."""

    def set_step(self, command: str) -> None:
        """Remember the command of the step that starts here."""

    def saw_runner(self, *, error: bool, grouped: bool | None = None) -> None:
        """Note a GitHub runner marker, whether it reported an error and whether it opened a group.

        :param grouped: True at ``##[group]``, False where a group ends, None for other markers.
        """


class Parser(Protocol):
    """A recogniser for one tool's output, fed the lines near prefilter hits in order."""

    def feed(self, line: Line, sink: Sink) -> bool:
        """Read one line; return True when it belongs to this parser and no other should see it."""

    @property
    def active(self) -> bool:
        """True while inside a block: the scanner then feeds every following line."""

    def close(self, sink: Sink) -> None:
        """Flush any block still open (end of input or a gap in the lines fed)."""


def diagnostic(
    tool: str | None,
    kind: Kind,
    message: str,
    number: int,
    path: str | None,
    row: str | int,
    column: str | int | None = None,
    *,
    rule: str | None = None,
    warning: bool = False,
) -> Draft:
    """A diagnostic that fits on one log line and names its place: ``path:row[:column]: message``.

    :param number: the log line it was read on (its start and end).
    :param row: the source line, as the tool's pattern matched it.
    :param column: the source column as matched; ``None`` or ``""`` when the tool printed none.
    :param rule: the tool's code or rule name for it.
    :param warning: the tool reported it below error severity.
    """
    return Draft(
        tool,
        kind,
        message,
        number,
        number,
        path=path,
        line=int(row),
        column=int(column) if column else None,
        rule=rule,
        warning=warning,
    )


def failed_test(tool: str, name: str, number: int, *, key: str | None = None) -> Draft:
    """A test the tool names as failed on one line; ``name failed`` until its block says why.

    :param tool: the runner that reported it.
    :param name: the test's name as the runner printed it.
    :param number: the log line that names it.
    :param key: the test's identity across runs; ``tool:name`` unless runners share one.
    """
    return Draft(tool, "test_failure", f"{name} failed", number, number, test_id=name, key=key or f"{tool}:{name}")


class Repeats:
    """Keeps apart one diagnostic repeated at different lines of a file (errcheck's ``Error return value ...``).

    A finding's identity leaves its line out, so that it survives edits above it; two findings that differ
    only in their line would be taken for one. The first line keeps the usual identity (``key`` None); each
    further line gets a key naming its rank among them, which a rerun with shifted lines keeps too.
    The same line seen again (a tool that prints its errors twice) keeps its rank: still one finding.
    """

    def __init__(self) -> None:
        self._lines: dict[tuple[str | None, str | None, str | None, str], list[int | None]] = {}

    def keyed(self, draft: Draft) -> Draft:
        """``draft`` with its :meth:`key` set (unless it has a key of its own), for ``sink.emit``."""
        if draft.key is None:
            draft.key = self.key(draft)
        return draft

    def key(self, draft: Draft) -> str | None:
        """The draft's key: None for the first line it is reported at, else its path, rule, message and rank."""
        lines = self._lines.setdefault((draft.tool, draft.path, draft.rule, normalise_message(draft.message)), [])
        if draft.line not in lines:
            lines.append(draft.line)
        rank = lines.index(draft.line)
        if rank == 0:
            return None
        # The parts the analyser would hash, made the same way (workspace and temporary paths left out).
        where = normalise_path(repo_path(draft.path)) or ""
        return "\x1f".join((where, draft.rule or "", normalise_message(draft.message), f"#{rank + 1}"))
