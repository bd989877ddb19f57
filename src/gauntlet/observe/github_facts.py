"""What a run reads from GitHub's API before deciding -> :class:`~gauntlet.models.GitHubFacts`.

Only what the decision needs, and only where it can matter: the PR of a fork's
``workflow_run`` (its payload names none), and on the default branch its first-parent
history and Gauntlet's revert PRs (what the revert safety needs). Each is a few calls.
What a PR's change touched is read once the state is loaded, with the fix diff, in one
compare (``action/state_reads.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from gauntlet.github.client import GitHubClient
from gauntlet.github.hub import Hub
from gauntlet.github.reverts import revert_pr_facts
from gauntlet.models import CommitFact, GitHubFacts

__all__ = ["HISTORY", "Remote", "github_facts"]

#: Default-branch commits read for culprit search, newest first (one call each).
HISTORY = 10


@dataclass(frozen=True)
class Remote:
    """GitHub, where the run may read it: the client, the repository, and Gauntlet's own login."""

    client: GitHubClient
    repository: str
    bot_login: str


def github_facts(
    remote: Remote, *, event: str, head_sha: str, pr: int | None, branch: str | None, default_branch: str
) -> GitHubFacts:
    """Read what the decision on ``head_sha`` needs.

    :param pr: the PR the payload names, if any.
    :raises GitHubUnavailable: GitHub kept failing.
    """
    if pr is None and event == "workflow_run":
        pr = _pull_of(remote, head_sha)
    if pr is None and branch == default_branch:
        return GitHubFacts(commits=_history(remote, head_sha), revert_prs=revert_pr_facts(_hub(remote)))
    if pr is None:
        return GitHubFacts()
    return GitHubFacts(pr=pr)


def _hub(remote: Remote) -> Hub:
    return Hub(client=remote.client, repo=remote.client.repo(remote.repository), bot_login=remote.bot_login)


def _history(remote: Remote, head: str) -> tuple[CommitFact, ...]:
    """First-parent history from ``head``, newest first, at most :data:`HISTORY` commits."""
    commits: list[CommitFact] = []
    sha: str | None = head
    while sha is not None and len(commits) < HISTORY:
        commits.append(CommitFact.from_api(remote.client.request("GET", f"/repos/{remote.repository}/commits/{sha}")))
        sha = commits[-1].parents[0] if commits[-1].parents else None
    return tuple(commits)


def _pull_of(remote: Remote, sha: str) -> int | None:
    """The open PR whose head is ``sha`` (``commits/{sha}/pulls``): a fork's run carries no PR in its payload."""
    pulls = remote.client.request("GET", f"/repos/{remote.repository}/commits/{sha}/pulls", params={"per_page": 100})
    open_pulls = [p for p in pulls if p.get("state") == "open"]
    for pull in open_pulls:
        if (pull.get("head") or {}).get("sha") == sha:
            return int(pull["number"])
    return int(open_pulls[0]["number"]) if open_pulls else None
