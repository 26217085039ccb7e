"""The report's sections on pass rates: the runs, the reliability cliff, cost against
pass^1, the strata, policy violations and failure modes. Each builder returns None when
the logs hold nothing it can show."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import plotly.graph_objects as go

from taurec.evaluator.aggregate import task_counts
from taurec.evaluator.passk import pass_k
from taurec.evaluator.report.data import ReportData, Series
from taurec.evaluator.report.page import Cell, Section, Table, plot_text
from taurec.policies.checks import Verdict
from taurec.tasks.recommendation.task import Complexity, RevealDifficulty


def _pass1(g: dict[str, Any]) -> tuple[float | None, float | None, float | None]:
    value = g.get("pass_k", {}).get("1")
    lo, hi = g.get("pass_k_ci", {}).get("1", [None, None])
    return value, lo, hi


def overview(data: ReportData) -> Section:
    rows: list[list[Cell]] = []
    for s in data.series:
        g = s.group
        value, lo, hi = _pass1(g)
        run = str(g.get("plan_id") or "")[:12] or "open"
        rows.append(
            [
                s.name,
                s.kind,
                g["mode"],
                run,
                g["suite"].get("id"),
                g["n_episodes"],
                g["n_tasks"],
                g["passed"],
                value,
                lo,
                hi,
                g["infra_errors"],
            ]
        )
    headers = ["series", "kind", "mode", "run", "suite", "episodes", "tasks", "passed"]
    headers += ["pass^1", "CI low", "CI high", "infra errors"]
    return Section(
        "runs",
        "Runs",
        "One series per agent label, run and task kind, as `evaluator score` reports them. "
        "Infrastructure errors count as failures.",
        tables=[Table("Runs scored", headers, rows)],
    )


def reliability_cliff(data: ReportData) -> Section | None:
    shown = [s for s in data.series if s.group.get("pass_k")]
    if not shown:
        return None
    fig = go.Figure()
    rows: list[list[Cell]] = []
    for s in shown:
        ks = sorted(int(k) for k in s.group["pass_k"])
        ys = [s.group["pass_k"][str(k)] for k in ks]
        cis = [s.group["pass_k_ci"][str(k)] for k in ks]
        fig.add_trace(
            go.Scatter(
                x=ks,
                y=ys,
                mode="lines+markers",
                name=plot_text(s.name),
                error_y={
                    "type": "data",
                    "array": [hi - y for y, (_, hi) in zip(ys, cis, strict=True)],
                    "arrayminus": [y - lo for y, (lo, _) in zip(ys, cis, strict=True)],
                },
            )
        )
        rows += [[s.name, k, y, lo, hi] for k, y, (lo, hi) in zip(ks, ys, cis, strict=True)]
    fig.update_layout(
        title="pass^k against k (95% bootstrap CI)",
        xaxis={"title": "k", "dtick": 1},
        yaxis={"title": "pass^k", "range": [-0.02, 1.02]},
    )
    return Section(
        "reliability",
        "Reliability cliff",
        "pass^k is the chance that k trials of a task all pass, averaged over tasks; how fast "
        "it falls with k shows how consistent an agent is (a ranking trial passes when the "
        "positive is in its top K). Bars: 95% CIs resampling tasks.",
        [fig],
        [Table("pass^k by k", ["series", "k", "pass^k", "CI low", "CI high"], rows)],
    )


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
        s for s in data.series if "efficiency" in s.group and _pass1(s.group)[0] is not None
    ]
    with_cost = [s for s in candidates if _cost(s)[0] is not None]
    use_cost = bool(with_cost)
    shown = with_cost if use_cost else [s for s in candidates if _cost(s)[1] is not None]
    if not shown:
        return None
    axis = "cost (USD, whole run)" if use_cost else "tokens (prompt + completion, whole run)"
    points = [
        (float(_cost(s)[0 if use_cost else 1] or 0.0), float(_pass1(s.group)[0] or 0.0))
        for s in shown
    ]
    front = pareto_front(points)
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=[p[0] for p in points],
            y=[p[1] for p in points],
            mode="markers+text",
            text=[plot_text(s.name) for s in shown],
            textposition="top center",
            name="series",
        )
    )
    ordered = sorted(front, key=lambda i: points[i][0])
    fig.add_trace(
        go.Scatter(
            x=[points[i][0] for i in ordered],
            y=[points[i][1] for i in ordered],
            mode="lines",
            name="Pareto front",
            line={"dash": "dot"},
        )
    )
    fig.update_layout(
        title=f"pass^1 against {axis}",
        xaxis={"title": axis},
        yaxis={"title": "pass^1", "range": [-0.02, 1.05]},
    )
    rows: list[list[Cell]] = [
        [s.name, x, y, "yes" if i in front else "no"]
        for i, (s, (x, y)) in enumerate(zip(shown, points, strict=True))
    ]
    return Section(
        "cost",
        "Cost against pass^1",
        "Each series' total cost (or tokens, when no cost was logged) against its pass^1; the "
        "dotted line joins the series no other series beats on both.",
        [fig],
        [Table("Cost and pass^1", ["series", axis, "pass^1", "on the front"], rows)],
    )


def strata(data: ReportData) -> Section | None:
    shown = [s for s in data.of_kind("recommendation") if any(e.complexity for e in s.scores)]
    if not shown:
        return None
    rows_axis = [c.value for c in Complexity]
    cols_axis = [r.value for r in RevealDifficulty]
    figures: list[go.Figure] = []
    rows: list[list[Cell]] = []
    for s in shown:
        cells: dict[tuple[str, str], list[Any]] = defaultdict(list)
        for e in s.scores:
            cells[(e.complexity or "unknown", e.reveal or "unknown")].append(e)
        found_rows = [r for r in rows_axis if any(k[0] == r for k in cells)] + sorted(
            {k[0] for k in cells} - set(rows_axis)
        )
        found_cols = [c for c in cols_axis if any(k[1] == c for k in cells)] + sorted(
            {k[1] for k in cells} - set(cols_axis)
        )
        z, labels = [], []
        for r in found_rows:
            z_row, l_row = [], []
            for c in found_cols:
                members = cells.get((r, c), [])
                value = pass_k(task_counts(members), 1) if members else None
                z_row.append(value)
                l_row.append("" if value is None else f"{value:.2f} (n={len(members)})")
                if members:
                    rows.append([s.name, r, c, len(members), value])
            z.append(z_row)
            labels.append(l_row)
        fig = go.Figure(
            go.Heatmap(
                z=z,
                x=[plot_text(c) for c in found_cols],
                y=[plot_text(r) for r in found_rows],
                text=labels,
                texttemplate="%{text}",
                zmin=0,
                zmax=1,
                colorscale="RdYlGn",
                colorbar={"title": "pass^1"},
            )
        )
        fig.update_layout(
            title=f"{plot_text(s.name)}: pass^1 by complexity and reveal",
            xaxis={"title": "reveal"},
            yaxis={"title": "complexity"},
        )
        figures.append(fig)
    headers = ["series", "complexity", "reveal", "episodes", "pass^1"]
    return Section(
        "strata",
        "Strata",
        "pass^1 in each cell of the task grid: how many constraints a task has (complexity) "
        "by how hard the user makes them to find out (reveal).",
        figures,
        [Table("pass^1 by stratum", headers, rows)],
    )


def policy_violations(data: ReportData) -> Section | None:
    shown = [s for s in data.series if s.group.get("policy_violation_rate")]
    if not shown:
        return None
    fig = go.Figure()
    rows: list[list[Cell]] = []
    for s in shown:
        failed: Counter[str] = Counter()
        checked: Counter[str] = Counter()
        for e in s.scores:
            for r in e.policy_results:
                checked[r.policy.value] += 1
                failed[r.policy.value] += r.verdict is Verdict.FAIL
        rates = s.group["policy_violation_rate"]
        fig.add_trace(
            go.Bar(x=[plot_text(p) for p in rates], y=list(rates.values()), name=plot_text(s.name))
        )
        rows += [[s.name, p, failed[p], checked[p], rate] for p, rate in rates.items()]
    fig.update_layout(
        title="Policy violation rate",
        barmode="group",
        yaxis={"title": "violations / checks", "rangemode": "tozero"},
    )
    return Section(
        "policies",
        "Policy violations",
        "How often each policy check failed among the episodes it applied to.",
        [fig],
        [Table("Policy violations", ["series", "policy", "failed", "checked", "rate"], rows)],
    )


def failure_modes(data: ReportData) -> Section | None:
    if not data.series:
        return None
    modes = [s for s in data.series if "failure_mode" in s.group]
    figures, tables = [], []
    if modes:
        fig = go.Figure()
        for field, title in (
            ("false_abstention_rate", "false abstention"),
            ("wrong_commit_rate", "wrong commit"),
        ):
            fig.add_trace(
                go.Bar(
                    x=[plot_text(s.name) for s in modes],
                    y=[s.group["failure_mode"][field] for s in modes],
                    name=title,
                )
            )
        fig.update_layout(
            title="Failure modes", barmode="group", yaxis={"title": "rate", "rangemode": "tozero"}
        )
        figures.append(fig)
        rows: list[list[Cell]] = [
            [
                s.name,
                s.group["failure_mode"]["mode"],
                s.group["failure_mode"]["false_abstention_rate"],
                s.group["failure_mode"]["wrong_commit_rate"],
            ]
            for s in modes
        ]
        headers = ["series", "mode", "false abstention", "wrong commit"]
        tables.append(Table("Failure modes", headers, rows))
    ends = {s.name: Counter(e.end_reason for e in s.scores) for s in data.series}
    reasons = sorted({r for c in ends.values() for r in c})
    fig = go.Figure()
    for reason in reasons:
        fig.add_trace(
            go.Bar(
                x=[plot_text(n) for n in ends],
                y=[c[reason] for c in ends.values()],
                name=plot_text(reason),
            )
        )
    fig.update_layout(title="How episodes ended", barmode="stack", yaxis={"title": "episodes"})
    figures.append(fig)
    end_rows: list[list[Cell]] = [[n, r, c[r]] for n, c in ends.items() for r in sorted(c)]
    tables.append(Table("End reasons", ["series", "end reason", "episodes"], end_rows))
    return Section(
        "failures",
        "Failure modes",
        "Whether an agent fails by abstaining on tasks that have an answer or by committing "
        "a wrong item, and how its episodes ended.",
        figures,
        tables,
    )
