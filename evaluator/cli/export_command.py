"""`evaluator export`: ranking episodes as RL data (GRPO groups, PPR pairs), or the PPR
pairs as a playable suite (the formats are in taurec.evaluator.ranking.export)."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from taurec.evaluator.cli.options import SeedOpt, SuiteOpt, err
from taurec.evaluator.text import markup


class ExportFormat(StrEnum):
    GRPO = "grpo"
    PPR = "ppr"


def export_command(
    logdirs: Annotated[list[Path], typer.Argument(help="Ranking episode logs or folders.")],
    fmt: Annotated[ExportFormat, typer.Option("--format", help="grpo or ppr.")],
    out: Annotated[
        Path | None, typer.Option("--out", help="JSONL file to write (default: stdout).")
    ] = None,
    suite: SuiteOpt = None,
    seed: SeedOpt = 0,
    suite_out: Annotated[
        Path | None,
        typer.Option("--suite-out", help="ppr: write the pairs as a suite folder of kind ppr."),
    ] = None,
) -> None:
    """Write ranking episodes as RL data: GRPO groups or PPR hard-negative pairs (JSONL),
    or with --suite-out the PPR pairs as a suite that `taurec run --suite DIR` plays."""
    import orjson

    from taurec.catalog.errors import DataError
    from taurec.evaluator.cli.export import (
        export_lines,
        not_for_training,
        ranking_episodes,
        write_ppr_suite,
    )
    from taurec.evaluator.files import NotARunFile, find_logs
    from taurec.evaluator.logs import Resolver

    if suite_out is not None and (fmt is not ExportFormat.PPR or out is not None):
        err.print("[red]error:[/red] --suite-out: expected --format ppr and no --out")
        raise typer.Exit(2)
    try:
        resolver = Resolver(suite=suite)
        unfinished: list[Path] = []
        episodes = ranking_episodes(find_logs(logdirs), resolver, unfinished)
        if unfinished:
            err.print(f"[yellow]note:[/yellow] {len(unfinished)} unfinished episode(s) skipped")
        if held_out := not_for_training(episodes, resolver):
            err.print(
                f"[yellow]note:[/yellow] rollouts of {markup(', '.join(held_out))}: for "
                "training, mine a suite of the train part (taurec tasks generate --split train)"
            )
        if suite_out is not None:
            n = write_ppr_suite(episodes, seed, suite_out)
            where = markup(str(suite_out))
            err.print(f"wrote {n} ppr tasks to {where} (play them: taurec run --suite {where})")
            return
        lines = export_lines(episodes, fmt.value, seed)
    except (FileNotFoundError, NotARunFile, DataError) as exc:
        err.print(f"[red]error:[/red] {markup(str(exc))}")
        raise typer.Exit(2) from None
    blob = b"".join(orjson.dumps(line) + b"\n" for line in lines)
    if out is None:
        sys.stdout.buffer.write(blob)
    else:
        out.write_bytes(blob)
        err.print(f"wrote {len(lines)} {fmt.value} records to {out}")
