"""Bounds on everything ingestion reads, so hostile input costs bounded memory and time (DESIGN §6)."""

from dataclasses import dataclass

__all__ = ["DEFAULT_LIMITS", "Limits"]


@dataclass(frozen=True, slots=True)
class Limits:
    """Caps applied while reading one input file."""

    #: Longer lines are cut; the rest of the line is skipped without being buffered.
    max_line_bytes: int = 64 * 1024
    #: A file yields at most this many findings; the rest are counted, not kept.
    max_findings: int = 2000
    #: Structured files (JSON, XML) larger than this are refused with an InputError.
    max_document_bytes: int = 256 * 1024 * 1024
    max_message_chars: int = 300
    max_excerpt_lines: int = 20
    max_excerpt_chars: int = 2000
    #: ``log_lines`` never spans more than this many lines.
    max_span_lines: int = 60


DEFAULT_LIMITS = Limits()
