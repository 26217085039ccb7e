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
    """A series' cost (USD) and tokens (prompt + completion) over all its episodes, as the
    scorer's rows give them (None: no episode logged any)."""
    costs = [e.cost_usd for e in s.scores if e.cost_usd is not None]
    counts = [
        (e.prompt_tokens or 0) + (e.completion_tokens or 0)
        for e in s.scores
        if e.prompt_tokens is not None or e.completion_tokens is not None
    ]
    return (float(sum(costs)) if costs else None), (float(sum(counts)) if counts else None)


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
    spent = [(s, *_cost(s)) for s in data.series]
    logged = [(s, cost, tokens) for s, cost, tokens in spent if (cost, tokens) != (None, None)]
    if not logged:
        return None
    graded = [(s, c, t) for s, c, t in logged if pass1(s.group)[0] is not None]
    use_cost = any(c is not None for _, c, _ in graded) or not graded
    measure = "cost" if use_cost else "tokens"
    axis = (
        "cost (USD, whole run, as each agent reported it)"
        if use_cost
        else "tokens (prompt + completion, whole run, as each agent reported them)"
    )
    value = {s.name: (c if use_cost else t) for s, c, t in logged}
    shown = [s for s, _, _ in graded if value[s.name] is not None]
    points = [(float(value[s.name] or 0.0), float(pass1(s.group)[0] or 0.0)) for s in shown]
    front = {shown[i].name for i in pareto_front(points)}
    rows: list[list[Cell]] = []
    for s, _, _ in logged:
        rate = pass1(s.group)[0]
        on = "-" if rate is None or value[s.name] is None else "yes" if s.name in front else "no"
        rows.append([s.name, value[s.name], "-" if rate is None else Percent(rate), on])
    table = Table("Cost and pass^1", ["series", axis, "pass^1", "on the front"], rows)
    no_rate = [s.name for s, _, _ in logged if pass1(s.group)[0] is None]
    unrated = (
        f" {', '.join(no_rate)} logged {measure} too, listed without a pass^1 (its kind has none)."
        if no_rate
        else ""
    )
    if len(shown) < 2:  # one point plots nothing: say it
        if not shown:
            text = (
                f"No series with a pass^1 logged its {measure}; the table gives what each logged."
            )
        else:
            x, y = points[0]
            figure = f"${x:,.4g}" if use_cost else f"{x:,.0f} tokens"
            text = (
                f"Of the series with a pass^1, only {shown[0].name} logged its {measure}: "
                f"{figure} (as its agent reported it) for a pass^1 of {percent(y)}. With two "
                "series or more, a plot shows which no other beats on both."
            )
        return Section("cost", "Cost against pass^1", text + unrated, tables=[table])
    return Section(
        "cost",
        "Cost against pass^1",
        "Each series' total cost (or tokens, when no cost was logged) against its pass^1; the "
        "dotted line joins the series no other series beats on both. The figures are what "
        "each agent reported of its own model calls: nothing checks them." + unrated,
        [
            _cost_plot(
                data, shown, points, [i for i, s in enumerate(shown) if s.name in front], axis
            )
        ],
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
