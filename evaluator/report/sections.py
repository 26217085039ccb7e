"""The report's sections on pass rates: the runs, the reliability cliff, the strata,
policy violations and failure modes (cost against pass^1: cost.py). Each builder returns
None when the logs hold nothing it can show."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

import plotly.graph_objects as go

from taurec.evaluator.aggregate import task_counts
from taurec.evaluator.passk import pass_k
from taurec.evaluator.report.data import ReportData
from taurec.evaluator.report.page import Cell, Estimate, Percent, Section, Table, plot_text
from taurec.evaluator.report.plots import (
    PERCENT,
    PERCENT_TICKS,
    RATE_AXIS,
    category_axis,
    hover,
    palette,
    series_trace,
    short,
)
from taurec.evaluator.text import percent
from taurec.policies.checks import Verdict
from taurec.tasks.recommendation.task import Complexity, RevealDifficulty


def pass1(g: dict[str, Any]) -> tuple[float | None, float | None, float | None]:
    """A group's pass^1 with its 95% CI (Nones where it has none)."""
    value = g.get("pass_k", {}).get("1")
    lo, hi = g.get("pass_k_ci", {}).get("1", [None, None])
    return value, lo, hi


def overview(data: ReportData) -> Section:
    rows: list[list[Cell]] = []
    for s in data.series:
        g = s.group
        value, lo, hi = pass1(g)
        run = str(g.get("plan_id") or "")[:8] or "open"  # as series names show it
        rows.append(
            [
                s.name,
                s.kind,
                g["mode"],
                run,
                g["suite"].get("id"),
                g["n_episodes"],
                g["n_tasks"],
                g["passed"] if all(e.graded for e in s.scores) else "-",  # a curve: no passes
                Estimate(value, lo, hi, rate=True),
                g["infra_errors"],
            ]
        )
    headers = ["series", "kind", "mode", "run", "suite", "episodes", "tasks", "passed"]
    headers += ["pass^1 [95% CI]", "infra errors"]
    return Section(
        "runs",
        "Runs",
        "One series per agent label, run and task kind, as `evaluator score` reports them. "
        "Infrastructure errors count as failures.",
        tables=[Table("Runs scored", headers, rows, wide=True)],
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
            series_trace(
                go.Scatter,
                s.name,
                data.colours[s.name],
                x=ks,
                y=ys,
                mode="lines+markers",
                **hover(s.name, "pass^%{x}", f"%{{y:{PERCENT}}}"),
                error_y={
                    "type": "data",
                    "array": [hi - y for y, (_, hi) in zip(ys, cis, strict=True)],
                    "arrayminus": [y - lo for y, (lo, _) in zip(ys, cis, strict=True)],
                },
            )
        )
        rows += [
            [s.name, k, Percent(y), Percent(lo), Percent(hi)]
            for k, y, (lo, hi) in zip(ks, ys, cis, strict=True)
        ]
    fig.update_layout(
        title="pass^k against k (95% bootstrap CI)",
        xaxis={"title": "k", "dtick": 1},
        yaxis={"title": "pass^k", **RATE_AXIS},
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
                l_row.append("" if value is None else f"{percent(value)} (n={len(members)})")
                if members:
                    rows.append([s.name, r, c, len(members), Percent(value)])
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
                colorbar={"title": "pass^1", "tickformat": PERCENT_TICKS},
                hovertemplate="%{y} × %{x}: %{text}<extra></extra>",
            )
        )
        fig.update_layout(
            title=f"{short(s.name, 40)}: pass^1 by complexity and reveal",
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
    policies: dict[str, None] = {}  # every policy shown, in order
    for s in shown:
        failed: Counter[str] = Counter()
        checked: Counter[str] = Counter()
        for e in s.scores:
            for r in e.policy_results:
                checked[r.policy.value] += 1
                failed[r.policy.value] += r.verdict is Verdict.FAIL
        rates = s.group["policy_violation_rate"]
        policies.update(dict.fromkeys(rates))
        fig.add_trace(
            series_trace(
                go.Bar,
                s.name,
                data.colours[s.name],
                x=[plot_text(p) for p in rates],
                y=list(rates.values()),
                **hover(s.name, "%{x}", f"%{{y:{PERCENT}}}"),
            )
        )
        rows += [[s.name, p, failed[p], checked[p], Percent(rate)] for p, rate in rates.items()]
    fig.update_layout(
        title="Policy violation rate",
        barmode="group",
        xaxis=category_axis(list(policies)),
        yaxis={"title": "violations / checks", "rangemode": "tozero", "tickformat": PERCENT_TICKS},
    )
    return Section(
        "policies",
        "Policy violations",
        "How often each policy check failed among the episodes it applied to.",
        [fig],
        [Table("Policy violations", ["series", "policy", "failed", "checked", "rate"], rows)],
    )


def _abstained(mode: dict[str, Any]) -> float:
    """False abstentions that were chosen: those that ended in an agent error apart."""
    return max(mode["false_abstention_rate"] - mode.get("agent_error_rate", 0.0), 0.0)


#: The failure-mode bars: a false abstention the agent chose, one it crashed into (τ-Rec's
#: no-rec counts both), a wrong commit.
_MODE_BARS: tuple[tuple[str, Callable[[dict[str, Any]], float]], ...] = (
    ("false abstention", _abstained),
    ("agent error (no commit)", lambda mode: mode.get("agent_error_rate", 0.0)),
    ("wrong commit", lambda mode: mode["wrong_commit_rate"]),
)


def failure_modes(data: ReportData) -> Section | None:
    if not data.series:
        return None
    modes = [s for s in data.series if "failure_mode" in s.group]
    figures, tables = [], []
    if modes:
        fig = go.Figure()
        for title, rate in _MODE_BARS:
            fig.add_trace(
                go.Bar(
                    x=[plot_text(s.name) for s in modes],
                    y=[rate(s.group["failure_mode"]) for s in modes],
                    name=title,
                    hovertemplate=f"%{{x}}<br>{title}: %{{y:{PERCENT}}}<extra></extra>",
                )
            )
        fig.update_layout(
            title="Failure modes",
            barmode="group",
            xaxis=category_axis([s.name for s in modes]),
            yaxis={"title": "rate", "rangemode": "tozero", "tickformat": PERCENT_TICKS},
        )
        figures.append(fig)
        rows: list[list[Cell]] = [
            [
                s.name,
                s.group["failure_mode"]["mode"],
                *(Percent(rate(s.group["failure_mode"])) for _, rate in _MODE_BARS),
            ]
            for s in modes
        ]
        headers = ["series", "mode", *(title for title, _ in _MODE_BARS)]
        tables.append(Table("Failure modes", headers, rows))
    ends = {s.name: Counter(e.end_reason for e in s.scores) for s in data.series}
    reasons = sorted({r for c in ends.values() for r in c})
    fig = go.Figure()
    for reason, colour in zip(reasons, palette(len(reasons)), strict=True):
        fig.add_trace(
            go.Bar(
                x=[plot_text(n) for n in ends],
                y=[c[reason] for c in ends.values()],
                name=short(reason),
                marker_color=colour,
                meta=plot_text(reason),
                hovertemplate="%{x}<br>%{meta}: %{y}<extra></extra>",
            )
        )
    fig.update_layout(
        title="How episodes ended",
        barmode="stack",
        xaxis=category_axis(list(ends)),
        yaxis={"title": "episodes"},
    )
    figures.append(fig)
    end_rows: list[list[Cell]] = [[n, r, c[r]] for n, c in ends.items() for r in sorted(c)]
    tables.append(Table("End reasons", ["series", "end reason", "episodes"], end_rows))
    return Section(
        "failures",
        "Failure modes",
        "Whether an agent fails by abstaining on tasks that have an answer, by ending in an "
        "error without a commit (τ-Rec's no-rec rate counts both) or by committing a wrong "
        "item, and how its episodes ended.",
        figures,
        tables,
    )
