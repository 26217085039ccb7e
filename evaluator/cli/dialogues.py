"""`evaluator dialogues PATH...`: the dialogue metrics of annotated dialogues from outside
(DialogueKit JSON, such as UserSimCRS's annotated files, ReDial JSONL, INSPIRED TSV, or
taurec's annotated JSONL): SR from the acts and from the data set's own outcome labels,
SRRR (the paper's and UserSimCRS's reading), RDL, avg turns and utterances, per source.
A file with no verdict at all is warned about. Episode logs are scored by `evaluator
score`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from taurec.evaluator.cli.options import Format, err
from taurec.evaluator.text import markup, md_cell, percent


def dialogues(
    paths: Annotated[
        list[Path],
        typer.Argument(help="DialogueKit JSON files, annotated-dialogue JSONL, or folders."),
    ],
    fmt: Annotated[
        Format, typer.Option("--format", help="table, markdown or json.")
    ] = Format.TABLE,
    schema: Annotated[
        Path | None,
        typer.Option(
            "--schema",
            help="A UserSimCRS interaction model (YAML) saying what the files' labels mean "
            "(default: each file's labels are read as IARD, INSPIRED or MovieBot ones).",
        ),
    ] = None,
) -> None:
    """Score annotated dialogues (no LLM call): SR, SRRR, RDL, avg turns, utterances."""
    import sys

    import orjson
    from rich.console import Console
    from rich.table import Table

    from taurec.catalog.errors import DataError
    from taurec.evaluator.recommendation.dialogues import score_dialogues
    from taurec.tasks.dialogues.labels import read_interaction_model
    from taurec.tasks.dialogues.reading import read_annotated_dialogues

    scored = []
    for path in paths:
        try:
            labels = read_interaction_model(schema) if schema is not None else None
            found = read_annotated_dialogues(path, logs=False, labels=labels)
            scored.append(score_dialogues(str(path), found))
        except DataError as exc:
            err.print(f"[red]error:[/red] {markup(str(exc))}")
            raise typer.Exit(2) from None
    for s in scored:
        if s.sr_source == "none":
            err.print(
                f"[yellow]warning:[/yellow] {markup(s.source)}: no dialogue carries an accept or "
                "reject act or an outcome label, so its SR is 0 by construction"
            )
        elif s.sr_source == "labels":
            err.print(
                f"[yellow]warning:[/yellow] {markup(s.source)}: its utterances carry no verdict; "
                "SR (labels) is what its own outcome labels record, SR from the acts is 0"
            )
    if fmt is Format.JSON:
        sys.stdout.buffer.write(
            orjson.dumps([s.record() for s in scored], option=orjson.OPT_INDENT_2) + b"\n"
        )
        return
    keys = ("sr", "sr_labels", "srrr", "srrr_usersimcrs", "rdl", "avg_turns", "utterances")
    rows = []
    for s in scored:
        m = s.means
        rows.append(
            [s.source, str(len(s.per_dialogue))]
            + [percent(m[k]) for k in keys[:5]]
            + ["-" if m[k] is None else f"{m[k]:.1f}" for k in keys[5:]]
        )
    head = [
        "source",
        "dialogues",
        "SR (acts)",
        "SR (labels)",
        "SRRR",
        "SRRR (UserSimCRS)",
        "RDL",
        "avg turns",
        "utterances",
    ]
    if fmt is Format.MARKDOWN:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(map(md_cell, r)) + " |" for r in rows]
        sys.stdout.write("\n".join(lines) + "\n")
        return
    table = Table(title="dialogue metrics")
    for h in head:
        table.add_column(h)
    for r in rows:
        table.add_row(*(markup(c) for c in r))
    Console().print(table)
