"""Reports for people: rich tables for the terminal, Markdown for papers."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.episodes.view import display_value
from taurec.evaluator.sealed import RunCheck
from taurec.evaluator.text import markup, md_cell
from taurec.tasks.trajectory.signing import LogKey

#: Problems and excluded logs listed one by one; the rest are counted.
SHOWN = 20


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f}%"


def _num(v: float | None, digits: int = 1) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def run_rows(group: dict[str, Any]) -> list[tuple[str, str]]:
    """The rows every kind's table starts with: the run (sealed or open) and the suite."""
    suite = group.get("suite") or {}
    sha = suite.get("sha256")
    return [
        ("run", _run(group)),
        (
            "suite",
            f"{suite.get('id')} ({suite.get('spec')}" + (f", sha256 {sha[:12]}…)" if sha else ")"),
        ),
    ]


def _rows_of(group: dict[str, Any]) -> list[tuple[str, str]]:
    from taurec.evaluator.kinds import EVALUATOR_KINDS
    from taurec.evaluator.recommendation.dialogue import dialogue_rows

    return [
        *EVALUATOR_KINDS.get(group.get("kind", "recommendation")).summary_rows(group),
        *dialogue_rows(group),
    ]


def _run(group: dict[str, Any]) -> str:
    if group.get("mode") == "sealed":
        return f"sealed (plan {str(group.get('plan_id'))[:12]})"
    return (
        "OPEN: any client could start any episode under any label; not comparable with sealed runs"
    )


def print_groups(groups: list[dict[str, Any]], console: Console) -> None:
    for group in groups:
        table = Table(
            title=f"agent: {markup(group['label'])}", show_header=False, title_justify="left"
        )
        table.add_column("metric", style="bold")
        table.add_column("value")
        for name, value in _rows_of(group):
            table.add_row(markup(name), markup(value))
        console.print(table)


def _logs(n: int) -> str:
    return "1 log is" if n == 1 else f"{n:,} logs are"


def report_check(
    check: RunCheck, problems: list[str], key: LogKey | None, console: Console
) -> None:
    """On stderr: per-log problems, run-level findings, and every log not counted."""
    for p in problems[:SHOWN]:
        console.print(f"[yellow]problem:[/yellow] {markup(p)}")
    if len(problems) > SHOWN:
        console.print(f"[yellow]... and {len(problems) - SHOWN:,} more problems[/yellow]")
    for p in check.problems:
        console.print(f"[bold red]run problem:[/bold red] {markup(p)}")
    for run in check.runs:
        if run.get("replayed"):
            console.print(
                f"[yellow]note:[/yellow] run of {markup(run['label'])} (plan "
                f"{markup(str(run['plan_id'])[:12])}): {run['replayed']} planned episodes were "
                "played a second time after the server cut the first attempt off (a restart); "
                "the second attempt is scored"
            )
    if check.excluded:
        console.print(
            f"[bold red]{_logs(len(check.excluded))} NOT counted (where one holds a planned "
            "episode of a sealed run, that episode counts as a failure):[/bold red]"
        )
        for s, why in check.excluded[:SHOWN]:
            console.print(f"[red]  {markup(s.path)}: {markup(why)}[/red]")
        if len(check.excluded) > SHOWN:
            console.print(f"[red]  ... and {len(check.excluded) - SHOWN:,} more[/red]")
    elif key is not None:
        console.print(
            f"[green]verified:[/green] every counted log is intact and signed by key {key.key_id}"
        )
    if check.damaged:
        console.print(
            f"[bold red]{check.damaged} planned episodes count as failures because their "
            "evidence is missing or altered (see above)[/bold red]"
        )


def print_side_by_side(by_rules: dict[str, list[dict[str, Any]]], console: Console) -> None:
    """One table per group, one value column per rules profile (the groups of each profile
    come from the same logs, so they pair up in order)."""
    from taurec.evaluator.kinds import EVALUATOR_KINDS
    from taurec.tasks.kinds import DEFAULT_KIND

    names = list(by_rules)
    for paired in zip(*by_rules.values(), strict=True):
        rows: dict[str, dict[str, str]] = {}
        for name, group in zip(names, paired, strict=True):
            for metric, value in EVALUATOR_KINDS.get(group.get("kind", DEFAULT_KIND)).summary_rows(
                group
            ):
                rows.setdefault(metric, {})[name] = value
        table = Table(title=f"agent: {markup(paired[0]['label'])}", title_justify="left")
        table.add_column("metric", style="bold")
        for name in names:
            table.add_column(f"rules: {name}")
        for metric, values in rows.items():
            table.add_row(markup(metric), *(markup(values.get(n, "-")) for n in names))
        console.print(table)


