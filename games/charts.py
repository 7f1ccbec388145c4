"""Small server-rendered SVG charts: the geometry here, the SVG in templates/charts/.

No JavaScript and no style attributes (the CSP forbids them): colours come from classes
styled in site.css (``series-0`` … ``series-7``), so the charts follow dark mode; sizes
and positions are SVG presentation attributes, in a fixed ``viewBox`` that scales to the
width of its box. Coordinates are strings as the SVG writes them (one decimal at most).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import count
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from games.coach.distribution import Distribution

#: Distinct colours in site.css; more players reuse them with a dashed line.
PALETTE = 8
_ids = count(1)


@dataclass(frozen=True)
class Series:
    name: str
    #: The y values at x = 1, 2, …
    values: Sequence[int]


@dataclass(frozen=True)
class Frame:
    width: int = 360
    height: int = 220
    left: int = 40
    right: int = 12
    top: int = 12
    bottom: int = 38

    @property
    def plot_width(self) -> int:
        return self.width - self.left - self.right

    @property
    def plot_height(self) -> int:
        return self.height - self.top - self.bottom

    @property
    def plot_right(self) -> int:
        return self.width - self.right

    @property
    def plot_bottom(self) -> int:
        return self.top + self.plot_height


@dataclass(frozen=True)
class Label:
    """A text at (x, y)."""

    x: str
    y: str
    text: str


@dataclass(frozen=True)
class GridLine:
    """A line across the plot at height ``y``, its value written at the left."""

    y: str
    text_y: str
    text: str


@dataclass(frozen=True)
class Style:
    """A series' colour class and dashes (the legend's sample repeats its line's)."""

    css: str
    dash: str  # stroke-dasharray, or "" for a solid line


@dataclass(frozen=True)
class Line:
    name: str
    style: Style
    points: str
    #: The last point's (x, y), marked with a dot; None for an empty series.
    dot: tuple[str, str] | None


@dataclass(frozen=True)
class Bar:
    value: int
    won: bool
    x: str
    y: str
    width: str
    height: str
    #: What the bar's tooltip says, when not its value.
    title: str = ""


@dataclass(frozen=True)
class Mark:
    """A score marked across the plot at ``x``, written above it in its series' colour."""

    x: str
    text_y: str
    text: str
    style: Style


@dataclass(frozen=True)
class Chart:
    """What a chart template draws: its frame, the y grid and whichever of the rest it has."""

    uid: int
    frame: Frame
    title: str
    description: str
    y_label: Label
    grid: list[GridLine]
    x_ticks: list[Label] | None = None
    x_label: Label | None = None
    marker: str | None = None  # the x of the dashed line marking a round
    lines: list[Line] | None = None
    bars: list[Bar] | None = None
    marks: list[Mark] | None = None


def nice_step(largest: float, ticks: int = 5) -> int:
    """A round step (1, 2, 5 × 10ⁿ, or 25 × 10ⁿ) giving at most ``ticks`` intervals."""
    if largest <= 0:
        return 1
    magnitude = 10 ** max(0, math.floor(math.log10(largest / ticks)))
    for factor in (1, 2, 2.5, 5, 10):
        step = factor * magnitude
        if step == int(step) and largest / step <= ticks:
            return int(step)
    return int(10 * magnitude)


def _num(value: float) -> str:
    return f"{value:.1f}".removesuffix(".0")


def style(index: int) -> Style:
    # Every other line dashed: equal totals still show both colours through the gaps,
    # and the lines differ by more than their colour. Past the palette, dotted.
    if index >= PALETTE:
        dash = "2 4"
    else:
        dash = "9 5" if index % 2 else ""
    return Style(f"series-{index % PALETTE}", dash)


def _grid(frame: Frame, y_top: int, y_step: int) -> list[GridLine]:
    lines = []
    for value in range(0, y_top + 1, y_step):
        y = frame.top + frame.plot_height * (1 - value / y_top)
        lines.append(GridLine(_num(y), _num(y + 4), str(value)))
    return lines


def _y_label(frame: Frame, text: str) -> Label:
    # Drawn rotated a quarter turn: x runs down the page.
    return Label(_num(-(frame.top + frame.plot_height / 2)), "11", text)


def line_chart(
    series: Sequence[Series],
    *,
    x_max: int,
    title: str,
    description: str,
    x_label: str,
    y_label: str,
    marker: int | None = None,
    frame: Frame | None = None,
) -> Chart:
    """One line per series (one point per x value it has), axes and labels."""
    frame = frame or Frame()
    x_max = max(x_max, 1, *(len(s.values) for s in series))
    highest = max((max(s.values) for s in series if s.values), default=0)
    y_step = nice_step(max(highest, 1))
    y_top = max(y_step, math.ceil(highest / y_step) * y_step)

    def x_at(x: float) -> float:
        if x_max == 1:
            return frame.left + frame.plot_width / 2
        return frame.left + (x - 1) * frame.plot_width / (x_max - 1)

    def y_at(y: float) -> float:
        return frame.top + frame.plot_height * (1 - y / y_top)

    x_step = nice_step(x_max, ticks=12) if x_max > 13 else 1
    ticks = sorted({1, *range(x_step, x_max + 1, x_step)})
    bottom = frame.plot_bottom
    xs = [_num(x_at(x)) for x in range(1, x_max + 1)]
    lines = []
    for index, item in enumerate(series):
        points = " ".join(f"{x},{_num(y_at(y))}" for x, y in zip(xs, item.values, strict=False))
        dot = None
        if item.values:
            dot = (_num(x_at(len(item.values))), _num(y_at(item.values[-1])))
        lines.append(Line(item.name, style(index), points, dot))
    return Chart(
        uid=next(_ids),
        frame=frame,
        title=title,
        description=description,
        y_label=_y_label(frame, y_label),
        grid=_grid(frame, y_top, y_step),
        x_ticks=[Label(_num(x_at(x)), _num(bottom + 14), str(x)) for x in ticks],
        x_label=Label(_num(frame.left + frame.plot_width / 2), _num(frame.height - 4), x_label),
        marker=_num(x_at(marker)) if marker is not None and 1 <= marker <= x_max else None,
        lines=lines,
    )


