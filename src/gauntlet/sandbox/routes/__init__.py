"""The REST routes, one module per area of GitHub's API; ``router()`` merges them."""

from __future__ import annotations

from gauntlet.sandbox.http import Router


def router() -> Router:
    """Every API route the sandbox serves."""
    from gauntlet.sandbox.routes import actions, checks, contents, gitdata, issues, pulls, repos, reviews

    merged = Router()
    for module in (repos, gitdata, contents, issues, pulls, reviews, checks, actions):
        merged.extend(module.router)
    return merged
