"""The `evaluator` command: deterministic, LLM-free scoring of episode logs."""

from __future__ import annotations

import sys
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
    Format,
    KeyFileOpt,
    MaxLogOpt,
    ReplayOpt,
    RulesOpt,
    SeedOpt,
    SuiteOpt,
    VerifyOpt,
    WorkersOpt,
    err,
    rules_of,
    score_logs,
    verify_key,
)
from taurec.evaluator.defaults import DEFAULT_RULES, MAX_LOG_BYTES
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


@app.command()
def score(
    logdirs: Annotated[
        list[Path], typer.Argument(help="Log files or directories (searched recursively).")
    ],
    json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object (the stable interface).")
    ] = False,
    fmt: Annotated[
        Format, typer.Option("--format", help="table, markdown or json.")
    ] = Format.TABLE,
    suite: SuiteOpt = None,
    catalog: CatalogOpt = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit 1 when any log has a problem.")
    ] = False,
    seed: SeedOpt = 0,
    workers: WorkersOpt = None,
    replay: ReplayOpt = True,
    verify: VerifyOpt = False,
    key_file: KeyFileOpt = None,
    max_log_mb: MaxLogOpt = MAX_LOG_BYTES // 2**20,
    rules: RulesOpt = DEFAULT_RULES,
) -> None:
    """Score every episode log and print one report per agent label and run.

    Every log's hash chain is checked (no key needed); --verify adds the signatures. A
    sealed run is scored by its plan: a planned episode that is missing or damaged counts
    as a failure. Exits 1 when a log is excluded or a run's files are damaged."""
    from importlib.metadata import version

    import orjson

    from taurec.evaluator.aggregate import aggregate
    from taurec.evaluator.render import (
        markdown,
        print_faults,
        print_groups,
        print_side_by_side,
        report_check,
    )

    names = rules_of(rules)
    key = verify_key(verify, key_file)
    by_rules: dict[str, list[dict]] = {}
    for name in names:
        check = score_logs(logdirs, suite, catalog, workers, replay, key, max_log_mb, name)
        by_rules[name] = [{**g, "rules": name} for g in aggregate(check.scores, seed=seed)]
    scores = check.scores
    groups = by_rules[names[0]]
    problems = [p for s in scores for p in s.problems]
    if json or fmt is Format.JSON:
        doc = {
            "format": "taurec-score",
            "format_version": 1,
            "evaluator_version": version("taurec"),
            "rules": rules,
            "groups": groups,
            "runs": check.runs,
            "excluded": [{"path": s.path, "why": why} for s, why in check.excluded],
            "run_problems": check.problems,
            "problems": problems,
        }
        if len(names) > 1:
            doc["by_rules"] = by_rules
        if key is not None:
            doc["verification"] = {
                "key_id": key.key_id,
                "verified": len(scores) - sum(s.sealed_failure is not None for s in scores),
                "failed": [{"path": s.path, "problem": why} for s, why in check.excluded],
            }
        sys.stdout.buffer.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
    elif fmt is Format.MARKDOWN:
        sys.stdout.write(markdown([g for name in names for g in by_rules[name]]))
    elif len(names) > 1:
        print_side_by_side(by_rules, Console())
    else:
        print_groups(groups, Console())
    if not (json or fmt is not Format.TABLE):
        print_faults(groups, Console())
    report_check(check, problems, key, err)
    for g in groups:
        if g["mode"] == "open":
            err.print(
                f"[yellow]warning:[/yellow] {markup(g['label'])}: "
                f"{plural(g['n_episodes'], 'episode')} from "
                "an open server (no run plan): any client could start any episode under any "
                "label, so these numbers are not comparable with sealed runs"
            )
    if not check.clean or (strict and problems):
        raise typer.Exit(1)


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
    logdirs: Annotated[
        list[Path], typer.Argument(help="Log files or directories (searched recursively).")
    ],
    failed: Annotated[
        bool, typer.Option("--failed", help="Only the episodes that failed.")
    ] = False,
    json: Annotated[bool, typer.Option("--json", help="Print the rows as a JSON list.")] = False,
    csv: Annotated[bool, typer.Option("--csv", help="Print the rows as CSV.")] = False,
    suite: SuiteOpt = None,
    catalog: CatalogOpt = None,
    workers: WorkersOpt = None,
    rules: RulesOpt = DEFAULT_RULES,
) -> None:
    """One row per episode, with its verdicts and metrics (table, JSON or CSV).

    Columns: label, run, task, trial, stratum, pass/fail, reward, end reason, failed
    constraints and policies, metrics, simulator faults, log path."""
    from taurec.evaluator.cli.log_paths import NotLogs, check_log_paths
    from taurec.evaluator.episodes.table import write_rows

    if json and csv:
        err.print("[red]error:[/red] --json and --csv exclude each other; give one")
        raise typer.Exit(2)
    try:
        check_log_paths(logdirs)
    except NotLogs as exc:
        err.print(f"[red]error:[/red] {markup(exc)}")
        raise typer.Exit(2) from None
    check = score_logs(logdirs, suite, catalog, workers, rules=rules_of(rules)[0])
    write_rows(check.scores, failed=failed, fmt="json" if json else "csv" if csv else "table")


@app.command()
def view(
    logdirs: Annotated[
        list[Path], typer.Argument(help="Log files or directories (searched recursively).")
    ],
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
    code = run_view(logdirs, resolver, port, not no_open, bundle, err, show_hidden=show_hidden)
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
    logdirs: Annotated[
        list[Path], typer.Argument(help="Log files or directories (searched recursively).")
    ],
    out: Annotated[Path, typer.Option("-o", "--out", help="The HTML file to write.")],
    title: Annotated[str, typer.Option("--title", help="The page's title.")] = "taurec report",
    suite: SuiteOpt = None,
    catalog: CatalogOpt = None,
    seed: SeedOpt = 0,
    workers: WorkersOpt = None,
    rules: RulesOpt = DEFAULT_RULES,
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
