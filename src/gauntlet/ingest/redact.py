"""Redaction as ingest applies it: every text field of every finding, with the masks the file registered.

A log's ``::add-mask::`` lines are an anchor of the scanner's prefilter (found in the pass it makes
anyway); a structured file passes a :class:`MaskWatch` as it is read. ``ingest_file`` holds the
findings until the file ends, so a value masked below a finding is hidden in it too. The redaction
itself is :mod:`gauntlet.untrusted`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

from gauntlet.models import Finding, evolve
from gauntlet.untrusted import Masks, masked_values, redact

__all__ = ["MaskWatch", "redact_finding"]

_MASK_COMMAND = b"::add-mask::"
#: The unfinished last line carried from one read to the next (a mask value is at most 4,096 characters).
_MAX_TAIL = 4096 + 64


#: The text fields of a finding; everything in them came from the input.
_FINDING_TEXT = ("tool", "path", "test_id", "rule", "message", "excerpt", "job", "category", "rule_learned")


def redact_finding(finding: Finding, masks: Masks | None = None) -> Finding:
    """Return ``finding`` with every text field redacted (the same object when nothing changed)."""
    masks = masks or Masks()
    changes: dict[str, str] = {}
    for name in _FINDING_TEXT:
        value = getattr(finding, name)
        if value:
            clean = redact(value, masks)
            if clean != value:
                changes[name] = clean
    return evolve(finding, **changes) if changes else finding


class MaskWatch:
    """A read-only binary stream that notes every ``::add-mask::`` value passing through it.

    Readers only call ``read``; the values are in :attr:`masks` as soon as the bytes holding them
    were read. A command cut by a read boundary is completed from the next read.
    """

    def __init__(self, stream: BinaryIO, masks: Masks | None = None) -> None:
        self._stream = stream
        self._tail = b""
        self.masks = masks if masks is not None else Masks()

    def read(self, size: int = -1) -> bytes:
        """Read like the wrapped stream does."""
        data = self._stream.read(size)
        if data:
            self._watch(data)
        return data

    def seek(self, offset: int, whence: int = 0) -> int:
        """Seek the wrapped stream (a reader re-reading from the start); masks seen stay seen."""
        self._tail = b""
        return self._stream.seek(offset, whence)

    def __iter__(self) -> Iterator[bytes]:
        """Lines, as iterating the wrapped stream gives them (the TAP reader reads so)."""
        for line in self._stream:
            self._watch(line)
            yield line

    def _watch(self, data: bytes) -> None:
        # Only the unfinished last line of the previous read is carried, so a command split by the
        # read boundary is seen whole; the search itself is one bytes.find per read.
        buffer = self._tail + data if self._tail else data
        cut = buffer.rfind(b"\n") + 1
        start = buffer.find(_MASK_COMMAND, 0, cut)
        while start != -1:
            end = buffer.find(b"\n", start)
            self.masks.add(masked_values([buffer[start:end].decode("utf-8", "replace")]))
            start = buffer.find(_MASK_COMMAND, end, cut)
        tail = buffer[cut:]
        self._tail = tail[-_MAX_TAIL:]

    def finish(self) -> None:
        """Take the last line too (a file that ends without a newline)."""
        if self._tail:
            self._watch(b"\n")
