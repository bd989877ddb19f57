"""What every GitHub handler works with: the :class:`Hub`, the :class:`Handler` protocol, and finding earlier results.

Theory of operation: :func:`gauntlet.effects.base.apply` asks the backend to
``find`` an effect's earlier result by its key, then to ``perform`` it given what
was found. Every handler finds its earlier result the same way
(:func:`find_earlier`): first the number the state index holds for the key, else
by listing, page by page, and only items authored by Gauntlet's own identity
count, because anyone can type a marker (DESIGN §5). This module imports no
handler, so the handlers import it and :mod:`gauntlet.github.backend` imports
them: the package reads bottom-up.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from gauntlet.effects.base import EffectResult, Existing
from gauntlet.effects.models import Effect
from gauntlet.github.client import NotFound
from gauntlet.state.pr import Written
from gauntlet.vocabulary import marker_text

if TYPE_CHECKING:
    from github.Repository import Repository

    from gauntlet.github.client import GitHubClient

__all__ = [
    "PAGE_SIZE",
    "CommentMode",
    "Handler",
    "Hub",
    "find_earlier",
    "is_ours",
    "marker_keys",
    "nothing_fresh",
    "nothing_known",
    "nothing_remembered",
    "nothing_written",
    "paged",
]

CommentMode = Literal["always", "changes", "off"]

PAGE_SIZE = 100


def nothing_known(key: str) -> int | None:
    """An index that knows nothing (state in a folder, or no state): effects are found by listing."""
    del key
    return None


def nothing_written(key: str) -> Written | None:
    """No record of what Gauntlet last wrote for ``key``."""
    del key
    return None


def nothing_fresh(head_sha: str) -> bool:
    """A run that cannot say whether an earlier run served this head commit: handlers look on GitHub."""
    return False


def nothing_remembered() -> bool:
    """A run that keeps no record of what it writes (no PR record): handlers look on GitHub."""
    return False


@dataclass(frozen=True)
class Hub:
    """What every handler works with: the client, the repository and the run's options.

    :param client: the one PyGithub client (retries, call counting, error translation).
    :param repo: the repository the run serves (a lazy PyGithub object: building it costs no call).
    :param bot_login: Gauntlet's own identity; markers count only on items it authored (DESIGN §5).
    :param known: the number the state index holds for an effect key (comment id, issue or PR number).
    :param comment_mode: ``always`` edit the sticky comment every run, ``changes`` only when its text
        changes, ``off`` never post it.
    :param check_name: the check run's name.
    :param assign_owners: assign the code owners of a finding's path to the issues Gauntlet files.
    :param written: what the PR's record says Gauntlet last wrote for an effect key (``PRRecord.written``).
    :param remembers: whether this run keeps that record (a PR run): then an effect it has no record of was
        never written, and is not looked for on GitHub first.
    :param fresh: whether no committed run served this head commit (a default-branch run's first attempt on a
        commit its branch record has no run of): then no check run was created on it, and none is looked for.
    :param own_run: the workflow run Gauntlet itself runs in (``GITHUB_RUN_ID``): still in progress while it
        runs, so GitHub cannot rerun its failed jobs yet.
    :param first_issues: the first page of the issues labelled ``gauntlet``, in the REST listing's shape, when
        the run's start query read it (``github/start.py``), and whether another page follows.
    """

    client: GitHubClient
    repo: Repository
    bot_login: str
    known: Callable[[str], int | None] = nothing_known
    comment_mode: CommentMode = "changes"
    check_name: str = "Gauntlet"
    assign_owners: bool = True
    written: Callable[[str], Written | None] = nothing_written
    remembers: Callable[[], bool] = nothing_remembered
    fresh: Callable[[str], bool] = nothing_fresh
    own_run: str | None = None
    first_issues: tuple[list[dict[str, Any]], bool] | None = None


class Handler(Protocol):
    """Finds and performs one effect type on GitHub. Handlers narrow ``effect`` to their own type."""

    def find(self, hub: Hub, effect: Effect) -> Existing | None:
        """Return the earlier result of ``effect`` (found by its key), or ``None``."""
        ...

    def perform(self, hub: Hub, effect: Effect, existing: Existing | None) -> EffectResult:
        """Carry out ``effect``; update ``existing`` instead of creating a second one."""
        ...


def is_ours(login: str | None, bot_login: str) -> bool:
    """True when ``login`` is Gauntlet's own identity: the only author whose markers count."""
    return login is not None and login.lower() == bot_login.lower()


#: A marker as :func:`gauntlet.vocabulary.marker_text` writes it, its key captured (keys are one line).
_MARKER = re.compile(re.escape(marker_text("\0")).replace(re.escape("\0"), r"([^\n]{1,300}?)"))
#: Markers read from one body, at most: Gauntlet's own bodies carry one.
MAX_MARKERS = 5


def marker_keys(body: str | None) -> tuple[str, ...]:
    """The keys of the markers ``body`` carries (DESIGN §5, contract), at most :data:`MAX_MARKERS`."""
    found = dict.fromkeys(_MARKER.findall(body)) if body else {}
    return tuple(found)[:MAX_MARKERS]


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


def find_earlier(
    hub: Hub,
    known: str | None,
    listing: tuple[str, dict[str, Any]],
    ours: Callable[[dict[str, Any]], bool],
) -> tuple[dict[str, Any], bool] | None:
    """Gauntlet's earlier item (comment, issue or PR): the one the state index names, else the first listed.

    :param known: the item's API path when the state index holds its number (tried first; a deleted or
        transferred item falls through to the listing).
    :param listing: the listing endpoint and its query parameters.
    :param ours: whether an item is Gauntlet's (and, where that is how it is told apart, is the effect's).
    :returns: the item and whether it came from the listing (a listing leaves some fields out), or ``None``.
    :raises GitHubUnavailable: GitHub kept failing.
    """
    if known is not None:
        try:
            item = hub.client.request("GET", known)
        except NotFound:
            item = None
        if isinstance(item, dict) and ours(item):
            return item, False
    path, params = listing
    for item in paged(hub, path, params):
        if ours(item):
            return item, True
    return None
