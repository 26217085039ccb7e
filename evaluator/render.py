"""Reports for people: rich tables for the terminal (Markdown for papers: markdown.py)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.episodes.view import display_value
from taurec.evaluator.sealed import COUNTS_AS_FAILED, RunCheck
from taurec.evaluator.text import markup
from taurec.tasks.trajectory.signing import LogKey

#: Problems and excluded logs listed one by one; the rest are counted.
SHOWN = 20


def _num(v: float | None, digits: int = 1) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def run_rows(group: dict[str, Any]) -> list[tuple[str, str]]:
    """The rows every kind's table starts with: the run (sealed or open), the suite and,
    when there are any, the agent errors."""
    suite = group.get("suite") or {}
    sha = suite.get("sha256")
    rows = [
        ("run", _run(group)),
        (
            "suite",
            f"{suite.get('id')} ({suite.get('spec')}" + (f", sha256 {sha[:12]}…)" if sha else ")"),
        ),
    ]
    if group.get("agent_errors"):
        n = f"{group['agent_errors']} of {group.get('n_episodes', '?')}"
        rows.append(("agent errors", f"{n}: {all_agent_errors(group) or 'counted as failures'}"))
    return rows


def all_agent_errors(group: dict[str, Any]) -> str | None:
    """What a group whose every episode ended in an agent error is flagged with (None for
    any other group)."""
    log = group.get("agent_error_log")
    if not log:
        return None
    return (
        "every episode ended in an agent error: see the first traceback with "
        f"`evaluator explain {log}`"
    )


def group_rows(group: dict[str, Any]) -> list[tuple[str, str]]:
    from taurec.evaluator.kinds import EVALUATOR_KINDS
    from taurec.evaluator.model_usage import usage_rows
    from taurec.evaluator.recommendation.dialogue import dialogue_rows

    return [
        *EVALUATOR_KINDS.get(group.get("kind", "recommendation")).summary_rows(group),
        *dialogue_rows(group),
        *usage_rows(group),
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
        table.add_column("value", overflow="fold")  # a log's path breaks, never cut short
        for name, value in group_rows(group):
            table.add_row(markup(name), markup(value))
        console.print(table)


def _logs(n: int) -> str:
    return "1 log is" if n == 1 else f"{n:,} logs are"


def replay_counts(scores: list[EpisodeScore]) -> dict[str, int]:
    """Of these logs, how many had their read-only results trusted by their verified
    signature (not recomputed) and how many replayed (counted or not)."""
    return {
        "trusted_by_signature": sum(s.replay == "signed" for s in scores),
        "replayed": sum(s.replay == "replayed" for s in scores),
    }


def folded_problems(problems: list[str]) -> list[str]:
    """The problem lines with the planned episodes that count as failed for one reason
    folded into one line (a run stopped early has hundreds never started), in the order
    their reasons first appear."""
    order: list[str | tuple[str]] = []  # a problem line, or (why,): its episodes' line
    slots: dict[str, list[str]] = {}  # why -> the episodes it fails
    for p in problems:
        slot, found, why = p.partition(COUNTS_AS_FAILED)
        if not found:
            order.append(p)
            continue
        if why not in slots:
            slots[why] = []
            order.append((why,))
        slots[why].append(slot)
    return [p if isinstance(p, str) else _failed_line(p[0], slots[p[0]]) for p in order]


def _failed_line(why: str, failed: list[str]) -> str:
    if len(failed) == 1:
        return f"{failed[0]}{COUNTS_AS_FAILED}{why}"
    shown = ", ".join(failed[:3]) + (", ..." if len(failed) > 3 else "")
    hint = "; taurec run --resume plays them" if why.startswith("never started") else ""
    return f"{len(failed):,} planned episodes count as failed: {why} ({shown}){hint}"


def report_check(
    check: RunCheck, problems: list[str], key: LogKey | None, console: Console
) -> None:
    """On stderr: per-log problems, run-level findings, and every log not counted."""
    problems = folded_problems(problems)
    for p in problems[:SHOWN]:
        console.print(f"[yellow]problem:[/yellow] {markup(p)}")
    if len(problems) > SHOWN:
        console.print(f"[yellow]... and {len(problems) - SHOWN:,} more problems[/yellow]")
    for path in check.skipped[:SHOWN]:
        console.print(f"[yellow]skipped:[/yellow] {markup(path)}: not a taurec log")
    if len(check.skipped) > SHOWN:
        console.print(f"[yellow]... and {len(check.skipped) - SHOWN:,} more, skipped[/yellow]")
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
    if key is not None:
        counts = replay_counts(check.scores + [s for s, _ in check.excluded])
        console.print(
            f"replay: {_logs(counts['trusted_by_signature'])} trusted by signature (sealed, "
            f"HMAC verified: logged results not recomputed), {counts['replayed']:,} replayed"
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
