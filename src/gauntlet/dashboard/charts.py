"""Inline SVG charts laid out as plain shapes; the templates draw them, so every label is escaped there.

Two layouts cover the pages: **columns** (categories along x, one or more series stacked or side by side) and
**bars** (one horizontal bar per labelled item, for rankings whose labels are long). Each mark keeps its
category, series and value, which the page prints in the table beside the chart and in the mark's tooltip.
Colours are CSS classes (``s-green``, ``s-red``, …) so a light and a dark theme restyle them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Chart", "Mark", "Series", "Tick", "bars", "columns"]

_WIDTH = 640
_TOP = 12
_BOTTOM = 40
_LEFT = 44
_BAR_HEIGHT = 18
_LABEL_WIDTH = 260
#: Long labels are cut in the chart (the table beside it shows them whole).
_LABEL_CHARS = 38


@dataclass(frozen=True, slots=True)
class Series:
    """One named series of values, one per category, drawn in the colour class ``css``."""

    name: str
    css: str
    values: Sequence[float]


@dataclass(frozen=True, slots=True)
class Mark:
    """One data point: a rectangle with what it stands for."""

    x: float
    y: float
    width: float
    height: float
    css: str
    category: str
    series: str
    value: float


@dataclass(frozen=True, slots=True)
class Tick:
    """An axis label."""

    x: float
    y: float
    text: str
    anchor: str = "middle"


@dataclass(frozen=True, slots=True)
class Chart:
    """A laid-out chart: its marks, axis labels, legend and the caption that names it."""

    id: str
    title: str
    width: int
    height: int
    marks: tuple[Mark, ...]
    ticks: tuple[Tick, ...]
    legend: tuple[tuple[str, str], ...]
    #: A baseline (x1, y1, x2, y2).
    axis: tuple[float, float, float, float]


def columns(chart_id: str, title: str, categories: Sequence[str], series: Sequence[Series], *, stacked: bool) -> Chart:
    """Categories along x; the series stacked in one column, or side by side.

    Zero values draw no mark: a mark is a data point, and the table beside the chart still lists the zero.
    """
    height = 220
    plot_height = height - _TOP - _BOTTOM
    plot_width = _WIDTH - _LEFT - 8
    count = max(len(categories), 1)
    slot = plot_width / count
    if stacked:
        top = max((sum(s.values[i] for s in series) for i in range(len(categories))), default=0.0)
    else:
        top = max((v for s in series for v in s.values), default=0.0)
    scale = plot_height / top if top > 0 else 0.0
    base = _TOP + plot_height
    marks: list[Mark] = []
    group = max(len(series), 1)
    for i, category in enumerate(categories):
        x0 = _LEFT + i * slot + slot * 0.1
        width = slot * 0.8 if stacked else slot * 0.8 / group
        y = float(base)
        for j, one in enumerate(series):
            value = float(one.values[i])
            if value <= 0:
                continue
            h = max(value * scale, 1.0)
            x = x0 if stacked else x0 + j * width
            y_top = (y - h) if stacked else base - h
            marks.append(Mark(x, y_top, width, h, one.css, category, one.name, value))
            if stacked:
                y -= h
    every = max(1, -(-len(categories) // 8))  # at most 8 labels along x
    ticks = [
        Tick(_LEFT + i * slot + slot / 2, base + 16, _cut(category, 12))
        for i, category in enumerate(categories)
        if i % every == 0
    ]
    ticks += [Tick(_LEFT - 6, base + 4, "0", "end"), Tick(_LEFT - 6, _TOP + 8, _number(top), "end")]
    return Chart(
        id=chart_id,
        title=title,
        width=_WIDTH,
        height=height,
        marks=tuple(marks),
        ticks=tuple(ticks),
        legend=tuple((s.name, s.css) for s in series),
        axis=(_LEFT, base, _WIDTH - 8, base),
    )


def bars(chart_id: str, title: str, items: Sequence[tuple[str, float]], *, css: str, series: str) -> Chart:
    """One horizontal bar per ``(label, value)``, in the given order."""
    height = _TOP + len(items) * (_BAR_HEIGHT + 6) + 24
    plot_width = _WIDTH - _LABEL_WIDTH - 60
    top = max((value for _, value in items), default=0.0)
    scale = plot_width / top if top > 0 else 0.0
    marks: list[Mark] = []
    ticks: list[Tick] = []
    for i, (label, value) in enumerate(items):
        y = _TOP + i * (_BAR_HEIGHT + 6)
        width = max(value * scale, 1.0) if value > 0 else 0.0
        ticks.append(Tick(_LABEL_WIDTH - 6, y + _BAR_HEIGHT * 0.7, _cut(label, _LABEL_CHARS), "end"))
        ticks.append(Tick(_LABEL_WIDTH + width + 4, y + _BAR_HEIGHT * 0.7, _number(value), "start"))
        if value > 0:
            marks.append(Mark(_LABEL_WIDTH, y, width, _BAR_HEIGHT, css, label, series, float(value)))
    bottom = _TOP + len(items) * (_BAR_HEIGHT + 6)
    return Chart(
        id=chart_id,
        title=title,
        width=_WIDTH,
        height=height,
        marks=tuple(marks),
        ticks=tuple(ticks),
        legend=((series, css),),
        axis=(_LABEL_WIDTH, _TOP - 4, _LABEL_WIDTH, bottom),
    )


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _number(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.2f}"
