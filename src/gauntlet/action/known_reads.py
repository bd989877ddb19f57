"""The open known-failure issues, read once per run for the engine to match failures against (DESIGN §5).

Theory of operation (``docs/known-failures.md``). The rules are the open issues labelled ``known-failure``, newest
first, read at most :data:`~gauntlet.known.MAX_KNOWN_ISSUES` (two pages of 100), whatever how many are open:

- the run's start query (``github/start.py``) reads the first page at no REST cost; a second page, when GitHub
  says there is one, is one REST call (``GET issues?labels=known-failure&state=open&page=2``, which follows on
  from GraphQL's first page as the Gauntlet-issue listing does);
- without the start query (``graphql: false``, or it failed) the same pages are read by REST, and only by a run
  that has a failure to match: a green run reads nothing.

10,000 open known-failure issues cost what 201 do: two pages, and the job summary says only the newest were read.
The bodies become rules, or problems the engine answers on the issue (:func:`gauntlet.known.known_failures`);
nothing here decides.
"""

from __future__ import annotations

import logging
from typing import Any

from gauntlet.github.client import GitHubClient, NotFound, ReadOnlyToken
from gauntlet.github.hub import PAGE_SIZE
from gauntlet.known import KNOWN_LABEL, MAX_KNOWN_ISSUES, KnownFailures, known_failures
from gauntlet.models import Observation

__all__ = ["needs_rules", "read_known_failures"]

log = logging.getLogger(__name__)


def needs_rules(observation: Observation) -> bool:
    """Whether a run that must pay for the read has anything to match: a critical or major finding."""
    return any(f.severity in ("critical", "major") for f in observation.findings)


def read_known_failures(
    client: GitHubClient, repository: str, first: tuple[list[dict[str, Any]], bool] | None
) -> KnownFailures | None:
    """The rules of the open known-failure issues, newest first, at most :data:`MAX_KNOWN_ISSUES` of them.

    :param first: the first page as the start query read it, and whether another follows (``None``: read by REST).
    :returns: ``None`` when the token may not list issues (the run goes on without rules, as before they existed).
    :raises GitHubUnavailable: GitHub kept failing.
    """
    pages = MAX_KNOWN_ISSUES // PAGE_SIZE
    items: list[dict[str, Any]] = []
    more = True
    page = 1
    if first is not None:
        items, more = list(first[0]), first[1]
        page = 2
    while more and page <= pages:
        params = {
            "labels": KNOWN_LABEL,
            "state": "open",
            "sort": "created",
            "direction": "desc",
            "per_page": PAGE_SIZE,
            "page": page,
        }
        try:
            listed = client.request("GET", f"/repos/{repository}/issues", params=params)
        except (NotFound, ReadOnlyToken) as exc:  # no `issues: read`: known failures are optional
            log.warning("the known-failure issues could not be listed (%s); no rules this run", exc)
            return None if first is None else known_failures(items, more=True)
        listed = [item for item in listed if isinstance(item, dict)] if isinstance(listed, list) else []
        seen = {item.get("number") for item in items}
        items.extend(item for item in listed if item.get("number") not in seen)
        more = len(listed) == PAGE_SIZE
        page += 1
    return known_failures(items, more=more)
