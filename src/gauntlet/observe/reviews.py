"""A pull request's review comments and reviews, read from GitHub -> ``review`` findings.

Read by the run's start query (``github/start.py``), in the one GraphQL query that reads the state too; else
(GraphQL failed, or a list is longer than its page) two list calls (``pulls/{n}/comments`` and
``pulls/{n}/reviews``, 100 a page), each a conditional request with the ``ETag`` the PR's record remembers. The
findings are a snapshot of the PR's open review threads, so each run reads them whole and they replace
the iteration's earlier snapshot (an edit updates its finding; a closed thread leaves it).

Trust is read from each item's ``author_association`` (``OWNER``, ``MEMBER``, ``COLLABORATOR``), not from the
collaborator permission API: it costs no call (the permission API costs one per author), and a review comment
can only add findings, never lift a check or run a command, so the association's looseness (a read-only
collaborator counts) makes Gauntlet stricter at worst. Bots count only when the configuration lists them.
"""

from __future__ import annotations

import logging

from gauntlet.config import ReviewsConfig
from gauntlet.github.client import NotFound, ReadOnlyToken
from gauntlet.github.start import Reviews
from gauntlet.ingest.comment import DEFAULT_SEVERITY
from gauntlet.ingest.pr_reviews import Trust, review_findings
from gauntlet.models import Finding, ReviewLabel, Severity
from gauntlet.observe.github_facts import Remote

__all__ = ["read_reviews", "severity_table"]

log = logging.getLogger(__name__)


def severity_table(config: ReviewsConfig) -> dict[ReviewLabel, Severity | None]:
    """The documented severity table with the configuration's ``reviews.severity`` over it."""
    overrides = {label: None if value == "none" else value for label, value in config.severity.items()}
    return {**DEFAULT_SEVERITY, **overrides}


def read_reviews(
    remote: Remote, pr: int, *, pr_author: str | None, config: ReviewsConfig, listed: Reviews | None = None
) -> tuple[Finding, ...] | None:
    """The open review findings of pull request ``pr`` (unclassified); ``None`` when the token may not read them.

    A token without ``pull-requests: read`` (403) or a PR it cannot see (404) is not an error: the run goes on
    without them, and the review findings it knew stay as they were (``None`` is not "no threads").

    :param pr_author: the PR's author (from the payload), whose "done" replies close threads.
    :param listed: the review comments and reviews the run's start query read (``github/start.py``), if it did.
    :raises GitHubUnavailable: GitHub kept failing.
    """
    base = f"/repos/{remote.repository}/pulls/{pr}"
    if listed is not None:
        comments, reviews = listed.comments, listed.reviews
    else:
        try:
            # Conditional: with a long-lived token, reviews unchanged since the PR's last run cost nothing.
            comments = remote.client.pages(f"{base}/comments", conditional=True)
            reviews = remote.client.pages(f"{base}/reviews", conditional=True)
        except (ReadOnlyToken, NotFound):
            log.warning("review comments of PR #%d: the token may not read them; going on without", pr)
            return None
    trust = Trust(maintainers=config.maintainers, bots=config.bots, gauntlet_login=remote.bot_login)
    found = review_findings(comments, reviews, pr_author=pr_author, trust=trust, severity=severity_table(config))
    return tuple(found)
