"""`taurec tasks`: validate suites, print answer keys, generate tasks, describe stream suites.

Exit codes: 0 = fine (warnings allowed), 1 = the suite has validation errors,
2 = the input could not be loaded (one line on stderr, no traceback).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import orjson
import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from taurec.catalog.spec import BUILTIN
from taurec.clients.cli.output import console as _console
from taurec.clients.cli.output import fail as _fail
from taurec.clients.cli.output import note_shipped_twins
from taurec.clients.cli.ranking_profiles import profiles_cmd
from taurec.clients.cli.ranking_tasks import generate_ranking, validate_pairs, validate_ranking
from taurec.clients.cli.stream_info import info_cmd
from taurec.clients.cli.stream_tasks import generate_streams_cmd, validate_streams
from taurec.evaluator.cli.command_line import CommandGroup

if TYPE_CHECKING:
    from taurec.tasks.recommendation.validate import StrataGrid, TaskReport, ValidationReport
    from taurec.tasks.suite import Suite

# `taurec tasks ... --help` loads this module: the suites, the catalog and the checks
# (numpy, scipy, bm25s, pydantic) are imported in each command's body.

app = typer.Typer(
    name="tasks",
    cls=CommandGroup,
    help="Task suites: validate them, print their answer keys, generate new ones.",
    no_args_is_help=True,
    add_completion=False,
)

SuiteArg = Annotated[
    str, typer.Argument(help="'builtin', a suite folder (suite.json + tasks/), or tau-rec:PATH.")
]


def _load(spec: str) -> Suite:
    from taurec.catalog.errors import DataError
    from taurec.tasks.suite import load_suite

    try:
        return load_suite(spec)
    except DataError as exc:
        _fail(exc)


@app.command()
def validate(
    suite: SuiteArg = BUILTIN,
    json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Check every task against its catalog and the others of its suite (one task must not
    give another's answer away); print per-task problems and the strata grid.

    "matches" counts the items each constraint alone matches, in task order.
    """
    from taurec.tasks.recommendation.validate import validate_suite

    loaded = _load(suite)
    other_kind = {
        "ranking": validate_ranking,
        "ppr": validate_pairs,
        "stream": validate_streams,
    }.get(loaded.kind)
    if other_kind is not None:
        other_kind(loaded, json_out)
        return
    report = validate_suite(loaded)
    if json_out:
        typer.echo(report.model_dump_json(indent=2))
    else:
        _print_report(_console(), loaded, report)
    raise typer.Exit(0 if report.ok else 1)


@app.command("answers")
def answers_cmd(
    suite: SuiteArg = BUILTIN,
    json_out: Annotated[
        bool, typer.Option("--json", help="Print one JSON object: task id -> answer key.")
    ] = False,
) -> None:
    """Print each task's answers and compliant answers (sorted item ids)."""
    from taurec.tasks.recommendation.answer_rows import answer_rows, compliant_mask, ids_of

    loaded = _load(suite)
    catalog = loaded.catalog
    key: dict[str, dict[str, list[str]]] = {}
    for task in loaded.tasks:
        rows = answer_rows(task, catalog)  # by id, as the per-item answer key lists them
        compliant = rows[compliant_mask(task, catalog)[rows]]
        key[task.id] = {
            "answers": ids_of(catalog, rows),
            "compliant_answers": ids_of(catalog, compliant),
        }
    if json_out:
        typer.echo(orjson.dumps(key, option=orjson.OPT_INDENT_2).decode())
        return
    table = Table(title=f"Answer keys: {loaded.id}")
    for col in ("task", "answers", "compliant", "compliant answers"):
        table.add_column(col, justify="right" if col in ("answers", "compliant") else "left")
    for task_id, k in key.items():
        shown = ", ".join(k["compliant_answers"][:6]) + (
            " ..." if len(k["compliant_answers"]) > 6 else ""
        )
        table.add_row(task_id, str(len(k["answers"])), str(len(k["compliant_answers"])), shown)
    _console().print(table)


