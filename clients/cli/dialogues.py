"""`taurec dialogues`: episode logs out as DialogueKit's annotated-dialogue JSON;
dialogues from outside (DialogueKit JSON such as UserSimCRS's IARD file, ReDial's JSONL,
INSPIRED's TSV) in as taurec's annotated dialogues, and as recommendation tasks over a
catalog."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from taurec.evaluator.cli.command_line import CommandGroup

app = typer.Typer(
    cls=CommandGroup,
    help="Annotated dialogues: export logs as DialogueKit JSON, import DialogueKit JSON.",
    no_args_is_help=True,
    add_completion=False,
)
err = Console(stderr=True, highlight=False, soft_wrap=True)


class Labels(StrEnum):
    IARD = "iard"
    TAUREC = "taurec"


def _fail(message: object) -> None:
    from taurec.evaluator.text import markup

    err.print(f"[red]error:[/red] {markup(str(message))}")
    raise typer.Exit(2)


@app.command("export")
def export(
    logdirs: Annotated[list[Path], typer.Argument(help="Episode logs or folders of them.")],
    out: Annotated[Path, typer.Option("--out", help="The DialogueKit JSON file to write.")],
    labels: Annotated[
        Labels,
        typer.Option("--labels", help="Act labels: iard (ACC, REJ, REC-S, ...) or taurec's."),
    ] = Labels.IARD,
) -> None:
    """Write the dialogues of episode logs as DialogueKit JSON (one file, all dialogues)."""
    from taurec.catalog.errors import DataError
    from taurec.evaluator.files import NotARunFile, find_logs
    from taurec.evaluator.recommendation.dialogues import log_dialogue
    from taurec.tasks.dialogues.dialoguekit import write_dialoguekit
    from taurec.tasks.trajectory.reader import read_log

    try:
        files = find_logs(logdirs)
    except (FileNotFoundError, NotARunFile) as exc:
        _fail(exc)
    dialogues, skipped = [], 0
    for path in files:
        try:
            parsed = read_log(path)
            found = log_dialogue(parsed.header, parsed.events) if parsed.header else None
        except (DataError, ValueError):
            found = None
        if found is None:
            skipped += 1
        else:
            dialogues.append(found)
    if not dialogues:
        _fail(f"no log under {', '.join(map(str, logdirs))} has a dialogue with acts")
    if out.suffix != ".json":
        _fail(f"--out {out}: expected a .json file (DialogueKit's format)")
    n = write_dialoguekit(dialogues, out, labels.value)
    note = f" ({skipped} logs without a dialogue passed over)" if skipped else ""
    err.print(f"wrote {n} dialogues to {out}{note}")


SourceArg = Annotated[
    Path,
    typer.Argument(help="Dialogues: DialogueKit JSON (e.g. IARD), ReDial JSONL or INSPIRED TSV."),
]


def _read(source: Path) -> list:
    from taurec.catalog.errors import DataError
    from taurec.tasks.dialogues.reading import read_annotated_dialogues

    if not source.is_file():
        _fail(f"{source}: no such file")
    try:
        return read_annotated_dialogues(source, logs=False)
    except DataError as exc:
        _fail(exc)
    raise AssertionError  # _fail does not return


@app.command("import")
def import_(
    source: SourceArg,
    out: Annotated[
        Path, typer.Option("--out", help="The annotated-dialogues JSONL file to write.")
    ],
) -> None:
    """Read dialogues from outside into taurec's annotated dialogues (JSONL, one per
    line), for `--agenda-dialogues` and `evaluator dialogues`."""
    import orjson

    dialogues = _read(source)
    tmp = out.with_name(out.name + ".partial")
    tmp.write_bytes(
        b"".join(
            orjson.dumps(d.model_dump(mode="json", exclude_defaults=True)) + b"\n"
            for d in dialogues
        )
    )
    tmp.replace(out)
    err.print(f"wrote {len(dialogues)} dialogues to {out}")


@app.command("tasks")
def tasks(
    source: SourceArg,
    catalog: Annotated[str, typer.Option("--catalog", help="The catalog the titles are found in.")],
    out: Annotated[Path, typer.Option("--out", help="The suite folder to write.")],
    id_prefix: Annotated[
        str, typer.Option("--id-prefix", help="Task ids are <prefix>_<id>.")
    ] = "dlg",
) -> None:
    """Write a suite of recommendation tasks, one per dialogue whose user accepted a title
    the catalog has: its genres as the constraints, the titles the user liked as soft
    preferences (no policy needs a tool)."""
    import os

    from taurec.catalog.errors import DataError
    from taurec.catalog.store import Catalog
    from taurec.tasks.dialogues.needs import tasks_from_dialogues
    from taurec.tasks.suite import SuiteManifest, write_suite_dir

    dialogues = _read(source)
    try:
        cat = Catalog.load(catalog)
    except DataError as exc:
        _fail(exc)
    report = tasks_from_dialogues(dialogues, cat, id_prefix)
    if not report.tasks:
        _fail(f"no task: {report.line()}")
    ref = (
        catalog
        if catalog == "builtin"
        else Path(os.path.relpath(Path(catalog).resolve(), out.resolve())).as_posix()
    )
    manifest = SuiteManifest(
        format_version=1,
        id=out.resolve().name,
        catalog=ref,
        description=f"Tasks from the dialogues of {source.name}: {report.line()}.",
    )
    write_suite_dir(out, manifest, report.tasks)
    err.print(f"wrote {out}: {report.line()}")
