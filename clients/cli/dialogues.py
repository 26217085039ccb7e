"""`taurec dialogues`: episode logs out as DialogueKit's annotated-dialogue JSON, and
DialogueKit JSON (UserSimCRS's IARD file, for one) in as taurec's annotated dialogues."""

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


@app.command("import")
def import_(
    source: Annotated[Path, typer.Argument(help="A DialogueKit JSON file (e.g. IARD).")],
    out: Annotated[
        Path, typer.Option("--out", help="The annotated-dialogues JSONL file to write.")
    ],
) -> None:
    """Read DialogueKit JSON into taurec's annotated dialogues (JSONL, one per line), for
    `--agenda-dialogues` and `evaluator dialogues`."""
    import orjson

    from taurec.catalog.errors import DataError
    from taurec.tasks.dialogues.dialoguekit import read_dialoguekit

    if not source.is_file():
        _fail(f"{source}: no such file")
    try:
        dialogues = read_dialoguekit(source)
    except DataError as exc:
        _fail(exc)
    tmp = out.with_name(out.name + ".partial")
    tmp.write_bytes(
        b"".join(
            orjson.dumps(d.model_dump(mode="json", exclude_defaults=True)) + b"\n"
            for d in dialogues
        )
    )
    tmp.replace(out)
    err.print(f"wrote {len(dialogues)} dialogues to {out}")
