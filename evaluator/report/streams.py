"""The report's BIEL section: regret by episode index per series (mean ± SE over streams),
a summary with one row per series and one per setting (same customer, same choice set,
...), as `evaluator score` lists them, and the curve's numbers."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from taurec.evaluator.report.data import ReportData, Series
from taurec.evaluator.report.page import Cell, Estimate, Percent, Section, Table
from taurec.evaluator.report.plots import hover, series_trace, short

#: the setting column of a series' row over all its streams
ALL_SETTINGS = "all"

SUMMARY_HEADERS = [
    "series",
    "setting",
    "streams",
    "avg regret",
    "improvement ep10 − ep1 [95% CI]",
    "slope per episode [95% CI]",
    "improves",
    "learns from feedback",
]
CURVE_HEADERS = ["series", "episode", "streams", "regret", "SE", "questions", "top-1"]


def _verdict(learns: bool | None) -> str:
    """'learns from feedback': yes, no, or no control run to compare with."""
    return "no control" if learns is None else "yes" if learns else "no"


def _learns(g: dict[str, Any], setting: str) -> bool | None:
    """The verdict in one setting: yes when every control's contrast there says so."""
    contrasts = (g.get("feedback_contrast") or {}).values()
    verdicts = [c["by_setting"][setting].get("learns_from_feedback") for c in contrasts]
    verdicts = [v for v in verdicts if v is not None]
    return all(verdicts) if verdicts else None


def _summary_row(name: str, setting: str, g: dict[str, Any], learns: bool | None) -> list[Cell]:
    return [
        name,
        setting,
        g.get("streams", g.get("n_episodes")),
        g["avg_regret"],
        Estimate(g["improvement"], g["improvement_ci"][0], g["improvement_ci"][1]),
        Estimate(g["slope"], g["slope_ci"][0], g["slope_ci"][1], digits=2),
        "yes" if g.get("improves") else "no",
        _verdict(learns),
    ]


def summary_rows(s: Series) -> list[list[Cell]]:
    """The series over all its streams, then each setting it played."""
    g = s.group
    rows = [_summary_row(s.name, ALL_SETTINGS, g, g.get("learns_from_feedback"))]
    for setting, sg in (g.get("by_setting") or {}).items():
        learns = _learns(g, setting) if g.get("feedback_contrast") else None
        rows.append(_summary_row(s.name, setting, sg, learns))
    return rows


def _traces(fig: go.Figure, s: Series, colour: str, group_id: str) -> None:
    curve = s.group["curve"]
    x = [p["episode"] for p in curve]
    y = [p["regret"] for p in curve]
    se = [p["regret_se"] for p in curve]
    fig.add_trace(
        go.Scatter(
            x=x + x[::-1],
            y=[a + b for a, b in zip(y, se, strict=True)]
            + [a - b for a, b in zip(y, se, strict=True)][::-1],
            fill="toself",
            fillcolor=colour,
            opacity=0.2,
            line={"width": 0, "color": colour},
            hoverinfo="skip",
            showlegend=False,
            legendgroup=group_id,
            name=f"{short(s.name)} ± SE",
        )
    )
    fig.add_trace(
        series_trace(
            go.Scatter,
            s.name,
            colour,
            x=x,
            y=y,
            customdata=se,
            mode="lines+markers",
            legendgroup=group_id,
            **hover(s.name, "episode %{x}", "regret %{y:.1f} ± %{customdata:.1f}"),
        )
    )


def learning_curves(data: ReportData) -> Section | None:
    shown = [s for s in data.of_kind("stream") if s.group.get("curve")]
    if not shown:
        return None
    fig = go.Figure()
    rows: list[list[Cell]] = []
    summary: list[list[Cell]] = []
    for n, s in enumerate(shown):
        _traces(fig, s, data.colours[s.name], f"s{n}")
        for p in s.group["curve"]:
            top1 = Percent(p["top1"])
            rows.append(
                [s.name, p["episode"], p["n"], p["regret"], p["regret_se"], p["questions"], top1]
            )
        summary += summary_rows(s)
    fig.update_layout(
        title="Regret by episode in the stream (mean ± SE)",
        xaxis={"title": "episode", "dtick": 1},
        yaxis={"title": "regret"},
    )
    return Section(
        "streams",
        "Learning curves (BIEL)",
        "Regret of the item chosen in each episode of a stream, averaged over streams with "
        "its standard error. The summary has a row per series over all its streams, then "
        "one per setting. 'improves' means the slope's 95% CI lies below 0: regret falls "
        "with the episode index, which a fixed schedule can show too. 'learns from "
        "feedback' compares the run with a control run of the same agent whose feedback "
        "was withheld or scrambled: yes when the paired slope contrast's 95% CI lies below "
        "0 (every control there is), 'no control' when the logs hold none.",
        [fig],
        [
            Table("Learning summary", SUMMARY_HEADERS, summary, wide=True),
            Table("Regret by episode", CURVE_HEADERS, rows),
        ],
    )
