"""The rendered pages: charts drawn from the figures with their numbers beside them, and stored text escaped."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from statefiles import finding, iteration, run, write

from gauntlet.dashboard.charts import Series, bars, columns
from gauntlet.dashboard.figures import collect
from gauntlet.dashboard.site import PAGES, build_site, render_pages
from gauntlet.dashboard.source import StateSource
from gauntlet.dashboard.trend import trend_markdown
from gauntlet.state.branch import BranchRecord
from gauntlet.state.pr import AcceptedRisk, PRRecord

HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)>"'


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes.extend(attrs)


def _state(tmp_path: Path) -> Path:
    pr = PRRecord(
        number=3,
        iterations=[iteration(1, "a", [finding("F", HOSTILE, HOSTILE)]), iteration(2, "b", [], ["F"])],
        accepted_risks=[AcceptedRisk(fingerprint="F", by=HOSTILE, reason=HOSTILE, at=iteration(1, "a", []).at)],
    )
    branch = BranchRecord(name="main", runs=[run("c1", 1, ["F"]), run("c1", 2, []), run("c2", 30, [])])
    return write(tmp_path, prs=[pr], branches=[branch])


def test_stored_markup_is_text_on_every_page(tmp_path: Path) -> None:
    pages = render_pages(collect(StateSource(_state(tmp_path))))
    assert set(pages) == set(PAGES)
    for name, html in pages.items():
        parsed = _Elements()
        parsed.feed(html)
        assert not {"script", "img", "iframe"} & set(parsed.tags), name
        assert not [a for a, _ in parsed.attributes if a.startswith("on")], name
        assert "<script>alert" not in html, name
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages["flaky.html"]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages["pulls.html"]


def test_each_chart_has_a_mark_for_every_non_zero_number_of_its_table(tmp_path: Path) -> None:
    pages = render_pages(collect(StateSource(_state(tmp_path))))
    html = pages["index.html"]
    marks = re.findall(r'<rect class="mark [^"]*"[^>]*data-value="([^"]+)"', html)
    table = html[html.index('<table class="numbers" data-for="runs">') :]
    table = table[: table.index("</table>")]
    cells = [c for c in re.findall(r"<td>([^<]*)</td>", table) if c != "0"]
    assert sorted(marks) == sorted(cells) == ["1", "1", "1"]  # day 1: 1 green + 1 red; day 2: 1 green
    assert 'data-for="iterations"' in pages["pulls.html"]


def test_a_page_without_data_says_so_and_draws_no_chart(tmp_path: Path) -> None:
    pages = render_pages(collect(StateSource(tmp_path)))
    assert "<svg" not in "".join(pages.values())
    assert "No flaky test seen." in pages["flaky.html"]
    assert "No runs of the default branch recorded yet." in pages["index.html"]


def test_links_go_to_the_repository_only_when_it_is_given(tmp_path: Path) -> None:
    d = collect(StateSource(_state(tmp_path)))
    assert "https://" not in render_pages(d)["pulls.html"]
    linked = render_pages(d, repository_url="https://github.example/o/r/")["pulls.html"]
    assert '<a href="https://github.example/o/r/pull/3">#3</a>' in linked


def test_the_site_is_written_with_its_stylesheet(tmp_path: Path) -> None:
    out = tmp_path / "site"
    build_site(_state(tmp_path / "state"), out)
    assert sorted(p.name for p in out.iterdir()) == sorted([*PAGES, "style.css"])
    assert "prefers-color-scheme: dark" in (out / "style.css").read_text()


def test_stacked_columns_scale_to_the_tallest_and_skip_zeros() -> None:
    chart = columns("c", "t", ["d1", "d2"], [Series("g", "s-green", [2, 0]), Series("r", "s-red", [2, 1])],
                    stacked=True)  # fmt: skip
    assert [(m.category, m.series, m.value) for m in chart.marks] == [("d1", "g", 2), ("d1", "r", 2), ("d2", "r", 1)]
    tallest = chart.marks[0].height + chart.marks[1].height
    assert abs(chart.marks[2].height * 4 - tallest) < 1e-6
    assert chart.marks[1].y + chart.marks[1].height == chart.marks[0].y  # red sits on green


def test_bars_keep_their_order_and_cut_long_labels() -> None:
    chart = bars("b", "t", [("x" * 80, 4.0), ("short", 2.0)], css="s-red", series="runs")
    assert chart.marks[0].width == 2 * chart.marks[1].width
    assert chart.ticks[0].text.endswith("…") and len(chart.ticks[0].text) < 80
    assert chart.marks[0].category == "x" * 80  # the tooltip and the table keep it whole


def test_the_trend_has_numbers_a_mermaid_chart_and_the_link(tmp_path: Path) -> None:
    text = trend_markdown(collect(StateSource(_state(tmp_path))), "https://acme.github.io/widgets/")
    assert "| red runs on `main` | 1 of 3 |" in text
    assert 'x-axis ["11-02", "11-03"]' in text and "bar [2, 1]" in text and "line [1, 0]" in text
    assert text.count("```") == 2
    assert "[Open the dashboard](https://acme.github.io/widgets/)" in text
