"""Rendering the dashboard: the figures as static HTML pages with inline SVG, through Jinja2's sandbox.

Every value reaches a template as data and is HTML-escaped there (``autoescape``); nothing from the state is
ever template source. The pages need no JavaScript: charts are inline SVG, styled by ``style.css`` for a light
and a dark theme (``prefers-color-scheme``).
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gauntlet.dashboard.charts import Chart, Series, bars, columns
from gauntlet.dashboard.figures import Dashboard, collect
from gauntlet.dashboard.source import StateSource
from gauntlet.effects.render import templates_dir
from gauntlet.errors import InputError

if TYPE_CHECKING:
    from jinja2.sandbox import SandboxedEnvironment

__all__ = ["PAGES", "Figure", "build_site", "render_pages"]

#: File name -> navigation title, in navigation order.
PAGES: dict[str, str] = {
    "index.html": "Overview",
    "branch.html": "Default branch",
    "flaky.html": "Flaky tests",
    "failures.html": "Failures",
    "pulls.html": "Pull requests",
    "proposals.html": "Self-healing",
}
#: Items in a ranking chart (the table beside it lists more).
_CHART_ITEMS = 15


@dataclass(frozen=True, slots=True)
class Figure:
    """A chart and the table of its numbers, shown side by side."""

    chart: Chart
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


def build_site(
    state_root: Path,
    out: Path,
    *,
    default_branch: str = "main",
    repository_url: str | None = None,
    as_of: datetime | None = None,
) -> Dashboard:
    """Read the state under ``state_root`` and write the site into ``out`` (created; pages replaced).

    ``as_of`` is the time the pages say the state is from (by default the newest time in it).

    :returns: the figures drawn, for a summary.
    :raises InputError: ``out`` cannot be written.
    """
    dashboard = collect(StateSource(state_root), default_branch, as_of)
    pages = render_pages(dashboard, repository_url=repository_url)
    try:
        out.mkdir(parents=True, exist_ok=True)
        for name, html in pages.items():
            (out / name).write_text(html, encoding="utf-8")
        shutil.copyfile(templates_dir() / "dashboard" / "style.css", out / "style.css")
    except OSError as exc:
        raise InputError(f"cannot write the dashboard to {out}: {exc.strerror}") from exc
    return dashboard


def render_pages(dashboard: Dashboard, *, repository_url: str | None = None) -> dict[str, str]:
    """Every page of the site, by file name."""
    env = _environment()
    figures = _figures(dashboard)
    common: dict[str, Any] = {
        "d": dashboard,
        "pages": PAGES,
        "repository_url": (repository_url or "").rstrip("/"),
        "figures": figures,
    }
    return {
        name: env.get_template(f"dashboard/{name}.j2").render(page=name, title=title, **common)
        for name, title in PAGES.items()
    }


def _figures(d: Dashboard) -> dict[str, Figure]:
    found: dict[str, Figure] = {}
    branch = d.default_branch
    if branch and branch.days:
        days = [row.day for row in branch.days]
        found["runs"] = _columns(
            "runs",
            f"Runs on {branch.name} per day",
            "day",
            days,
            [Series("green", "s-green", [r.green for r in branch.days]),
             Series("red", "s-red", [r.red for r in branch.days])],
            stacked=True,
        )  # fmt: skip
    ended = [b for b in (branch.breaks if branch else ()) if b.hours_to_green is not None][:_CHART_ITEMS]
    if ended:
        found["green"] = _bars(
            "green", "Hours to green after each break", "break", "hours",
            [(f"{b.opened_at:%m-%d %H:%M} {b.job}", float(b.hours_to_green or 0)) for b in ended], "s-red",
        )  # fmt: skip
    if branch and any(n for _, n in branch.revert_status):
        found["reverts"] = _bars(
            "reverts", "Revert PRs by status", "status", "revert PRs",
            [(name, float(n)) for name, n in branch.revert_status], "s-accent",
        )  # fmt: skip
    if d.flaky:
        found["flaky"] = _bars(
            "flaky", "Flaky tests by failed runs", "test", "failed runs",
            [(r.label, float(r.failures)) for r in d.flaky[:_CHART_ITEMS]], "s-amber",
        )  # fmt: skip
    if d.failures:
        found["failures"] = _bars(
            "failures", "Most frequent failures", "failure", "failed runs",
            [(r.label, float(r.failures)) for r in d.failures[:_CHART_ITEMS]], "s-red",
        )  # fmt: skip
    if d.prs.total:
        found["iterations"] = _columns(
            "iterations", "Pull requests by iterations to green", "iterations", [b for b, _ in d.prs.histogram],
            [Series("pull requests", "s-accent", [n for _, n in d.prs.histogram])], stacked=True,
        )  # fmt: skip
    if d.proposals:
        shown = d.proposals[:_CHART_ITEMS]
        found["defects"] = _columns(
            "defects", "Defects before and after each proposal", "proposal", [p.id for p in shown],
            [Series("before", "s-red", [p.before for p in shown]),
             Series("after", "s-green", [p.after for p in shown])],
            stacked=False,
        )  # fmt: skip
        found["status"] = _bars(
            "status", "Proposals by status", "status", "proposals",
            [(name, float(n)) for name, n in d.proposal_status], "s-accent",
        )  # fmt: skip
    # A chart with nothing to draw is left out (the page says there is no data instead).
    return {key: figure for key, figure in found.items() if figure.chart.marks}


def _columns(
    chart_id: str, title: str, what: str, categories: Sequence[str], series: Sequence[Series], *, stacked: bool
) -> Figure:
    chart = columns(chart_id, title, categories, series, stacked=stacked)
    rows = tuple((c, *(_value(s.values[i]) for s in series)) for i, c in enumerate(categories))
    return Figure(chart, (what, *(s.name for s in series)), rows)


def _bars(chart_id: str, title: str, what: str, unit: str, items: Sequence[tuple[str, float]], css: str) -> Figure:
    chart = bars(chart_id, title, items, css=css, series=unit)
    return Figure(chart, (what, unit), tuple((label, _value(value)) for label, value in items))


def _value(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.2f}"


def _when(value: datetime | None) -> str:
    return "-" if value is None else value.strftime("%Y-%m-%d %H:%M UTC")


def _percent(value: float) -> str:
    return f"{value * 100:.0f}%"


@cache
def _environment() -> SandboxedEnvironment:
    from jinja2 import FileSystemLoader, StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    env = SandboxedEnvironment(
        loader=FileSystemLoader(templates_dir()),
        undefined=StrictUndefined,
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["when"] = _when
    env.filters["percent"] = _percent
    env.filters["short"] = lambda sha: (sha or "-")[:7]
    env.filters["num"] = _value
    return env