def bar_chart(
    values: Sequence[int],
    *,
    highlighted: Sequence[bool],
    title: str,
    description: str,
    y_label: str,
    frame: Frame | None = None,
) -> Chart:
    """One bar per value, oldest on the left; highlighted bars are marked ``won``."""
    frame = frame or Frame(height=170, bottom=22)
    highest = max(values, default=0)
    y_step = nice_step(max(highest, 1), ticks=4)
    y_top = max(y_step, math.ceil(highest / y_step) * y_step)
    slot = frame.plot_width / max(len(values), 1)
    width = max(2.0, slot * 0.7)
    bars = []
    for index, (value, won) in enumerate(zip(values, highlighted, strict=True)):
        height = frame.plot_height * value / y_top
        x = frame.left + index * slot + (slot - width) / 2
        y = frame.plot_bottom - height
        bars.append(Bar(value, won, _num(x), _num(y), _num(width), _num(height)))
    return Chart(
        uid=next(_ids),
        frame=frame,
        title=title,
        description=description,
        y_label=_y_label(frame, y_label),
        grid=_grid(frame, y_top, y_step),
        bars=bars,
    )


def distribution_chart(
    distribution: Distribution,
    scores: Sequence[int],
    *,
    title: str,
    description: str,
    x_label: str,
    y_label: str,
    frame: Frame | None = None,
) -> Chart:
    """A member's scores over the final scores of the coach's optimal play.

    ``distribution``: ``games.coach.distribution.Distribution`` (``games.rarity.lookup(...)
    .distribution``, None there when the rules have none: then draw no chart); ``scores``:
    the final scores to mark, each a line across the plot in ``style(i)``'s colour, its
    figure above it (a legend of the caller's can use ``style(i)`` too). The distribution
    is drawn as bars of whole-number widths (1, 2, 5 × 10ⁿ points), each bar's height the
    share of games, in %, ending in it, from the 0.1st to the 99.9th percentile (and any
    marked score outside them): its long tail of Yahtzee bonuses would flatten the rest.
    The texts are the caller's, translated; ``templates/charts/chart.html`` draws it.
    """
    frame = frame or Frame(height=200, bottom=38)
    low = min(distribution.percentile(0.1), *scores) if scores else distribution.percentile(0.1)
    high = max(distribution.percentile(99.9), *scores) if scores else distribution.percentile(99.9)
    width = nice_step(max(high - low, 1), ticks=30)
    start = (low // width) * width
    stop = (high // width + 1) * width  # the bins cover start … stop − 1
    bins = range(start, stop, width)
    shares = [
        100 * (distribution.share_below(b + width) - distribution.share_below(b)) for b in bins
    ]
    highest = max(shares, default=0.0)
    y_step = nice_step(max(highest, 1), ticks=4)
    y_top = max(y_step, math.ceil(highest / y_step) * y_step)

    def x_at(score: float) -> float:
        return frame.left + (score - start) * frame.plot_width / (stop - start)

    slot = frame.plot_width * width / (stop - start)
    bars = []
    for b, share in zip(bins, shares, strict=True):
        height = frame.plot_height * share / y_top
        bars.append(
            Bar(
                round(share),
                False,
                _num(x_at(b)),
                _num(frame.plot_bottom - height),
                _num(max(slot - 1, 0.5)),
                _num(height),
                title=f"{b}–{b + width - 1}: {share:.1f} %",
            )
        )
    x_step = nice_step(stop - start, ticks=6)
    first_tick = -(-start // x_step) * x_step
    bottom = frame.plot_bottom
    ticks = [
        Label(_num(x_at(x)), _num(bottom + 14), str(x)) for x in range(first_tick, stop + 1, x_step)
    ]
    marks = [
        # Half a point in: a score's bar spans it, the line stands in its middle.
        Mark(_num(x_at(score + 0.5)), _num(frame.top + 9), str(score), style(index))
        for index, score in enumerate(scores)
    ]
    return Chart(
        uid=next(_ids),
        frame=frame,
        title=title,
        description=description,
        y_label=_y_label(frame, y_label),
        grid=_grid(frame, y_top, y_step),
        x_ticks=ticks,
        x_label=Label(_num(frame.left + frame.plot_width / 2), _num(frame.height - 4), x_label),
        bars=bars,
        marks=marks,
    )
