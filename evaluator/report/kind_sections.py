"""The report's sections that appear only when their data is there: dialogue metrics
(SR, SRRR, RDL), the judge's scores, ranking metrics and stream learning curves."""

from __future__ import annotations

import math
from typing import Any

import plotly.graph_objects as go

from taurec.evaluator.report.data import ReportData, mean_se
from taurec.evaluator.report.page import Cell, Section, Table, plot_text

#: the dialogue metrics episodes carry when they have a dialogue (contract B)
DIALOGUE_METRICS = ("sr", "srrr", "srrr_usersimcrs", "rdl", "turn_pairs", "utterances")
#: the judge's aspects (contract C), in the order shown
JUDGE_ASPECTS = ("rec_relevance", "com_style", "fluency", "conv_flow", "overall_sat")
RANKING_METRICS = ("hit@1", "hit@5", "ndcg@5", "hit@10", "ndcg@10")


def _bars(
    title: str, names: list[str], by_series: dict[str, list[tuple[float, float]]]
) -> go.Figure:
    """Grouped bars: x = names, one trace per series, (mean, half-width) each."""
    fig = go.Figure()
    for series, values in by_series.items():
        fig.add_trace(
            go.Bar(
                x=[plot_text(n) for n in names],
                y=[None if math.isnan(m) else m for m, _ in values],
                error_y={"type": "data", "array": [0 if math.isnan(e) else e for _, e in values]},
                name=plot_text(series),
            )
        )
    fig.update_layout(title=title, barmode="group")
    return fig


def dialogue_metrics(data: ReportData) -> Section | None:
    present = [
        m for m in DIALOGUE_METRICS if any(m in e.metrics for s in data.series for e in s.scores)
    ]
    if not present:
        return None
    rows: list[list[Cell]] = []
    rate_names = [m for m in present if m not in ("turn_pairs", "utterances")]
    bars: dict[str, list[tuple[float, float]]] = {}
    for s in data.series:
        stats = {m: mean_se([e.metrics[m] for e in s.scores if m in e.metrics]) for m in present}
        if not any(n for _, _, n in stats.values()):
            continue
        bars[s.name] = [(stats[m][0], stats[m][1]) for m in rate_names]
        rows += [[s.name, m, mean, se, n] for m, (mean, se, n) in stats.items()]
    figures = [_bars("Dialogue metrics (mean ± SE)", rate_names, bars)] if rate_names else []
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
            values.append((mean, se))
            rows.append([s.name, aspect, mean, se, n, failures])
        bars[s.name] = values
    if not bars:
        return None
    fig = _bars("Judge scores (1-5, mean ± SE)", aspects, bars)
    fig.update_layout(yaxis={"range": [0, 5.2], "title": "score"})
    headers = ["series", "aspect", "mean", "SE", "episodes scored", "samples without a score"]
    return Section(
        "judge",
        "Judge scores",
        "The LLM judge's 1-5 scores per aspect (`evaluator judge`), averaged over the judged "
        "episodes; samples the judge did not score are counted, never taken as 0.",
        [fig],
        [Table("Judge scores", headers, rows)],
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
            go.Bar(
                x=list(RANKING_METRICS),
                y=means,
                name=plot_text(s.name),
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


def _verdict(learns: bool | None) -> str:
    """'learns from feedback': yes, no, or no control run to compare with."""
    return "no control" if learns is None else "yes" if learns else "no"


def learning_curves(data: ReportData) -> Section | None:
    shown = [s for s in data.of_kind("stream") if s.group.get("curve")]
    if not shown:
        return None
    fig = go.Figure()
    rows: list[list[Cell]] = []
    summary: list[list[Cell]] = []
    for n, s in enumerate(shown):
        curve = s.group["curve"]
        x = [p["episode"] for p in curve]
        y = [p["regret"] for p in curve]
        se = [p["regret_se"] for p in curve]
        group_id = f"s{n}"
        fig.add_trace(
            go.Scatter(
                x=x + x[::-1],
                y=[a + b for a, b in zip(y, se, strict=True)]
                + [a - b for a, b in zip(y, se, strict=True)][::-1],
                fill="toself",
                opacity=0.2,
                line={"width": 0},
                hoverinfo="skip",
                showlegend=False,
                legendgroup=group_id,
                name=f"{plot_text(s.name)} ± SE",
            )
        )
        fig.add_trace(
            go.Scatter(x=x, y=y, mode="lines+markers", name=plot_text(s.name), legendgroup=group_id)
        )
        rows += [
            [s.name, p["episode"], p["n"], p["regret"], p["regret_se"], p["questions"], p["top1"]]
            for p in curve
        ]
        g = s.group
        summary.append(
            [
                s.name,
                g["avg_regret"],
                g["improvement"],
                *g["improvement_ci"],
                g["slope"],
                *g["slope_ci"],
                "yes" if g.get("improves") else "no",
                _verdict(g.get("learns_from_feedback")),
            ]
        )
    fig.update_layout(
        title="Regret by episode in the stream (mean ± SE)",
        xaxis={"title": "episode", "dtick": 1},
        yaxis={"title": "regret"},
    )
    curve_headers = ["series", "episode", "streams", "regret", "SE", "questions", "top-1"]
    summary_headers = ["series", "avg regret", "improvement", "CI low", "CI high", "slope"]
    summary_headers += ["CI low", "CI high", "improves", "learns from feedback"]
    return Section(
        "streams",
        "Learning curves (BIEL)",
        "Regret of the item chosen in each episode of a stream, averaged over streams with "
        "its standard error. 'improves' means the slope's 95% CI lies below 0: regret falls "
        "with the episode index, which a fixed schedule can show too. 'learns from "
        "feedback' compares the run with a control run of the same agent whose feedback "
        "was withheld or scrambled: yes when the paired slope contrast's 95% CI lies below "
        "0 (every control there is), 'no control' when the logs hold none.",
        [fig],
        [
            Table("Learning summary", summary_headers, summary),
            Table("Regret by episode", curve_headers, rows),
        ],
    )
