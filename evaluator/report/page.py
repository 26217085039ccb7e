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

Cell = str | int | float | None


@dataclass
class Table:
    caption: str
    headers: list[str]
    rows: list[list[Cell]]


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


def cell(value: Cell) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) >= 1e-3 or value == 0 else f"{value:.2e}"
    return str(value)


def _table(table: Table) -> str:
    head = "".join(f"<th>{text(h)}</th>" for h in table.headers)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="num">{text(cell(v))}</td>'
            if isinstance(v, int | float)
            else f"<td>{text(cell(v))}</td>"
            for v in row
        )
        + "</tr>"
        for row in table.rows
    )
    return (
        f'<div class="table"><table><caption>{text(table.caption)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
    )


_CONFIG: dict[str, Any] = {"displaylogo": False, "responsive": True}


def _figure(fig: go.Figure, div_id: str) -> str:
    fig.update_layout(template="plotly_white", margin={"l": 50, "r": 20, "t": 50, "b": 50})
    snippet = pio.to_html(
        fig,
        full_html=False,
        include_plotlyjs=False,
        div_id=div_id,
        config=_CONFIG,
        default_height="380px",
    )
    return f'<div class="figure">{snippet}</div>'


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 0 2rem 3rem; color: #222; }
header { border-bottom: 1px solid #ddd; margin-bottom: 1rem; }
nav a { margin-right: 1rem; }
section { margin: 2rem 0; }
.row { display: flex; flex-wrap: wrap; gap: 1.5rem; align-items: flex-start; }
.figure { flex: 1 1 560px; min-width: 420px; }
.table { flex: 1 1 360px; overflow-x: auto; max-height: 420px; overflow-y: auto; }
table { border-collapse: collapse; font-size: 0.85rem; }
caption { text-align: left; font-weight: 600; padding: 0.3rem 0; }
th, td { border-bottom: 1px solid #e5e5e5; padding: 0.2rem 0.6rem; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
p.intro { max-width: 60rem; color: #444; }
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
