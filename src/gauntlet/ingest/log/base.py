"""The two shapes a tool parser takes, so each parser module holds only what its tool prints.

* :class:`LineParser`: every failure fits on one line (``x.py:3:1: F401 ...``); nothing is ever open.
* :class:`BlockParser`: a failure spans a block (a header, then its message and location); one
  :class:`~gauntlet.ingest.log.draft.Draft` is open at a time and is reported when the block ends.
* :class:`SectionParser`: such blocks stand in a section a header opens (RSpec's ``Failures:``).

Both satisfy :class:`~gauntlet.ingest.log.draft.Parser`. ``active`` stays a plain ``False`` on
:class:`LineParser`: the analyser asks only parsers whose ``active`` is a property after each line.
"""

from __future__ import annotations

from gauntlet.ingest.log.draft import Draft, Sink

__all__ = ["BlockParser", "LineParser", "SectionParser", "headline"]


class LineParser:
    """A parser that judges each line alone; subclasses supply ``feed``."""

    active = False

    def close(self, sink: Sink) -> None:
        """Nothing is ever pending."""


class BlockParser:
    """A parser that reads one block at a time into ``_draft``; subclasses supply ``feed``.

    ``close`` (a new block, the end of input, a failed step) reports the open draft after
    :meth:`_finish` has completed it.
    """

    def __init__(self) -> None:
        self._draft: Draft | None = None

    @property
    def active(self) -> bool:
        """True inside a block."""
        return self._draft is not None

    def close(self, sink: Sink) -> None:
        """Report the block being read."""
        self._report(sink)

    def _report(self, sink: Sink) -> None:
        # Separate from ``close`` so a parser that also tracks a section can end a block but stay in it.
        draft, self._draft = self._draft, None
        if draft is not None and self._finish(draft):
            sink.emit(draft)

    def _finish(self, draft: Draft) -> bool:
        """Complete a block's draft before it is reported; return False to drop it."""
        return True

    def _continue_indented(self, number: int, text: str, sink: Sink, most: int) -> Draft | None:
        """The open draft if ``text`` goes on its indented block; else None, the block (if any) reported.

        An indented block ends at its first non-blank line at column 0, or ``most`` lines past its header.
        """
        draft = self._draft
        if draft is not None and (number - draft.start > most or (text.strip() and not text.startswith(" "))):
            self.close(sink)
            return None
        return draft


class SectionParser(BlockParser):
    """A :class:`BlockParser` whose blocks stand in a section, from its header to the first line not its own.

    The section stays active between blocks, so the lines that start the next one are fed too.
    ``_report`` ends a block; ``close`` ends the section.
    """

    def __init__(self) -> None:
        super().__init__()
        self._section = False

    @property
    def active(self) -> bool:
        """True inside the section."""
        return self._section

    def close(self, sink: Sink) -> None:
        """End the section, reporting the block being read."""
        self._report(sink)
        self._section = False


def headline(draft: Draft, name: str | None, empty: str = "failed") -> None:
    """Lead a failed test's message with its name: ``name: what it printed first``.

    :param draft: the test's draft; its message is what the block showed, or ``""``.
    :param name: the test's name as the tool printed it.
    :param empty: what to say when the block showed no message.
    """
    draft.message = f"{name}: {draft.message or empty}"
