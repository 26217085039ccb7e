"""`evaluator score --format markdown`: the report as Markdown tables, for papers.

One table per task kind, headed by the kind's name when the logs hold several. Groups
with τ-Rec's numbers (pass^k beside constraint and policy scores) get one row per agent
label, as in a paper's results table; every other kind gets the rows of its terminal
table (its `summary_rows`, kinds.py) with one column per label, so the Markdown holds
what the table does: a ranking group its Hit@K and NDCG@K in K order, a stream group its
average regret, slope with CI and the same per setting. Every cell from a log goes
through md_cell.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from taurec.evaluator.render import group_rows
from taurec.evaluator.text import md_cell, percent
from taurec.tasks.kinds import DEFAULT_KIND


def _label(group: dict[str, Any]) -> str:
    rules = group.get("rules")
    return group["label"] if rules in (None, "taurec") else f"{group['label']} [{rules}]"


def _line(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def markdown(groups: list[dict[str, Any]]) -> str:
    """Every group's numbers as Markdown: one table per kind, in the order of `groups`."""
    kinds = list(dict.fromkeys(g.get("kind", DEFAULT_KIND) for g in groups))
    parts = []
    for kind in kinds:
        members = [g for g in groups if g.get("kind", DEFAULT_KIND) == kind]
        wide = all("constraint_score" in g and "pass_k" in g for g in members)
        table = _per_label(members) if wide else _per_metric(members)
        parts.append(table if len(kinds) == 1 else f"### {md_cell(kind)}\n\n{table}")
    return "\n".join(parts)


def _columns(groups: list[dict[str, Any]]) -> list[str]:
    """One heading per group: its label, and its run where the label has several."""
    names = [_label(g) for g in groups]
    repeated = Counter(names)
    out = []
    for name, g in zip(names, groups, strict=True):
        if repeated[name] > 1:
            plan = g.get("plan_id")
            suite = (g.get("suite") or {}).get("id") or "?"
            name += f" (run {str(plan)[:8]})" if plan else f" (open, suite {suite})"
        out.append(md_cell(name))
    return out


def _per_metric(groups: list[dict[str, Any]]) -> str:
    """A row per metric of the kind's table, a column per group."""
    values: dict[str, dict[int, str]] = {}
    for n, g in enumerate(groups):
        parent = ""
        for metric, value in group_rows(g):
            if metric.startswith(" "):  # a row under the one before (a setting's contrast)
                metric = f"{parent}: {metric.strip()}"
            else:
                parent = metric
            values.setdefault(metric, {})[n] = value
    lines = [_line(["metric", *_columns(groups)]), "|" + "---|" * (len(groups) + 1)]
    for metric, by_group in values.items():
        cells = [md_cell(by_group[n]) if n in by_group else "-" for n in range(len(groups))]
        lines.append(_line([md_cell(metric), *cells]))
    return "\n".join(lines) + "\n"


def _dialogue_cells(group: dict[str, Any]) -> list[str]:
    d = group.get("dialogue") or {}
    if not d.get("episodes"):
        return ["-"] * 6
    faulty = sum(f["faulty"] for f in group["simulator_faults"]["by_simulator"].values())
    return [
        percent(d["sr"]),
        percent(d["srrr"]),
        percent(d["rdl"]),
        f"{d['avg_turns']:.1f}",
        f"{d['utterances']:.1f}",
        str(faulty),
    ]


def _per_label(groups: list[dict[str, Any]]) -> str:
    """τ-Rec's results table: a row per label, pass^k with CIs, sub-scores, dialogue."""
    ks = sorted({int(k) for g in groups for k in g["pass_k"]})
    head = [
        "agent",
        "run",
        "episodes",
        *[f"pass^{k}" for k in ks],
        "constraint",
        "policy",
        "no-rec",
        "infra",
        "SR",
        "SRRR",
        "RDL",
        "avg turns",
        "utterances",
        "sim faults",
    ]
    lines = [_line(head), "|" + "---|" * len(head)]
    for g in groups:
        run = "sealed" if g.get("mode") == "sealed" else "open"
        cells = [md_cell(_label(g)), run, str(g["n_episodes"])]
        for k in ks:
            v = g["pass_k"].get(str(k))
            ci = g["pass_k_ci"].get(str(k))
            cells.append("-" if v is None else f"{percent(v)} [{percent(ci[0])}, {percent(ci[1])}]")
        cells += [
            percent(g["constraint_score"]),
            percent(g["policy_score"]),
            percent(g["no_rec_rate"]),
            str(g["infra_errors"]),
            *_dialogue_cells(g),
        ]
        lines.append(_line(cells))
    return "\n".join(lines) + "\n"
