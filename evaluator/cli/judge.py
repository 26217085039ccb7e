"""`evaluator judge LOGDIR --model M`: grade every dialogue under LOGDIR with an LLM judge
on the five aspects (judge/rubrics.py), print the means per agent, and keep the answers in
LOGDIR/judge/ (judge/store.py). The deterministic scores are not touched.

litellm is imported inside the command (start-up of `evaluator --help` stays fast).
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from taurec.evaluator.text import markup

if TYPE_CHECKING:
    from taurec.evaluator.judge.run import JudgeReport

err = Console(stderr=True, soft_wrap=True, highlight=False)


def _fail(message: object) -> typer.Exit:
    err.print(f"[red]error:[/red] {markup(str(message))}")
    return typer.Exit(2)


def judge(
    logdir: Annotated[
        Path, typer.Argument(help="A folder of episode logs (searched recursively).")
    ],
    model: Annotated[str, typer.Option("--model", help="The judge: a litellm model string.")],
    samples: Annotated[
        int, typer.Option("--samples", min=1, help="Calls per dialogue and aspect (mean, spread).")
    ] = 1,
    aspects: Annotated[
        str | None,
        typer.Option("--aspects", help="Comma-separated aspects (default: all five)."),
    ] = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, help="Judge calls in flight at once.")
    ] = 4,
) -> None:
    """Grade each dialogue on five aspects (1-5) with an LLM judge.

    Answers are cached in LOGDIR/judge/. Unreadable replies are "no score" (counted),
    never 0."""
    from taurec.evaluator.judge.rubrics import ASPECTS, UnknownAspect
    from taurec.evaluator.judge.run import JudgeError, JudgeSettings, judge_logs

    if not logdir.is_dir():
        raise _fail(f"{logdir}: not a folder of episode logs")
    names = tuple(a.strip() for a in aspects.split(",") if a.strip()) if aspects else tuple(ASPECTS)
    settings = JudgeSettings(model=model, samples=samples, aspects=names, concurrency=concurrency)
    try:
        report = judge_logs(logdir, settings)
    except (UnknownAspect, JudgeError, ValueError) as exc:
        raise _fail(exc) from None
    if not report.scores:  # an empty table would look like a judgement of nothing
        raise _fail(_nothing_judged(logdir, report))
    _print(report, Console(highlight=False))


def _nothing_judged(logdir: Path, report: JudgeReport) -> str:
    """Why a judge run judged no episode: no logs, or none held a dialogue."""
    if not report.skipped:
        return f"{logdir}: no episode logs found; expected a folder `taurec run --out` wrote"
    first = report.skipped[0]
    return (
        f"{logdir}: none of its {len(report.skipped)} logs holds a dialogue to judge (the "
        f"judge reads the user's and the agent's messages); the first: {first.path}: "
        f"{first.why}"
    )


def _print(report: JudgeReport, console: Console) -> None:
    if report.discarded:
        err.print(
            f"[yellow]warning:[/yellow] {markup(report.discarded)}; "
            "its answers were not reused, and it is replaced by a signed file"
        )
    by_label: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    failures: dict[str, int] = defaultdict(int)
    episodes: dict[str, int] = defaultdict(int)
    for episode, aspects in report.scores.items():
        label = report.labels.get(episode, "?")
        episodes[label] += 1
        for name, score in aspects.items():
            by_label[label][name].append(score.mean)
            failures[label] += score.failures
    from taurec.evaluator.judge.mock import judge_name

    title = f"judge {judge_name(report.model)} ({report.samples} sample(s) per aspect)"
    table = Table(title=markup(title))
    table.add_column("agent")
    table.add_column("episodes", justify="right")
    for name in report.aspects:
        table.add_column(name, justify="right")
    table.add_column("no score", justify="right")
    for label in sorted(by_label):
        cells = []
        for name in report.aspects:
            means = [m for m in by_label[label][name] if not math.isnan(m)]
            if means:
                spread = statistics.pstdev(means) if len(means) > 1 else 0.0
                cells.append(f"{statistics.fmean(means):.2f} ±{spread:.2f}")
            else:
                cells.append("no score")
        table.add_row(markup(label), str(episodes[label]), *cells, str(failures[label]))
    console.print(table)
    cost = (
        "unknown (no price for this model)"
        if report.cost_usd is None
        else f"${report.cost_usd:.4f}"
    )
    err.print(
        f"{report.calls_made} judge calls made ({report.prompt_tokens} prompt + "
        f"{report.completion_tokens} completion tokens, cost {cost}); "
        f"{report.cached} answers reused from the cache"
    )
    if report.call_errors:
        asked = report.calls_made + report.call_errors
        err.print(
            f"[yellow]{report.call_errors} of {asked} judge calls failed[/yellow] (the first: "
            f"{markup(report.first_error or '?')}); they are asked again on the next run"
        )
    if report.failures:
        err.print(
            f"[yellow]{report.failures} samples have no score[/yellow] (unreadable replies"
            f"{f' or {report.call_errors} failed calls' if report.call_errors else ''}); "
            "they are left out of the means, never counted as 0"
        )
    if report.skipped:
        err.print(f"skipped {len(report.skipped)} logs without a dialogue to judge:")
        for skipped in report.skipped[:10]:
            err.print(f"  {markup(skipped.path)}: {markup(skipped.why)}")
        if len(report.skipped) > 10:
            err.print(f"  ... and {len(report.skipped) - 10} more")
    err.print(f"answers kept in {markup(str(report.path))}")
