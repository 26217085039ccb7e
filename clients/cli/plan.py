"""`taurec plan new`: a sealed run's plan (label, suite and catalog hashes, the task x
trial list, and a fresh bearer token) for `taurec serve --plan`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from taurec.clients.cli.stream_options import ControlName
from taurec.clients.cli.suite_option import SuiteOpt
from taurec.evaluator.cli.command_line import CommandGroup
from taurec.evaluator.text import plural

app = typer.Typer(
    cls=CommandGroup, help="Plans for sealed runs.", no_args_is_help=True, add_completion=False
)


@app.command("new")
def new(
    label: Annotated[str, typer.Option("--label", help="The contestant's agent label.")],
    out: Annotated[Path, typer.Option("--out", help="Where to write the plan (JSON).")],
    suite: SuiteOpt = "builtin",
    trials: Annotated[int, typer.Option("--trials", min=1, help="Trials per task.")] = 4,
    tasks: Annotated[
        str | None,
        typer.Option("--tasks", help="Comma-separated task ids (default: every task)."),
    ] = None,
    catalog: Annotated[
        Path | None,
        typer.Option(
            "--catalog",
            help="The catalog file or .taurec-catalog folder the server will serve in place "
            "of the suite's own (taurec serve --catalog): the plan pins its digest.",
        ),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
    with_control: Annotated[
        ControlName | None,
        typer.Option(
            "--with-control",
            help="Stream suites: a control arm beside the run (shuffled: scrambled feedback, "
            "blind; none: withheld), --trials each, drawn at random per (task, trial).",
        ),
    ] = None,
) -> None:
    """Write a plan (mode 0600). Keep the file with the server: it holds the bearer token,
    which is all the contestant gets. The plan pins the suite and the catalog served (the
    suite's own, or --catalog's), so a server serving anything else refuses it."""
    from taurec.catalog.errors import DataError
    from taurec.catalog.store import Catalog
    from taurec.tasks.runs.plan import new_plan, write_plan
    from taurec.tasks.suite import load_suite, portable_suite_spec

    try:
        loaded = load_suite(suite)
        if catalog is not None and loaded.kind != "recommendation":
            raise DataError(
                f"--catalog: a {loaded.kind} suite is served over its own data; only "
                "recommendation suites take a catalog in place of theirs"
            )
        served = loaded.catalog if catalog is None else Catalog.load(catalog)
        ids = [t.id for t in loaded.tasks]
        if tasks is not None:
            wanted = [t.strip() for t in tasks.split(",") if t.strip()]
            unknown = [t for t in wanted if loaded.get(t) is None]
            if unknown or not wanted:
                raise DataError(
                    f"--tasks: {', '.join(unknown) or 'no task id given'} not in suite "
                    f"{loaded.id!r}; expected ids such as {', '.join(ids[:3])}"
                )
            ids = list(dict.fromkeys(wanted))
        if with_control is not None and loaded.kind != "stream":
            raise DataError(
                f"--with-control applies to stream suites; this is a {loaded.kind} suite"
            )
        if out.exists() and not force:
            raise DataError(f"{out} exists; give another --out, or --force to replace it")
        if out.is_dir():
            raise DataError(f"{out} is a folder; expected a file path such as plan.json")
        plan = new_plan(
            label=label,
            suite_id=loaded.id,
            suite_spec=portable_suite_spec(loaded.spec),
            suite_sha256=loaded.sha256(),
            catalog_sha256=served.sha256(),
            task_ids=ids,
            trials=trials,
            control=None if with_control is None else with_control.value,
        )
        write_plan(plan, out)
    except (DataError, OSError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    serve_catalog = "" if catalog is None else f" --catalog {catalog}"
    typer.echo(
        f"plan {plan.plan_id[:12]}: label {plan.label}, suite {plan.suite.id}, "
        f"{plural(len(ids), 'task')} x {plural(trials, 'trial')}"
        f"{f' per arm (run, control: {with_control.value})' if with_control else ''} = "
        f"{plural(len(plan.episodes), 'episode')}, catalog {plan.catalog_sha256[:12]} -> {out}\n"
        f"serve it: taurec serve --plan {out}{serve_catalog} ...; the contestant's bearer "
        f'token is the plan\'s "token" (keep the file itself private)',
        err=True,
    )
