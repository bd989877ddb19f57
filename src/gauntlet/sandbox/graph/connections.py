"""Relay connections as GitHub serves them: ``nodes``, ``edges { cursor node }``, ``pageInfo``, ``totalCount``.

See https://docs.github.com/graphql/guides/using-pagination-in-the-graphql-api. A cursor is opaque to clients; here
it is the base64 of the item's index in the full list, so ``after``/``before`` slice that list. The bounds of
``first``/``last`` are checked before anything runs (``cost.py``), as GitHub refuses such a query whole.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from graphql import GraphQLError

__all__ = ["connection", "cursor"]

T = TypeVar("T")
_PREFIX = "cursor:v1:"


def cursor(index: int) -> str:
    """The opaque cursor of the item at ``index``."""
    return base64.b64encode(f"{_PREFIX}{index}".encode()).decode()


def _index(text: str) -> int:
    try:
        decoded = base64.b64decode(text.encode(), validate=True).decode()
        if decoded.startswith(_PREFIX):
            return int(decoded.removeprefix(_PREFIX))
    except (binascii.Error, UnicodeDecodeError, ValueError):
        pass
    raise GraphQLError(
        f"`{text}` does not appear to be a valid cursor.", extensions={"type": "INVALID_CURSOR_ARGUMENTS"}
    )


def connection(
    items: Sequence[T],
    view: Callable[[T], dict[str, Any]],
    *,
    first: int | None = None,
    last: int | None = None,
    after: str | None = None,
    before: str | None = None,
    **_: Any,
) -> dict[str, Any]:
    """One page of ``items`` as a connection; ``view`` turns an item into its node (only for the page's items).

    Extra keyword arguments (a connection's filters, already applied by the caller) are ignored.
    """
    start = _index(after) + 1 if after is not None else 0
    end = _index(before) if before is not None else len(items)
    start, end = max(0, start), min(len(items), end)
    window = list(range(start, max(start, end)))
    if first is not None:
        window = window[:first]
    if last is not None:
        window = window[-last:] if last else []
    nodes = [view(items[i]) for i in window]
    edges = [{"cursor": cursor(i), "node": node} for i, node in zip(window, nodes, strict=True)]
    return {
        "nodes": nodes,
        "edges": edges,
        "totalCount": len(items),
        "pageInfo": {
            "hasNextPage": bool(window) and window[-1] < end - 1 if first is not None else end < len(items),
            "hasPreviousPage": bool(window) and window[0] > start if last is not None else start > 0,
            "startCursor": cursor(window[0]) if window else None,
            "endCursor": cursor(window[-1]) if window else None,
        },
    }
