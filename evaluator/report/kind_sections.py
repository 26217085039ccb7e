"""The report's sections that appear only when their data is there: dialogue metrics
(SR, SRRR, RDL), the judge's scores and ranking metrics (stream learning curves:
streams.py)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import plotly.graph_objects as go

from taurec.evaluator.report.data import ReportData, mean_se
from taurec.evaluator.report.page import Cell, Percent, Section, Table, plot_text
from taurec.evaluator.report.plots import PERCENT, PERCENT_TICKS, category_axis, hover, series_trace

#: the dialogue metrics episodes carry when they have a dialogue (contract B)
DIALOGUE_METRICS = ("sr", "srrr", "srrr_usersimcrs", "rdl", "turn_pairs", "utterances")
#: the judge's aspects (contract C), in the order shown
JUDGE_ASPECTS = ("rec_relevance", "com_style", "fluency", "conv_flow", "overall_sat")
RANKING_METRICS = ("hit@1", "hit@5", "ndcg@5", "hit@10", "ndcg@10")
#: dialogue metrics that are counts, not rates
DIALOGUE_COUNTS = ("turn_pairs", "utterances")


def _bars(
    title: str,
    names: list[str],
    by_series: dict[str, list[tuple[float, float]]],
    colours: Mapping[str, str],
    *,
    rates: bool = False,
) -> go.Figure:
    """Grouped bars: x = names, one trace per series in its colour, (mean, half-width)
    each; `rates`: the values are rates, shown as percentages."""
    fig = go.Figure()
    shown = f"%{{y:{PERCENT if rates else '.3~f'}}}"
    for series, values in by_series.items():
        fig.add_trace(
            series_trace(
                go.Bar,
                series,
                colours[series],
                x=[plot_text(n) for n in names],
                y=[None if math.isnan(m) else m for m, _ in values],
                error_y={"type": "data", "array": [0 if math.isnan(e) else e for _, e in values]},
                **hover(series, "%{x}", shown),
            )
        )
    fig.update_layout(title=title, barmode="group", xaxis=category_axis(names))
    if rates:
        fig.update_yaxes(tickformat=PERCENT_TICKS, rangemode="tozero")
    return fig


def dialogue_metrics(data: ReportData) -> Section | None:
    present = [
        m for m in DIALOGUE_METRICS if any(m in e.metrics for s in data.series for e in s.scores)
    ]
    if not present:
        return None
    rows: list[list[Cell]] = []
    rate_names = [m for m in present if m not in DIALOGUE_COUNTS]
    bars: dict[str, list[tuple[float, float]]] = {}
    for s in data.series:
        stats = {m: mean_se([e.metrics[m] for e in s.scores if m in e.metrics]) for m in present}
        if not any(n for _, _, n in stats.values()):
            continue
        bars[s.name] = [(stats[m][0], stats[m][1]) for m in rate_names]
        for m, (mean, se, n) in stats.items():  # SR, SRRR, RDL as the terminal: percentages
            rate = m not in DIALOGUE_COUNTS
            rows.append(
                [s.name, m, Percent(mean) if rate else mean, Percent(se) if rate else se, n]
            )
    figures = (
        [_bars("Dialogue metrics (mean ± SE)", rate_names, bars, data.colours, rates=True)]
        if rate_names
        else []
    )
    return Section(
        "dialogue",
        "Dialogue metrics",
        "SR: success rate of the dialogue; SRRR: success rate over recommendation rounds "
        "(srrr_usersimcrs: as UserSimCRS's code counts them, the opening a round too); RDL: "
        "relative dialogue length; turn_pairs: DialogueKit's turns (its avg_turns is their "
        "mean); utterances per dialogue. Means over the episodes that have a dialogue, with "
        "standard errors.",
        figures,
        [Table("Dialogue metrics", ["series", "metric", "mean", "SE", "episodes"], rows)],
    )


def judge_scores(data: ReportData) -> Section | None:
    from taurec.evaluator.judge.mock import MOCK_JUDGE_NAME, judge_name

    if not data.judgements:
        return None
    rows: list[list[Cell]] = []
    bars: dict[str, list[tuple[float, float]]] = {}
    aspects = [a for a in JUDGE_ASPECTS if any(a in v for v in data.judgements.values())] + sorted(
        {a for v in data.judgements.values() for a in v} - set(JUDGE_ASPECTS)
    )
    for s in data.series:
        ids = [e.episode_id for e in s.scores if e.episode_id is not None]
        judged = [data.judgements[i] for i in ids if i in data.judgements]
        if not judged:
            continue
        values = []
        for aspect in aspects:
            scores = [j[aspect] for j in judged if aspect in j]
            mean, se, n = mean_se([float(x.mean) for x in scores])
            failures = sum(int(x.failures) for x in scores)
            judges = sorted({judge_name(str(getattr(x, "model", "") or "?")) for x in scores})
            values.append((mean, se))
            rows.append([s.name, aspect, mean, se, n, failures, ", ".join(judges)])
        bars[s.name] = values
    if not bars:
        return None
    fig = _bars("Judge scores (1-5, mean ± SE)", aspects, bars, data.colours)
    fig.update_layout(yaxis={"range": [0, 5.2], "title": "score"})
    headers = ["series", "aspect", "mean", "SE", "episodes scored", "samples without a score"]
    mocked = any(MOCK_JUDGE_NAME in str(row[-1]) for row in rows)
    return Section(
        "judge",
        "Judge scores",
        "The LLM judge's 1-5 scores per aspect (`evaluator judge`), averaged over the judged "
        "episodes; samples the judge did not score are counted, never taken as 0."
        + (
            " Scores from the mock judge (`--model mock`) are one fixed reply for every "
            "dialogue: they test the pipeline and say nothing about an agent."
            if mocked
            else ""
        ),
        [fig],
        [Table("Judge scores", [*headers, "judge"], rows)],
    )


def ranking_metrics(data: ReportData) -> Section | None:
    shown = data.of_kind("ranking")
    if not shown:
        return None
    rows: list[list[Cell]] = []
    fig = go.Figure()
    for s in shown:
        g: dict[str, Any] = s.group
        means = [g["metrics"][m] for m in RANKING_METRICS]
        cis = [g["metrics_ci"][m] for m in RANKING_METRICS]
        fig.add_trace(
            series_trace(
                go.Bar,
                s.name,
                data.colours[s.name],
                x=list(RANKING_METRICS),
                y=means,
                **hover(s.name, "%{x}", "%{y:.4f}"),
                error_y={
                    "type": "data",
                    "array": [hi - m for m, (_, hi) in zip(means, cis, strict=True)],
                    "arrayminus": [m - lo for m, (lo, _) in zip(means, cis, strict=True)],
                },
            )
        )
        for name in (*RANKING_METRICS, "reward"):
            lo, hi = g["metrics_ci"][name]
            rows.append([s.name, name, g["metrics"][name], lo, hi])
        rows.append([s.name, "invalid answers", g.get("invalid_rate"), None, None])
    fig.update_layout(
        title="Hit@K and NDCG@K (95% CI)", barmode="group", yaxis={"range": [0, 1.05]}
    )
    return Section(
        "ranking",
        "Ranking metrics",
        "Hit@K and NDCG@K of the submitted rankings (one positive among the candidates), and "
        "the mean reward, with 95% bootstrap CIs.",
        [fig],
        [Table("Ranking metrics", ["series", "metric", "mean", "CI low", "CI high"], rows)],
    )
