"""The report's HTML: one self-contained page (plotly.js inlined, no network) with each
section's plots and the tables of their numbers side by side.

Every label, task id and name reaching the page comes from logs anyone can write, so
every text is HTML-escaped here, in tables and in plot labels alike (plotly renders a
few HTML tags in its labels; escaped, they show as text).
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio
from plotly.offline import get_plotlyjs

from taurec.evaluator.text import percent


@dataclass(frozen=True)
class Percent:
    """A rate, shown as the terminal shows it: 0.01667 as "1.7%"."""

    value: float | None


@dataclass(frozen=True)
class Link:
    """Text that links to `href` (a relative or absolute URL, escaped when written)."""

    text: str
    href: str


@dataclass(frozen=True)
class Estimate:
    """A value with its 95% CI, as the terminal shows it: "-1.2 [-3.4, 0.5]"."""

    value: float | None
    low: float | None
    high: float | None
    digits: int = 1
    rate: bool = False  # each shown as a percentage ("50.0% [20.1%, 79.9%]")


Cell = str | int | float | Percent | Estimate | Link | None


@dataclass
class Table:
    caption: str
    headers: list[str]
    rows: list[list[Cell]]
    wide: bool = False  # takes the section's whole width, below its plots


@dataclass
class Section:
    key: str  # the anchor: letters, digits and dashes
    title: str
    intro: str
    figures: list[go.Figure] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)


def text(value: object) -> str:
    """`value` as HTML text, quotes included (for the page itself)."""
    return html.escape(str(value), quote=True)


def plot_text(value: object) -> str:
    """`value` for a plotly label: `<`, `>` and `&` escaped (plotly renders a few tags and
    decodes these entities back to text, but shows `&quot;` as it is)."""
    return html.escape(str(value), quote=False)


_CODE = re.compile(r"`([^`]+)`")


def prose(value: str) -> str:
    """`value` as HTML text, with `backticked` spans set as code."""
    return _CODE.sub(r"<code>\1</code>", text(value))


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def cell(value: Cell) -> str:
    """A cell's text: "–" for no value, rates as percentages, numbers to 4 digits."""
    if isinstance(value, Percent):
        return "–" if _missing(value.value) else percent(value.value)
    if isinstance(value, Link):
        return value.text
    if isinstance(value, Estimate):
        v, lo, hi = (
            "–" if _missing(x) else percent(x) if value.rate else f"{x:.{value.digits}f}"
            for x in (value.value, value.low, value.high)
        )
        return v if lo == hi == "–" else f"{v} [{lo}, {hi}]"
    if _missing(value):
        return "–"
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) >= 1e-3 or value == 0 else f"{value:.2e}"
    return str(value)


def _td(value: Cell) -> str:
    if isinstance(value, Link):
        return f'<td class="path"><a href="{text(value.href)}">{text(value.text)}</a></td>'
    if isinstance(value, Percent) and value.value is not None and not _missing(value.value):
        exact = text(repr(float(value.value)))  # the exact rate on hover
        return f'<td class="num" title="{exact}">{text(cell(value))}</td>'
    if isinstance(value, int | float | Percent | Estimate):
        return f'<td class="num">{text(cell(value))}</td>'
    return f"<td>{text(cell(value))}</td>"


def _table(table: Table) -> str:
    head = "".join(f'<th scope="col">{text(h)}</th>' for h in table.headers)
    body = "".join("<tr>" + "".join(_td(v) for v in row) + "</tr>" for row in table.rows)
    kind = "table wide" if table.wide else "table"
    return (
        f'<div class="{kind}"><table><caption>{text(table.caption)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
    )


_CONFIG: dict[str, Any] = {"displaylogo": False, "responsive": True}
HEIGHT = 380
#: past this many legend entries the legend goes below the plot, in rows
LEGEND_BESIDE = 10
#: past this many categories on the x axis the plot takes the whole row
CATEGORIES_BESIDE = 12


def _legend_entries(fig: go.Figure) -> int:
    return sum(t.showlegend is not False for t in fig.data) if len(fig.data) > 1 else 0


