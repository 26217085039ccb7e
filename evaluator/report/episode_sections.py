"""The report's per-episode sections: the simulated users' faults (contract B's
`simulator_faults`) and the list of failed episodes (contract D's episode rows), each
shown when the scoring stack provides it."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import plotly.graph_objects as go

from taurec.evaluator.report.data import ReportData
from taurec.evaluator.report.page import Cell, Link, Percent, Section, Table, plot_text
from taurec.evaluator.report.plots import PERCENT, PERCENT_TICKS, category_axis

#: the most failed episodes listed; the rest are counted
MAX_FAILED_ROWS = 300


def simulator_faults(data: ReportData) -> Section | None:
    episodes: Counter[str] = Counter()
    faulty: Counter[str] = Counter()
    kinds: dict[str, Counter[str]] = defaultdict(Counter)
    for s in data.series:
        for e in s.scores:
            faults = list(getattr(e, "simulator_faults", None) or [])
            name = getattr(e, "simulator", None)
            if name is None and not faults:
                continue
            name = str(name or "unknown")
            episodes[name] += 1
            faulty[name] += bool(faults)
            for f in faults:
                kinds[name][str(getattr(f, "kind", "?"))] += 1
    if not any(faulty.values()):
        return None
    names = sorted(episodes)
    fig = go.Figure(
        go.Bar(
            x=[plot_text(n) for n in names],
            y=[faulty[n] / episodes[n] for n in names],
            hovertemplate=f"%{{x}}: %{{y:{PERCENT}}}<extra></extra>",
        )
    )
    fig.update_layout(
        title="Episodes with a simulator fault",
        xaxis=category_axis(names),
        yaxis={"title": "share of episodes", "rangemode": "tozero", "tickformat": PERCENT_TICKS},
    )
    rows: list[list[Cell]] = [
        [n, episodes[n], faulty[n], Percent(faulty[n] / episodes[n])] for n in names
    ]
    kind_rows: list[list[Cell]] = [[n, k, c] for n in names for k, c in sorted(kinds[n].items())]
    return Section(
        "simulator-faults",
        "Simulator faults",
        "Episodes in which the simulated user broke its own task (accepted an item that "
        "violates it, rejected one that satisfies it, stated a hidden need or a wrong one): "
        "failures these cause are the simulator's, not the agent's.",
        [fig],
        [
            Table(
                "Fault rate by simulator", ["simulator", "episodes", "with a fault", "rate"], rows
            ),
            Table("Faults by kind", ["simulator", "kind", "faults"], kind_rows),
        ],
    )


def _joined(value: Any) -> str:
    if isinstance(value, list | tuple):
        return "; ".join(map(str, value))
    return "" if value is None else str(value)


def _log(score: Any, path: Any, data: ReportData) -> Cell:
    """The episode's log path, linked to its viewer page or its log when there is one."""
    href = data.links.href(score) if data.links is not None else None
    return path if href is None or path is None else Link(str(path), href)


def failed_episodes(data: ReportData) -> Section | None:
    try:
        from taurec.evaluator.episodes.rows import episode_rows
    except ImportError:
        return None
    # failed as the scorer's rows say (the viewer and `evaluator episodes --failed` read
    # the same): a stream only when it ended in an error
    every = [e for s in data.series for e in s.scores]
    failed = [
        (e, r) for e, r in zip(every, episode_rows(every), strict=True) if r["result"] == "fail"
    ]
    if not failed:
        return None
    rows: list[list[Cell]] = []
    for score, row in failed[:MAX_FAILED_ROWS]:
        rows.append(
            [
                row.get("label"),
                row.get("task"),
                row.get("trial"),
                row.get("stratum"),
                row.get("end_reason"),
                _joined(row.get("failed_constraints")),
                _joined(row.get("failed_policies")),
                row.get("failure"),
                _log(score, row.get("path"), data),
            ]
        )
    shown = f"the first {MAX_FAILED_ROWS} of " if len(failed) > MAX_FAILED_ROWS else ""
    headers = ["label", "task", "trial", "stratum", "end reason", "failed constraints"]
    headers += ["failed policies", "why", "log"]
    return Section(
        "failed-episodes",
        "Failed episodes",
        f"Listing {shown}{len(failed)} failed episodes with what failed. "
        + (
            "Each log links to the episode's page in the viewer, which shows its evidence."
            if data.links is not None and data.links.viewer is not None
            else "`evaluator explain LOG` shows one with its evidence; a report written "
            "with `--bundle DIR` links each to its page in the viewer."
        ),
        tables=[Table("Failed episodes", headers, rows, wide=True)],
    )
