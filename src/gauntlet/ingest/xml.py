"""Bounded, defused XML: iterate over elements without trusting the document.

Every XML findings file (JUnit, checkstyle) is read through ``defusedxml``, so
entity expansion (billion laughs) and external entities are refused; the byte
count and nesting depth are capped; finished elements are detached from their
parent so a file with a million passing tests costs constant memory.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO
from xml.etree.ElementTree import Element, ParseError

import defusedxml
import defusedxml.ElementTree

from gauntlet.errors import InputError
from gauntlet.ingest.jsondoc import CountingReader

__all__ = ["MAX_DEPTH", "iter_elements"]

MAX_DEPTH = 256


def iter_elements(
    stream: BinaryIO, name: str, *, max_bytes: int, tags: frozenset[str]
) -> Iterator[tuple[Element, list[Element]]]:
    """Yield each finished element whose tag is in ``tags``, with its open ancestors (outermost first).

    The element and its subtree are complete when yielded, and discarded after:
    keep what you need before asking for the next one. Ancestors carry their
    attributes but not their earlier children.

    :raises InputError: not well-formed XML, a DTD entity, more than ``max_bytes``
        bytes or elements nested deeper than :data:`MAX_DEPTH`.
    """
    reader = CountingReader(stream, name, max_bytes)
    stack: list[Element] = []
    try:
        for event, element in defusedxml.ElementTree.iterparse(reader, events=("start", "end")):
            if event == "start":
                stack.append(element)
                if len(stack) > MAX_DEPTH:
                    raise InputError(f"{name}: XML nested deeper than {MAX_DEPTH} levels")
                continue
            stack.pop()
            if _local(element.tag) in tags:
                yield element, stack
                # Detach what is finished so memory does not grow with the document.
                element.clear()
                if stack:
                    stack[-1].remove(element)
    except ParseError as exc:
        raise InputError(f"{name}: not well-formed XML: {exc}") from exc
    except defusedxml.DefusedXmlException as exc:
        raise InputError(f"{name}: refused XML: {exc}") from exc
    except (LookupError, UnicodeError) as exc:  # an unknown or lying encoding declaration
        raise InputError(f"{name}: cannot decode XML: {exc}") from exc


def local_name(tag: str) -> str:
    """Return ``tag`` without its ``{namespace}``."""
    return _local(tag)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1] if tag.startswith("{") else tag
