"""Listing endpoints page by page (100 a page), stopping as soon as the caller has what it needs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gauntlet.github.backend import Hub

__all__ = ["PAGE_SIZE", "paged"]

PAGE_SIZE = 100


def paged(hub: Hub, path: str, params: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
    """Yield every item a listing endpoint returns, fetching the next page only when it is reached.

    :param path: the endpoint, relative to the API URL.
    :param params: query parameters besides ``per_page`` and ``page``.
    :raises GitHubUnavailable, NotFound: translated failures.
    """
    page = 1
    while True:
        items = hub.client.request("GET", path, params={**(params or {}), "per_page": PAGE_SIZE, "page": page})
        yield from items
        if len(items) < PAGE_SIZE:
            return
        page += 1
