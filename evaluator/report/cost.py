"""The report's section on cost: each series' total cost (or tokens) against its pass^1,
and the Pareto front of the series no other beats on both. One series is a sentence and a
table row, never a plot of one point."""

from __future__ import annotations

import plotly.graph_objects as go

from taurec.evaluator.report.data import ReportData, Series
from taurec.evaluator.report.page import Cell, Percent, Section, Table, plot_text
from taurec.evaluator.report.plots import PERCENT, RATE_AXIS, series_trace, short
from taurec.evaluator.report.sections import pass1
from taurec.evaluator.text import percent

#: the most points named beside their marker (more would cover each other: the legend
#: and the hover name them)
LABELLED_POINTS = 8


def _cost(s: Series) -> tuple[float | None, float | None]:
    eff = s.group.get("efficiency") or {}
    p, c = eff.get("prompt_tokens"), eff.get("completion_tokens")
    tokens = None if p is None and c is None else float((p or 0) + (c or 0))
    cost = eff.get("cost_usd")
    return (None if cost is None else float(cost)), tokens


def pareto_front(points: list[tuple[float, float]]) -> list[int]:
    """Indexes of the points no other point beats: none cheaper (or as cheap) with a
    higher pass^1, or cheaper with the same."""
    order = sorted(range(len(points)), key=lambda i: (points[i][0], -points[i][1]))
    front, best = [], -1.0
    for i in order:
        if points[i][1] > best:
            front.append(i)
            best = points[i][1]
    return front


def cost_pareto(data: ReportData) -> Section | None:
    candidates = [
        s for s in data.series if "efficiency" in s.group and pass1(s.group)[0] is not None
    ]
    with_cost = [s for s in candidates if _cost(s)[0] is not None]
    use_cost = bool(with_cost)
    shown = with_cost if use_cost else [s for s in candidates if _cost(s)[1] is not None]
    if not shown:
        return None
    axis = (
        "cost (USD, whole run, as each agent reported it)"
        if use_cost
        else "tokens (prompt + completion, whole run, as each agent reported them)"
    )
    points = [
        (float(_cost(s)[0 if use_cost else 1] or 0.0), float(pass1(s.group)[0] or 0.0))
        for s in shown
    ]
    front = pareto_front(points)
    rows: list[list[Cell]] = [
        [s.name, x, Percent(y), "yes" if i in front else "no"]
        for i, (s, (x, y)) in enumerate(zip(shown, points, strict=True))
    ]
    table = Table("Cost and pass^1", ["series", axis, "pass^1", "on the front"], rows)
    if len(shown) == 1:  # one point plots nothing: say it
        x, y = points[0]
        spent = f"${x:,.4g}" if use_cost else f"{x:,.0f} tokens"
        return Section(
            "cost",
            "Cost against pass^1",
            f"Only {shown[0].name} logged its {'cost' if use_cost else 'tokens'}: {spent} "
            f"(as its agent reported it) for a pass^1 of {percent(y)}. With two series or "
            "more, a plot shows which no other beats on both.",
            tables=[table],
        )
    return Section(
        "cost",
        "Cost against pass^1",
        "Each series' total cost (or tokens, when no cost was logged) against its pass^1; the "
        "dotted line joins the series no other series beats on both. The figures are what "
        "each agent reported of its own model calls: nothing checks them.",
        [_cost_plot(data, shown, points, front, axis)],
        [table],
    )


def _cost_plot(
    data: ReportData,
    shown: list[Series],
    points: list[tuple[float, float]],
    front: list[int],
    axis: str,
) -> go.Figure:
    fig = go.Figure()
    labelled = len(shown) <= LABELLED_POINTS
    x_hover = "%{x:$,.4g}" if axis.startswith("cost") else "%{x:,.0f} tokens"
    for s, (x, y) in zip(shown, points, strict=True):
        fig.add_trace(
            series_trace(
                go.Scatter,
                s.name,
                data.colours[s.name],
                x=[x],
                y=[y],
                mode="markers+text" if labelled else "markers",
                text=[short(s.name, 20)],
                textposition="top center",
                cliponaxis=False,
                marker_size=10,
                hovertemplate=f"%{{meta}}<br>{x_hover}, pass^1 %{{y:{PERCENT}}}<extra></extra>",
                meta=plot_text(s.name),
            )
        )
    ordered = sorted(front, key=lambda i: points[i][0])
    fig.add_trace(
        go.Scatter(
            x=[points[i][0] for i in ordered],
            y=[points[i][1] for i in ordered],
            mode="lines",
            name="Pareto front",
            line={"dash": "dot", "color": "#555"},
            hoverinfo="skip",
        )
    )
    fig.update_layout(
        title=f"pass^1 against {axis}",
        xaxis={"title": axis},
        yaxis={"title": "pass^1", **RATE_AXIS, "range": [-0.02, 1.1]},
    )
    return fig