def _label(group: dict[str, Any]) -> str:
    rules = group.get("rules")
    return group["label"] if rules in (None, "taurec") else f"{group['label']} [{rules}]"


def _dialogue_cells(group: dict[str, Any]) -> list[str]:
    d = group.get("dialogue") or {}
    if not d.get("episodes"):
        return ["-"] * 6
    faulty = sum(f["faulty"] for f in group["simulator_faults"]["by_simulator"].values())
    return [
        _pct(d["sr"]),
        _pct(d["srrr"]),
        _pct(d["rdl"]),
        f"{d['avg_turns']:.1f}",
        f"{d['utterances']:.1f}",
        str(faulty),
    ]


def print_faults(groups: list[dict[str, Any]], console: Console) -> None:
    """The episodes where the simulated user contradicted its task, one line per fault."""
    from taurec.evaluator.recommendation.dialogue import fault_lines

    lines = fault_lines(groups)
    if not lines:
        return
    table = Table(
        title="simulator faults (the simulated user, not the agent)",
        show_header=False,
        title_justify="left",
    )
    table.add_column("fault")
    for line in lines:
        table.add_row(markup(line))
    console.print(table)


def markdown(groups: list[dict[str, Any]]) -> str:
    ks = sorted({int(k) for g in groups for k in g["pass_k"]})
    head = [
        "agent",
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
    head.insert(1, "run")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for g in groups:
        if "constraint_score" not in g:  # another kind's report has its own table
            continue
        run = "sealed" if g.get("mode") == "sealed" else "open"
        cells = [md_cell(_label(g)), run, str(g["n_episodes"])]
        for k in ks:
            v = g["pass_k"].get(str(k))
            ci = g["pass_k_ci"].get(str(k))
            cells.append("-" if v is None else f"{_pct(v)} [{_pct(ci[0])}, {_pct(ci[1])}]")
        cells += [
            _pct(g["constraint_score"]),
            _pct(g["policy_score"]),
            _pct(g["no_rec_rate"]),
            str(g["infra_errors"]),
            *_dialogue_cells(g),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def print_explanation(score: EpisodeScore, console: Console) -> None:
    console.print(
        f"[bold]{markup(score.path)}[/bold] (rules {score.rules})\nagent {markup(score.label)}, task "
        f"{markup(score.task_id)}, trial {score.trial}: end={score.end_reason}, "
        f"outcome={score.outcome}" + (f" ({markup(score.item_id)})" if score.item_id else "")
    )
    verdict = "[green]PASS[/green]" if score.passed else "[red]FAIL[/red]"
    if score.kind == "recommendation":
        console.print(
            f"reward {score.reward:.0f} = constraint {score.constraint_score:.0f} × policy {score.policy_score:.0f}"
            f"  → {verdict}   (partial constraint {score.constraint_partial:.2f})"
        )
    else:
        console.print(f"reward {score.reward:.3f}  → {verdict}")
    if score.metrics:
        console.print(
            "metrics: "
            + ", ".join(f"{markup(k)} {v:.3g}" for k, v in sorted(score.metrics.items()))
        )
    if score.constraint_verdicts:
        table = Table(title="constraints", title_justify="left")
        for col in ("constraint", "reveal", "item value", "holds"):
            table.add_column(col)
        for v in score.constraint_verdicts:
            table.add_row(
                markup(v.text),
                v.reveal,
                markup(display_value(v.actual)),
                "yes" if v.holds else "[red]no[/red]",
            )
        console.print(table)
    if score.policy_results:
        table = Table(title="policies", title_justify="left")
        for col in ("policy", "verdict", "evidence", "reason"):
            table.add_column(col)
        for r in score.policy_results:
            style = {"pass": "green", "fail": "red"}.get(r.verdict.value, "dim")
            table.add_row(
                r.policy.value,
                f"[{style}]{r.verdict.value}[/{style}]",
                f"seq {r.seq}" if r.seq is not None else "-",
                markup(r.reason),
            )
        console.print(table)
    for p in score.problems:
        console.print(f"[yellow]problem:[/yellow] {markup(p)}")