@app.command()
def generate(
    out: Annotated[Path, typer.Option("--out", help="Suite folder to write.")],
    catalog: Annotated[
        str, typer.Option("--catalog", help="'builtin' or a catalog file path.")
    ] = BUILTIN,
    n: Annotated[int, typer.Option("--n", min=1, help="Number of tasks.")] = 60,
    seed: Annotated[int, typer.Option("--seed", help="Random seed.")] = 0,
    id_prefix: Annotated[
        str, typer.Option("--id-prefix", help="Task ids are <prefix>_<i>.")
    ] = "gen",
    suite_id: Annotated[
        str | None, typer.Option("--suite-id", help="Suite id (default: the folder name).")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace existing task files.")] = False,
    kind: Annotated[
        str, typer.Option("--kind", help="Task kind: recommendation or ranking.")
    ] = "recommendation",
    interactions: Annotated[
        str | None,
        typer.Option(
            "--interactions",
            help="--kind ranking: the interaction data (synthetic[:users=N,...], "
            "movielens:PATH|recbole, amazon:REVIEWS,META).",
        ),
    ] = None,
    per_user: Annotated[
        int, typer.Option("--per-user", min=1, help="--kind ranking: tasks per user at most.")
    ] = 1,
    split: Annotated[
        str,
        typer.Option(
            "--split", help="--kind ranking: the part the targets come from: train, valid or test."
        ),
    ] = "test",
    split_scheme: Annotated[
        str,
        typer.Option(
            "--split-scheme",
            help="--kind ranking: 'global' (all records by time, 8:1:1; AgenticRec's) or "
            "'per-user' (each user's records 8:1:1).",
        ),
    ] = "global",
    for_: Annotated[
        str,
        typer.Option(
            "--for",
            help="--kind recommendation: 'tools' (agents with the catalog tools; the grid of "
            "policies) or 'crs' (text-only CRSs: no policy needs a tool, every task has an "
            "answer; for real-film catalogs such as movielens:recbole).",
        ),
    ] = "tools",
) -> None:
    """Write N generated tasks and a suite.json to OUT; they pass `taurec tasks validate`."""
    from taurec.catalog.errors import DataError
    from taurec.catalog.store import Catalog
    from taurec.tasks.recommendation.generator import generate_tasks
    from taurec.tasks.recommendation.validate import validate_suite
    from taurec.tasks.suite import SUITE_FILE, TASKS_DIR, SuiteManifest, write_suite_dir

    if (out / TASKS_DIR).is_dir() and any((out / TASKS_DIR).glob("*.json")) and not force:
        _fail(f"{out / TASKS_DIR} already holds task files; pass --force to replace them")
    generators = {"ranking": generate_ranking}
    if kind in generators:
        split_at = (split, split_scheme)
        generators[kind](
            out, catalog, n, seed, id_prefix, suite_id, interactions, per_user, split_at
        )
        return
    if kind != "recommendation":
        _fail(f"--kind: unknown kind {kind!r}; expected recommendation or ranking")
    if interactions is not None:
        _fail("--interactions applies to --kind ranking only")
    if (split, split_scheme) != ("test", "global"):
        _fail("--split and --split-scheme apply to --kind ranking only")
    if for_ not in ("tools", "crs"):
        _fail(f"--for: {for_!r}; expected tools or crs")
    try:
        cat = Catalog.load(catalog)
        if for_ == "crs":
            from taurec.tasks.recommendation.crs_suite import generate_crs_tasks

            tasks = generate_crs_tasks(cat, n, seed, id_prefix=id_prefix)
        else:
            tasks = generate_tasks(cat, n, seed, id_prefix=id_prefix)
    except (DataError, ValueError) as exc:
        _fail(exc)
    ref = catalog
    if catalog != BUILTIN:
        ref = Path(os.path.relpath(Path(catalog).resolve(), out.resolve())).as_posix()
    try:
        manifest = SuiteManifest(
            format_version=1,
            id=suite_id or out.resolve().name,
            catalog=ref,
            description=f"{n} tasks generated with seed {seed} over catalog {catalog!r}.",
        )
    except ValueError as exc:
        _fail(f"invalid suite id (pass --suite-id): {exc}")
    write_suite_dir(out, manifest, tasks)
    report = validate_suite(_load(str(out)))
    console = _console()
    console.print(f"wrote {SUITE_FILE} and {len(tasks)} task files to {out}")
    note_shipped_twins(out, seed)
    console.print(_grid_table(report.grid))
    _print_summary(console, report)
    raise typer.Exit(0 if report.ok else 1)


app.command("generate-streams")(generate_streams_cmd)
app.command("info")(info_cmd)
app.command("profiles")(profiles_cmd)


# --- rendering ---------------------------------------------------------------------------


def _print_report(console: Console, suite: Suite, report: ValidationReport) -> None:
    console.print(
        f"[bold]Suite {suite.id}[/] ({suite.spec}): {len(suite.tasks)} tasks over catalog "
        f"{suite.catalog.meta.name!r} ({len(suite.catalog)} items)"
    )
    if suite.warnings:
        console.print(f"[yellow]{len(suite.warnings)} load warning(s):[/]")
        for w in suite.warnings:
            console.print(Text(f"  ! {w}", style="yellow"))
    table = Table(title="Tasks")
    table.add_column("task", no_wrap=True)
    table.add_column("stratum", no_wrap=True)
    table.add_column("answers", justify="right")
    table.add_column("compliant", justify="right")
    table.add_column("matches", overflow="fold")
    table.add_column("problems", ratio=1)
    for t in report.tasks:
        table.add_row(
            t.task_id + ("\n(no valid)" if t.no_valid_recommendation else ""),
            f"{t.complexity.value}/{t.reveal_difficulty.value}",
            str(len(t.answers)),
            str(len(t.compliant_answers)),
            " ".join(map(str, t.constraint_matches)),
            _problems_text(t),
        )
    console.print(table)
    console.print(_grid_table(report.grid))
    _print_summary(console, report)


def _problems_text(t: TaskReport) -> Text:
    text = Text()
    for p in t.errors:
        text.append(f"✗ {p.code}: {p.message}\n", style="red")
    for p in t.warnings:
        text.append(f"! {p.code}: {p.message}\n", style="yellow")
    if not text:
        text.append("ok", style="green")
    text.rstrip()
    return text


def _grid_table(grid: StrataGrid) -> Table:
    from taurec.tasks.recommendation.task import Complexity, RevealDifficulty

    table = Table(title="Tasks per stratum (complexity × reveal difficulty)")
    table.add_column("complexity")
    for r in RevealDifficulty:
        table.add_column(r.value, justify="right")
    table.add_column("total", justify="right", style="bold")
    for c in Complexity:
        cells = [str(grid.cells[c][r]) for r in RevealDifficulty]
        table.add_row(c.value, *cells, str(grid.row_totals[c]))
    table.add_section()
    totals = [str(grid.column_totals[r]) for r in RevealDifficulty]
    table.add_row("total", *totals, str(grid.total), style="bold")
    return table


def _print_summary(console: Console, report: ValidationReport) -> None:
    counts = (
        f"{len(report.tasks)} tasks: {report.n_errors} error(s), {report.n_warnings} warning(s)"
    )
    if report.ok:
        console.print(f"[green]OK[/] {counts}")
    else:
        console.print(f"[red]FAILED[/] {counts}")
