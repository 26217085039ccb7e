"""The `evaluator` command: deterministic, LLM-free scoring of episode logs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from taurec.evaluator.cli.command_line import CommandGroup, add_version_option, prepare, run_app
from taurec.evaluator.cli.dialogues import dialogues
from taurec.evaluator.cli.export_command import export_command
from taurec.evaluator.cli.judge import judge
from taurec.evaluator.cli.options import (
    CatalogOpt,
    LabelOpt,
    LogDirsArg,
    RulesOpt,
    SeedOpt,
    SuiteOpt,
    WorkersOpt,
    err,
    exit_if_nothing_counted,
    label_filter,
    rules_of,
    score_logs,
)
from taurec.evaluator.cli.score import score
from taurec.evaluator.defaults import DEFAULT_RULES
from taurec.evaluator.text import markup, plural

if TYPE_CHECKING:
    from taurec.evaluator.episode import EpisodeScore

# `evaluator --help` loads this module only: each command imports the scoring stack
# (numpy, scipy, the catalog) in its body, so the help stays instant.

app = typer.Typer(
    name="evaluator",
    cls=CommandGroup,
    help="Score taurec episode logs deterministically (no LLM calls).",
    no_args_is_help=True,
    add_completion=False,
)


add_version_option(app, "evaluator (taurec)")


app.command("score")(score)


@app.command()
def explain(
    logs: Annotated[list[Path], typer.Argument(help="Episode logs (.jsonl) or folders of them.")],
    suite: SuiteOpt = None,
    catalog: CatalogOpt = None,
    rules: RulesOpt = DEFAULT_RULES,
) -> None:
    """Show every constraint and policy verdict of each episode, then the conversation.

    Each verdict names its evidence by the log seq it concerns."""
    from taurec.evaluator.cli.explain import explain_logs
    from taurec.evaluator.cli.log_paths import NotLogs, check_log_paths
    from taurec.evaluator.logs import Resolver

    names = rules_of(rules)
    try:
        files = check_log_paths(logs)
    except NotLogs as exc:
        err.print(f"[red]error:[/red] {markup(exc)}")
        raise typer.Exit(2) from None
    resolvers = [Resolver(suite=suite, catalog=catalog, rules=name) for name in names]
    explain_logs(files, resolvers, Console(highlight=False))


@app.command()
def episodes(
    logdirs: LogDirsArg,
    failed: Annotated[
        bool, typer.Option("--failed", help="Only the episodes that failed.")
    ] = False,
    json: Annotated[bool, typer.Option("--json", help="Print the rows as a JSON list.")] = False,
    csv: Annotated[bool, typer.Option("--csv", help="Print the rows as CSV.")] = False,
    suite: SuiteOpt = None,
    catalog: CatalogOpt = None,
    label: LabelOpt = None,
    workers: WorkersOpt = None,
    rules: RulesOpt = DEFAULT_RULES,
) -> None:
    """One row per episode, with its verdicts and metrics (table, JSON or CSV).

    Columns: label, run, task, trial, stratum, pass/fail, reward, end reason, failed
    constraints and policies, metrics, simulator faults, log path. What `evaluator score`
    finds wrong with the run's files is said on stderr, as there; exits 2 when not one
    log could be counted."""
    from taurec.evaluator.cli.log_paths import NotLogs, check_log_paths
    from taurec.evaluator.episodes.table import write_rows
    from taurec.evaluator.labels import labels_of, select_check
    from taurec.evaluator.render import report_check

    if json and csv:
        err.print("[red]error:[/red] --json and --csv exclude each other; give one")
        raise typer.Exit(2)
    try:
        check_log_paths(logdirs)
    except NotLogs as exc:
        err.print(f"[red]error:[/red] {markup(exc)}")
        raise typer.Exit(2) from None
    check = score_logs(logdirs, suite, catalog, workers, rules=rules_of(rules)[0])
    chosen = label_filter(label, labels_of(check))
    check = select_check(check, lambda s: chosen.matches(s.label))
    report_check(check, [], None, err)
    exit_if_nothing_counted(check)
    write_rows(check.scores, failed=failed, fmt="json" if json else "csv" if csv else "table")


@app.command()
def view(
    logdirs: Annotated[
        list[Path] | None,
        typer.Argument(help="Log files or directories (searched recursively); default: logs/."),
    ] = None,
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port on 127.0.0.1 (0: any free).")
    ] = 0,
    no_open: Annotated[
        bool, typer.Option("--no-open", help="Print the address; do not open a browser.")
    ] = False,
    bundle: Annotated[
        Path | None,
        typer.Option("--bundle", help="Write the viewer as static files to this folder and exit."),
    ] = None,
    show_hidden: Annotated[
        bool,
        typer.Option(
            "--show-hidden",
            help="Show the answer key (hidden constraints, positives) of tasks still being played.",
        ),
    ] = False,
    suite: SuiteOpt = None,
    catalog: CatalogOpt = None,
    label: LabelOpt = None,
    rules: RulesOpt = DEFAULT_RULES,
) -> None:
    """Browse episodes in a local web page, updated as new logs appear.

    Filter by label, task, stratum, pass/fail, failed policy, end reason or simulator
    fault; read each conversation with its verdicts. Served on 127.0.0.1 to holders of
    the token in the printed address; --bundle writes it as static files instead."""
    from taurec.evaluator.cli.view import run_view
    from taurec.evaluator.logs import Resolver

    (name,) = rules_of(rules)[:1]
    resolver = Resolver(suite=suite, catalog=catalog, rules=name)
    code = run_view(
        logdirs or [],
        resolver,
        port,
        not no_open,
        bundle,
        err,
        show_hidden=show_hidden,
        labels=label or (),
    )
    if code:
        raise typer.Exit(code)


@app.command()
def compare(
    label_a: Annotated[str, typer.Argument(help="Agent label A.")],
    label_b: Annotated[str, typer.Argument(help="Agent label B.")],
    logdirs: Annotated[
        list[Path], typer.Argument(help="Log files or directories holding both labels.")
    ],
    suite: SuiteOpt = None,
    catalog: CatalogOpt = None,
    seed: SeedOpt = 0,
    rules: RulesOpt = DEFAULT_RULES,
) -> None:
    """Paired per-task bootstrap of the pass^1 difference A - B."""
    for name in rules_of(rules):
        _compare(
            label_a, label_b, score_logs(logdirs, suite, catalog, rules=name).scores, seed, name
        )


def _compare(label_a: str, label_b: str, scores: list[EpisodeScore], seed: int, rules: str) -> None:
    from taurec.evaluator.aggregate import task_counts
    from taurec.evaluator.passk import MIN_SHARED_TASKS, difference_verdict, paired_difference

    by_label = {label: [s for s in scores if s.label == label] for label in (label_a, label_b)}
    labels = sorted({s.label for s in scores})
    for label, group in by_label.items():
        if not group:
            err.print(
                f"[red]error:[/red] no episodes with agent label {markup(repr(label))}; "
                f"labels found: {markup(', '.join(labels))}"
            )
            raise typer.Exit(2)
    diff, (lo, hi), n = paired_difference(
        task_counts(by_label[label_a]), task_counts(by_label[label_b]), seed=seed
    )
    if n == 0:
        err.print("[red]error:[/red] the two labels share no task")
        raise typer.Exit(2)
    if n < MIN_SHARED_TASKS:
        err.print(
            f"[yellow]warning:[/yellow] only {plural(n, 'shared task')}; a paired bootstrap "
            f"over fewer than {MIN_SHARED_TASKS} tasks is too rough to rely on"
        )
    Console(highlight=False).print(
        f"pass^1({markup(label_a)}) - pass^1({markup(label_b)}) = {100 * diff:+.1f} points over "
        f"{plural(n, 'shared task')}, 95% CI [{100 * lo:+.1f}, {100 * hi:+.1f}]: "
        f"{difference_verdict(lo, hi)} (rules {rules})"
    )


app.command("export")(export_command)


@app.command()
def report(
    logdirs: LogDirsArg,
    out: Annotated[Path, typer.Option("-o", "--out", help="The HTML file to write.")],
    title: Annotated[str, typer.Option("--title", help="The page's title.")] = "taurec report",
    suite: SuiteOpt = None,
    catalog: CatalogOpt = None,
    label: LabelOpt = None,
    seed: SeedOpt = 0,
    workers: WorkersOpt = None,
    rules: RulesOpt = DEFAULT_RULES,
    bundle: Annotated[
        Path | None,
        typer.Option(
            "--bundle",
            help="Also write the viewer as static files to this folder (as `evaluator view "
            "--bundle`) and link each failed episode to its page there.",
        ),
    ] = None,
    viewer: Annotated[
        str | None,
        typer.Option(
            "--viewer",
            help="Link each failed episode to its page in a viewer bundle written before: "
            "its folder, or the URL it is published at.",
        ),
    ] = None,
) -> None:
    """Write one self-contained HTML report (plots beside tables; works offline)."""
    from taurec.evaluator.cli.report import ReportError, write_report

    (name,) = rules_of(rules)[:1]
    try:
        write_report(
            logdirs,
            out,
            title=title,
            suite=suite,
            catalog=catalog,
            rules=name,
            seed=seed,
            workers=workers,
            err=err,
            labels=label or (),
            bundle=bundle,
            viewer=viewer,
        )
    except ReportError as exc:
        err.print(f"[red]error:[/red] {markup(exc)}")
        raise typer.Exit(2) from None


app.command("judge")(judge)
app.command("dialogues")(dialogues)


@app.command("version")
def show_version() -> None:
    """Print the installed taurec version."""
    from importlib.metadata import version

    typer.echo(version("taurec"))


def main() -> None:
    # `evaluator judge` calls an LLM: its key may sit in .env here (never overriding the shell)
    prepare(app)
    run_app(app, "evaluator")
