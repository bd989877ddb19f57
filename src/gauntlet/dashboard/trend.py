"""The short trend a scheduled run writes to its job summary: a few numbers and a Mermaid chart, linking to
the published dashboard (GitHub renders Mermaid in Markdown)."""

from __future__ import annotations

from gauntlet.dashboard.figures import Dashboard
from gauntlet.effects.render import render

__all__ = ["TREND_DAYS", "trend_markdown"]

#: Days of the default branch shown in the summary chart.
TREND_DAYS = 14


def trend_markdown(dashboard: Dashboard, site_url: str | None = None) -> str:
    """The job-summary Markdown for ``dashboard``; ``site_url`` is where the site is published, if known."""
    branch = dashboard.default_branch
    days = branch.days[-TREND_DAYS:] if branch else ()
    # Mermaid's xychart takes a list of quoted labels; the days are Gauntlet's own text (dates), never input.
    labels = ", ".join(f'"{row.day[5:]}"' for row in days)
    return render(
        "dashboard/summary.md.j2",
        d=dashboard,
        branch=branch,
        days=days,
        labels=labels,
        totals=[row.green + row.red for row in days],
        reds=[row.red for row in days],
        site_url=site_url or "",
    )