def _figure(fig: go.Figure, div_id: str) -> str:
    # automargin: tick labels and axis titles get the room they need, never cut off
    fig.update_layout(template="plotly_white", margin={"l": 50, "r": 20, "t": 50, "b": 50})
    fig.update_xaxes(automargin=True)
    fig.update_yaxes(automargin=True)
    entries = _legend_entries(fig)
    wide = entries > LEGEND_BESIDE or len(fig.layout.xaxis.tickvals or ()) > CATEGORIES_BESIDE
    if entries > LEGEND_BESIDE:  # beside the plot, a long legend would leave it no room
        fig.update_layout(
            legend={"orientation": "h", "yanchor": "top", "y": -0.2, "xanchor": "left", "x": 0},
            height=HEIGHT + 24 * math.ceil(entries / 4),
        )
    snippet = pio.to_html(
        fig,
        full_html=False,
        include_plotlyjs=False,
        div_id=div_id,
        config=_CONFIG,
        default_height=f"{HEIGHT}px",
    )
    return f'<div class="figure{" wide" if wide else ""}">{snippet}</div>'


# From 1,000 px up: a plot and a table share a row when both fit, else each takes the row;
# a wide table takes the row below the plots. A table scrolls inside its own box (headers
# stay in view); numbers never wrap, text wraps between words, a log path anywhere.
_STYLE = """
body { font-family: system-ui, sans-serif; margin: 0 2rem 3rem; color: #222; }
header { border-bottom: 1px solid #ddd; margin-bottom: 1rem; }
nav { display: flex; flex-wrap: wrap; gap: 0.3rem 1rem; }
section { margin: 2rem 0; }
.row { display: flex; flex-wrap: wrap; gap: 1.5rem; align-items: flex-start; }
.figure { flex: 1 1 560px; min-width: min(420px, 100%); }
.figure.wide { flex-basis: 100%; }
.table { flex: 1 1 380px; min-width: min(380px, 100%); max-width: 100%; overflow: auto;
  max-height: 460px; }
.table.wide { flex-basis: 100%; order: 1; max-height: 640px; }
table { border-collapse: collapse; font-size: 0.85rem; }
caption { text-align: left; font-weight: 600; padding: 0.3rem 0; }
th, td { border-bottom: 1px solid #e5e5e5; padding: 0.2rem 0.5rem; text-align: left;
  vertical-align: top; }
th { position: sticky; top: 0; background: #fff; vertical-align: bottom; }
td { overflow-wrap: break-word; max-width: 28rem; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap;
  min-width: 0; }
td.path { min-width: 9rem; word-break: break-all; font-family: ui-monospace, monospace;
  font-size: 0.8rem; }
p.intro { max-width: 60rem; color: #444; }
@media (max-width: 1100px) { body { margin: 0 1rem 2rem; } }
"""


# Each plot is drawn as its div is reached, before the divs after it share the row: once
# the page is laid out, every plot is fitted to its final box (else the first of a row
# keeps the whole row's width and is cut off).
_RESIZE = (
    "window.addEventListener('load', function () {"
    " document.querySelectorAll('.plotly-graph-div').forEach(function (d) {"
    " Plotly.Plots.resize(d); }); });"
)


def render_page(title: str, sources: Sequence[str], sections: Sequence[Section]) -> str:
    """The whole page: plotly.js once, then each section's plots beside its tables."""
    nav = "".join(f'<a href="#{s.key}">{text(s.title)}</a>' for s in sections)
    parts = []
    n = 0
    for section in sections:
        figures = []
        for fig in section.figures:
            n += 1
            figures.append(_figure(fig, f"fig-{n}"))
        tables = "".join(_table(t) for t in section.tables)
        parts.append(
            f'<section id="{section.key}"><h2>{text(section.title)}</h2>'
            f'<p class="intro">{prose(section.intro)}</p>'
            f'<div class="row">{"".join(figures)}{tables}</div></section>'
        )
    listed = ", ".join(text(s) for s in sources)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{text(title)}</title><style>{_STYLE}</style>"
        f'<script type="text/javascript">{get_plotlyjs()}</script></head><body>'
        f"<header><h1>{text(title)}</h1><p>Logs: {listed}</p><nav>{nav}</nav></header>"
        f"{''.join(parts)}<script>{_RESIZE}</script></body></html>\n"
    )
