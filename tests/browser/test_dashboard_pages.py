"""The dashboard in a real browser: Debian's headless Chromium loads every page from the files, in a light and a
dark colour scheme, and the DOM is checked (every chart has data points matching its table, every table has
rows, every link resolves, nothing errs in the console, stored markup stays text). Screenshots are kept: in
``$GAUNTLET_SCREENSHOTS`` when set (``docs`` regenerates the pictures in docs/dashboard.md), else in pytest's
temporary folder.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from cdp import Browser, chromium

from gauntlet.cli import main
from gauntlet.dashboard.site import PAGES

REPO = Path(__file__).resolve().parents[2]
REPOSITORY_URL = "https://github.example/acme/widgets"

_spec = importlib.util.spec_from_file_location("bench_report", REPO / "bench" / "report.py")
assert _spec and _spec.loader
bench_report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_report)

#: What the page tells about itself, gathered in one evaluation.
FACTS = """(() => {
  const number = (text) => parseFloat(text.replace(/[^0-9.\\-]/g, ''));
  const charts = [...document.querySelectorAll('svg.chart')].map((svg) => {
    const id = svg.dataset.chart;
    const table = document.querySelector(`table[data-for="${id}"]`);
    const cells = table ? [...table.tBodies[0].querySelectorAll('td')].map((td) => number(td.textContent)) : [];
    const marks = [...svg.querySelectorAll('rect.mark[data-value]')];
    return {
      id, marks: marks.length, width: svg.getBoundingClientRect().width,
      values: marks.map((m) => number(m.dataset.value)).sort((a, b) => a - b),
      cells: cells.filter((v) => v > 0).sort((a, b) => a - b),
      fill: marks.length ? getComputedStyle(marks[0]).fill : null,
    };
  });
  return {
    title: document.title,
    charts,
    tables: [...document.querySelectorAll('table')].map((t) => t.tBodies[0] ? t.tBodies[0].rows.length : 0),
    links: [...document.querySelectorAll('a[href], link[href]')].map((a) => a.href),
    scripts: document.querySelectorAll('script, img, iframe, object').length,
    text: document.body.innerText,
    styled: !!document.querySelector('header') && getComputedStyle(document.querySelector('header')).display === 'flex',
    background: getComputedStyle(document.body).backgroundColor,
  };
})()"""


@pytest.fixture(scope="module")
def browser() -> Any:
    binary = chromium()
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing: .ci/run installs it (apt-get install chromium)")
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    chrome = Browser(binary)
    yield chrome
    chrome.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("dashboard")
    bench_report.write_state(folder / "state", prs=150, outcomes=3000, seed=3)
    out = folder / "site"
    code = main(["report", "--html", str(out), "--state-dir", str(folder / "state"),
                 "--repository-url", REPOSITORY_URL])  # fmt: skip
    assert code == 0
    return out


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    wanted = os.environ.get("GAUNTLET_SCREENSHOTS")
    return Path(wanted) if wanted else tmp_path_factory.mktemp("screenshots")


def _visit(browser: Browser, page: Path, *, dark: bool) -> tuple[dict[str, Any], list[str]]:
    since = len(browser.events)
    browser.open(page.as_uri(), dark=dark)
    facts = browser.evaluate(FACTS)
    browser.call("Runtime.evaluate", {"expression": "1"})  # flushes events queued during the load
    return facts, _errors(browser.events[since:])


def _errors(events: list[dict[str, Any]]) -> list[str]:
    found = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            found.append(f"exception: {params['exceptionDetails'].get('text')}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in {"error", "assert"}:
            found.append(f"console.{params['type']}: {params.get('args')}")
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            found.append(f"log: {params['entry'].get('text')}")
        elif method == "Network.loadingFailed":
            found.append(f"failed load: {params.get('errorText')}")
        elif method == "Page.javascriptDialogOpening":
            found.append(f"dialog: {params.get('message')}")
    return found


def _broken(links: list[str]) -> list[str]:
    broken = []
    for link in links:
        parts = urlsplit(link)
        if parts.scheme == "file":
            if not Path(unquote(parts.path)).is_file():
                broken.append(link)
        elif not link.startswith(REPOSITORY_URL + "/"):
            broken.append(link)  # the only web links are to the repository
    return broken


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_every_page_loads_clean_with_charts_tables_and_links(
    browser: Browser, site: Path, shots: Path, dark: bool
) -> None:
    theme = "dark" if dark else "light"
    chart_count = 0
    for name, title in PAGES.items():
        facts, errors = _visit(browser, site / name, dark=dark)
        assert facts["title"].startswith(title), name
        assert errors == [], (name, errors)
        assert facts["styled"], f"{name}: style.css did not load"
        for chart in facts["charts"]:
            assert chart["marks"] > 0, (name, chart["id"])
            assert chart["width"] > 100, (name, chart["id"])
            # Each data point is a number of the table beside the chart, and each non-zero number a point.
            assert chart["values"] == chart["cells"], (name, chart["id"])
        assert facts["tables"] and all(rows > 0 for rows in facts["tables"]), (name, facts["tables"])
        assert _broken(facts["links"]) == [], name
        assert {f"{site / other}" for other in PAGES} <= {unquote(urlsplit(u).path) for u in facts["links"]}
        assert facts["scripts"] == 0, f"{name}: stored markup became an element"
        chart_count += len(facts["charts"])
        browser.screenshot(shots / f"dashboard-{name.removesuffix('.html')}-{theme}.png")
    assert chart_count >= 8
    for name in PAGES:
        png = (shots / f"dashboard-{name.removesuffix('.html')}-{theme}.png").read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000, name


def test_the_dark_theme_restyles_page_and_charts(browser: Browser, site: Path) -> None:
    light, _ = _visit(browser, site / "index.html", dark=False)
    dark, _ = _visit(browser, site / "index.html", dark=True)
    assert light["background"] != dark["background"]
    assert light["charts"][0]["fill"] != dark["charts"][0]["fill"]


def test_stored_markup_is_shown_as_text(browser: Browser, site: Path) -> None:
    facts, errors = _visit(browser, site / "branch.html", dark=False)
    assert errors == []
    assert bench_report.HOSTILE in facts["text"]
    assert facts["scripts"] == 0
