"""Counting what Gauntlet did over the demo, on the sandbox afterwards (never from Gauntlet's own account)."""

from __future__ import annotations

import re

from gauntlet.demo.printing import Tally
from gauntlet.demo.world import BOT, MAINTAINER, World

__all__ = ["count"]

_COMMENT_EDIT = re.compile(r"^/repos/[^/]+/[^/]+/issues/comments/\d+$")
_CHECK_RUNS = re.compile(r"^/repos/[^/]+/[^/]+/check-runs$")


def count(world: World) -> Tally:
    """Comments, edits, check runs, issues, PRs and state commits as the sandbox has them; API calls from the
    runs' reports. In the demo only Gauntlet edits comments and creates check runs, so the request log counts
    those."""
    repo = world.repo(MAINTAINER)
    comments = issues = pulls = 0
    for item in repo.get_issues(state="all"):
        comments += sum(1 for c in item.get_comments() if c.user.login == BOT)
        if item.user.login == BOT:
            pulls += item.pull_request is not None
            issues += item.pull_request is None
    writes = [(r["method"], str(r["path"]).split("?")[0], r["status"]) for r in world.sandbox.requests()]
    return Tally(
        runs=len(world.runs),
        comments=comments,
        comment_edits=sum(1 for m, p, s in writes if m == "PATCH" and s == 200 and _COMMENT_EDIT.match(p)),
        check_runs=sum(1 for m, p, s in writes if m == "POST" and s == 201 and _CHECK_RUNS.match(p)),
        issues=issues,
        pull_requests=pulls,
        state_commits=repo.get_commits(sha="gauntlet-state").totalCount,
        api_calls=sum(int(run.report.get("api_calls", 0)) for run in world.runs),
    )
