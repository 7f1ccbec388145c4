"""Small server-rendered SVG charts: no JavaScript, no style attributes (the CSP forbids them).

Colours come from classes styled in site.css (``series-0`` … ``series-7``), so the
charts follow dark mode; sizes and positions are SVG presentation attributes.
The drawing is in a fixed ``viewBox`` and scales to the width of its box.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import count

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

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
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _text(x: float, y: float, text: str, anchor: str = "middle", css: str = "tick") -> str:
    return (
        f'<text class="{css}" x="{_num(x)}" y="{_num(y)}" text-anchor="{anchor}">'
        f"{escape(text)}</text>"
    )


def _y_label(frame: Frame, text: str) -> str:
    middle = _num(-(frame.top + frame.plot_height / 2))
    return (
        f'<text class="label" transform="rotate(-90)" x="{middle}" y="11" '
        f'text-anchor="middle">{escape(text)}</text>'
    )


def series_class(index: int) -> str:
    return f"series-{index % PALETTE}"


def _dash(index: int) -> str:
    # Every other line dashed: equal totals still show both colours through the gaps,
    # and the lines differ by more than their colour. Past the palette, dotted.
    if index >= PALETTE:
        return ' stroke-dasharray="2 4"'
    return ' stroke-dasharray="9 5"' if index % 2 else ""


def swatch(index: int) -> SafeString:
    """The legend's sample of series ``index``: the same colour and dashes as its line."""
    return mark_safe(  # noqa: S308 - no text in it
        '<svg class="swatch-line" viewBox="0 0 28 6" width="28" height="6" aria-hidden="true">'
        f'<line class="series {series_class(index)}" x1="0" x2="28" y1="3" y2="3" '
        f'stroke-width="3"{_dash(index)}/></svg>'
    )


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
) -> SafeString:
    """One ``<polyline>`` per series (one point per x value it has), axes and labels."""
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

    uid = next(_ids)
    parts = [
        f'<svg class="chart" viewBox="0 0 {frame.width} {frame.height}" role="img" '
        f'aria-labelledby="chart{uid}-title chart{uid}-desc" font-size="11">',
        f'<title id="chart{uid}-title">{escape(title)}</title>',
        f'<desc id="chart{uid}-desc">{escape(description)}</desc>',
        '<g class="grid">',
    ]
    bottom = frame.top + frame.plot_height
    for value in range(0, y_top + 1, y_step):
        y = y_at(value)
        parts.append(
            f'<line x1="{frame.left}" x2="{frame.width - frame.right}" '
            f'y1="{_num(y)}" y2="{_num(y)}"/>'
        )
        parts.append(_text(frame.left - 5, y + 4, str(value), anchor="end"))
    parts.append("</g>")

    x_step = nice_step(x_max, ticks=12) if x_max > 13 else 1
    parts.append('<g class="axis">')
    parts.append(
        f'<line x1="{frame.left}" x2="{frame.width - frame.right}" y1="{bottom}" y2="{bottom}"/>'
    )
    ticks = sorted({1, *range(x_step, x_max + 1, x_step)})
    for x in ticks:
        parts.append(_text(x_at(x), bottom + 14, str(x)))
    parts.append("</g>")
    parts.append(_text(frame.left + frame.plot_width / 2, frame.height - 4, x_label, css="label"))
    parts.append(_y_label(frame, y_label))

    if marker is not None and 1 <= marker <= x_max:
        x = _num(x_at(marker))
        parts.append(
            f'<line class="marker" x1="{x}" x2="{x}" y1="{frame.top}" y2="{bottom}" '
            'stroke-dasharray="4 3"/>'
        )

    # Every series shares the x positions: each is written out once, not once a point.
    xs = [_num(x_at(x)) for x in range(1, x_max + 1)]
    for index, item in enumerate(series):
        css = series_class(index)
        dash = _dash(index)
        points = " ".join(
            [f"{x},{y}" for x, y in zip(xs, _heights(item.values, frame, y_top), strict=False)]
        )
        parts.append(
            f'<polyline class="series {css}" fill="none" stroke-width="3" '
            f'stroke-linejoin="round" stroke-linecap="round"{dash} points="{points}">'
            f"<title>{escape(item.name)}</title></polyline>"
        )
        if item.values:
            last_x, last_y = len(item.values), item.values[-1]
            parts.append(
                f'<circle class="dot {css}" cx="{_num(x_at(last_x))}" cy="{_num(y_at(last_y))}"'
                ' r="3.5"/>'
            )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every text piece above is escaped


def _heights(values: Sequence[int], frame: Frame, y_top: int) -> list[str]:
    """Each value's y, as ``_num`` writes it: a review's chart has 480 points (8 players ×
    60 rounds), so the frame is read once and the formatting is inline, not a call a point."""
    top, height = frame.top, frame.plot_height
    return [f"{top + height * (1 - value / y_top):.1f}".removesuffix(".0") for value in values]


def bar_chart(
    values: Sequence[int],
    *,
    highlighted: Sequence[bool],
    title: str,
    description: str,
    y_label: str,
    frame: Frame | None = None,
) -> SafeString:
    """One bar per value, oldest on the left; highlighted bars get the ``won`` class."""
    frame = frame or Frame(height=170, bottom=22)
    highest = max(values, default=0)
    y_step = nice_step(max(highest, 1), ticks=4)
    y_top = max(y_step, math.ceil(highest / y_step) * y_step)
    slot = frame.plot_width / max(len(values), 1)
    bar = max(2.0, slot * 0.7)
    bottom = frame.top + frame.plot_height

    uid = next(_ids)
    parts = [
        f'<svg class="chart bars" viewBox="0 0 {frame.width} {frame.height}" role="img" '
        f'aria-labelledby="chart{uid}-title chart{uid}-desc" font-size="11">',
        f'<title id="chart{uid}-title">{escape(title)}</title>',
        f'<desc id="chart{uid}-desc">{escape(description)}</desc>',
        '<g class="grid">',
    ]
    for value in range(0, y_top + 1, y_step):
        y = frame.top + frame.plot_height * (1 - value / y_top)
        parts.append(
            f'<line x1="{frame.left}" x2="{frame.width - frame.right}" '
            f'y1="{_num(y)}" y2="{_num(y)}"/>'
        )
        parts.append(_text(frame.left - 5, y + 4, str(value), anchor="end"))
    parts.append("</g>")
    for index, (value, won) in enumerate(zip(values, highlighted, strict=True)):
        height = frame.plot_height * value / y_top
        x = frame.left + index * slot + (slot - bar) / 2
        css = "bar won" if won else "bar"
        parts.append(
            f'<rect class="{css}" x="{_num(x)}" y="{_num(bottom - height)}" '
            f'width="{_num(bar)}" height="{_num(height)}" rx="2"><title>{value}</title></rect>'
        )
    parts.append(
        f'<line class="baseline" x1="{frame.left}" x2="{frame.width - frame.right}" '
        f'y1="{bottom}" y2="{bottom}"/>'
    )
    parts.append(_y_label(frame, y_label))
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every text piece above is escaped
