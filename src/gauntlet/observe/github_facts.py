"""What a run reads from GitHub's API before deciding -> :class:`~gauntlet.models.GitHubFacts`.

Only what the decision needs, and only where it can matter: the PR of a fork's
``workflow_run`` (its payload names none; a run of a push to the default branch has none). What a PR's change
touched is read once the state is loaded, with the fix diff, in one compare (``action/state_reads.py``); so are a
default-branch run's history and Gauntlet's revert PRs, which depend on what its state holds
(``action/branch_reads.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from gauntlet.github.client import GitHubClient
from gauntlet.models import GitHubFacts

__all__ = ["Remote", "github_facts", "pr_unknown"]


@dataclass(frozen=True)
class Remote:
    """GitHub, where the run may read it: the client, the repository, and Gauntlet's own login."""

    client: GitHubClient
    repository: str
    bot_login: str


def github_facts(
    remote: Remote,
    *,
    event: str,
    head_sha: str,
    pr: int | None,
    branch: str | None,
    default_branch: str,
    trigger: str | None = None,
) -> GitHubFacts:
    """Read what the decision on ``head_sha`` needs before the state is loaded.

    :param pr: the PR the payload names, if any.
    :param trigger: the event that started the workflow run a ``workflow_run`` reports on.
    :raises GitHubUnavailable: GitHub kept failing.
    """
    if pr is None and pr_unknown(event, trigger=trigger, branch=branch, default_branch=default_branch):
        pr = _pull_of(remote, head_sha)
    if pr is None:
        return GitHubFacts()
    return GitHubFacts(pr=pr)


def pr_unknown(event: str | None, *, trigger: str | None, branch: str | None, default_branch: str) -> bool:
    """Whether a run whose payload names no PR may still be a PR's: a ``workflow_run`` (a fork's PR names none)
    but one on a push to the default branch, which belongs to no PR."""
    if event != "workflow_run" or trigger == "merge_group":  # a merge queue's commit belongs to no PR
        return False
    return not (trigger == "push" and branch == default_branch)


def _pull_of(remote: Remote, sha: str) -> int | None:
    """The open PR whose head is ``sha`` (``commits/{sha}/pulls``): a fork's run carries no PR in its payload."""
    pulls = remote.client.request("GET", f"/repos/{remote.repository}/commits/{sha}/pulls", params={"per_page": 100})
    open_pulls = [p for p in pulls if p.get("state") == "open"]
    for pull in open_pulls:
        if (pull.get("head") or {}).get("sha") == sha:
            return int(pull["number"])
    return int(open_pulls[0]["number"]) if open_pulls else None
