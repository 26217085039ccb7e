"""How the report's plots show series, labels and rates.

- One colour per series, the same in every plot: plotly's Dark24 (24 colours that stay
  apart on white) in series order, then colours spread round the hue circle by the golden
  angle, so 30 series get 30 colours.
- Long labels are shortened on axes and in legends (wrapped onto two lines on a category
  axis, cut with "…" past that); the hover shows the full text.
- Rates are percentages as the terminal shows them (`text.percent`): hover, ticks and
  colour bars use the d3 spelling of the same format.

Every label reaching plotly goes through `plot_text` (page.py) first.
"""

from __future__ import annotations

import colorsys
import textwrap
from collections.abc import Iterable, Sequence
from typing import Any

import plotly.graph_objects as go
from plotly.colors import qualitative

from taurec.evaluator.report.page import plot_text

#: `text.percent` in d3-format: one decimal ("1.7%"); ticks drop a trailing ".0"
PERCENT = ".1%"
PERCENT_TICKS = ".1~%"
#: a rate axis: 0% to 100%, ticks as percentages
RATE_AXIS: dict[str, Any] = {"range": [-0.02, 1.05], "tickformat": PERCENT_TICKS}

#: characters of a legend entry or a plot's one-line label before it is cut
LEGEND_WIDTH = 28
#: characters per line of a category tick label, and its lines
TICK_WIDTH = 16
TICK_LINES = 2
#: the most categories whose ticks are wrapped (more are turned and shortened instead)
WRAPPED_TICKS = 8

_GOLDEN_ANGLE = 137.508 / 360


def palette(n: int) -> list[str]:
    """`n` distinct colours: Dark24, then generated ones (golden-angle hues, alternating
    lightness) that repeat none of them."""
    base = list(qualitative.Dark24)
    colours = base[:n]
    i = 0
    while len(colours) < n:
        hue = (0.07 + i * _GOLDEN_ANGLE) % 1.0
        lightness = (0.32, 0.45, 0.58)[i % 3]
        r, g, b = colorsys.hls_to_rgb(hue, lightness, 0.75)
        colour = f"#{round(r * 255):02X}{round(g * 255):02X}{round(b * 255):02X}"
        if colour not in colours:
            colours.append(colour)
        i += 1
    return colours


def series_colours(names: Iterable[str]) -> dict[str, str]:
    """Each name its colour, by its first place in `names`."""
    unique = list(dict.fromkeys(names))
    return dict(zip(unique, palette(len(unique)), strict=True))


def short(label: str, width: int = LEGEND_WIDTH) -> str:
    """`label` on one line of at most `width` characters, escaped for plotly."""
    flat = " ".join(str(label).split())
    return plot_text(flat if len(flat) <= width else flat[: width - 1] + "…")


def tick_text(label: str) -> str:
    """`label` as a category tick: wrapped onto at most TICK_LINES lines, each escaped."""
    lines = textwrap.wrap(
        " ".join(str(label).split()) or "–",
        TICK_WIDTH,
        max_lines=TICK_LINES,
        placeholder="…",
        break_long_words=True,
    )
    return "<br>".join(plot_text(line) for line in lines)


def category_axis(labels: Sequence[str]) -> dict[str, Any]:
    """Layout of an axis whose categories are `labels` (given to the traces as
    `plot_text(label)`): the full text stays the category; the tick shows it wrapped, or
    past WRAPPED_TICKS categories (ticks turned on their side) on one shortened line."""
    few = len(labels) <= WRAPPED_TICKS
    return {
        "tickmode": "array",
        "tickvals": [plot_text(x) for x in labels],
        "ticktext": [tick_text(x) if few else short(x, TICK_WIDTH + 8) for x in labels],
        "automargin": True,
    }


def hover(name: str, x: str, y: str, *, extra: str = "") -> dict[str, Any]:
    """Trace settings for a hover naming the series in full: `x` and `y` are the hover's
    plotly templates (e.g. "%{y:.1%}"); the name travels in `meta`, so a label holding
    `%{...}` is shown as text, never read as a template."""
    return {
        "meta": plot_text(name),
        "hovertemplate": f"%{{meta}}<br>{x}: {y}{extra}<extra></extra>",
    }


def series_trace(
    trace: type[go.Scatter] | type[go.Bar], name: str, colour: str, **settings: Any
) -> go.Scatter | go.Bar:
    """A trace of one series: its shortened name in the legend, its colour."""
    style = {"marker": {"color": colour}}
    if trace is go.Scatter:
        style["line"] = {"color": colour}
    return trace(name=short(name), **style, **settings)


def points(fig: go.Figure) -> int:
    """The distinct marks `fig` shows: cells of a heat map, bars, and markers at distinct
    places (a line drawn through markers of another trace adds none; a band drawn only as
    a backdrop, hoverinfo "skip", neither)."""
    cells = 0
    marks: set[tuple[Any, ...]] = set()
    for i, trace in enumerate(fig.data):
        if getattr(trace, "hoverinfo", None) == "skip":
            continue
        if getattr(trace, "z", None) is not None:
            cells += sum(v is not None for row in trace.z for v in row)
            continue
        xs = list(trace.x) if trace.x is not None else [None] * len(trace.y or ())
        ys = list(trace.y) if trace.y is not None else [None] * len(xs)
        bar = trace.type == "bar"
        marks |= {(i if bar else "at", x, y) for x, y in zip(xs, ys, strict=False)}
    return cells + len(marks)
