"""`evaluator export`: ranking episodes as RL data (GRPO groups, PPR pairs), or the PPR
pairs as a playable suite (the formats are in taurec.evaluator.ranking.export)."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from taurec.evaluator.cli.options import LabelOpt, SeedOpt, SuiteOpt, err, label_filter
from taurec.evaluator.text import markup, plural


class ExportFormat(StrEnum):
    GRPO = "grpo"
    PPR = "ppr"


class PprMining(StrEnum):
    BALANCED = "balanced"
    AGENTICREC = "agenticrec"


#: what each format is made of, as the note on skipped logs says it
USES = {
    ExportFormat.GRPO: "ranking episodes",
    ExportFormat.PPR: "pairs mined from ranking episodes",
}


def export_command(
    logdirs: Annotated[list[Path], typer.Argument(help="Ranking episode logs or folders.")],
    fmt: Annotated[ExportFormat, typer.Option("--format", help="grpo or ppr.")],
    out: Annotated[
        Path | None, typer.Option("--out", help="JSONL file to write (default: stdout).")
    ] = None,
    suite: SuiteOpt = None,
    label: LabelOpt = None,
    seed: SeedOpt = 0,
    suite_out: Annotated[
        Path | None,
        typer.Option("--suite-out", help="ppr: write the pairs as a suite folder of kind ppr."),
    ] = None,
    mining: Annotated[
        PprMining,
        typer.Option(
            "--ppr-mining",
            help="ppr: balanced (a negative more or less popular than the positive at random, "
            "one pair per source task: no popularity or frequency rule answers them) or "
            "agenticrec (the paper's: a negative from above the positive, a pair per rollout).",
        ),
    ] = PprMining.BALANCED,
) -> None:
    """Write ranking episodes as RL data: GRPO groups or PPR hard-negative pairs (JSONL),
    or with --suite-out the PPR pairs as a suite that `taurec run --suite DIR` plays.

    Logs of other kinds are skipped with a note. Each log's suite is found as `evaluator
    score` finds it (a shipped suite, or the plan of a sealed run), so --suite is needed
    only for logs of an open run on a suite folder."""
    import orjson

    from taurec.catalog.errors import DataError
    from taurec.evaluator.cli.export import (
        ItemCounts,
        Passed,
        export_resolver,
        mined_pairs,
        not_for_training,
        ranking_episodes,
        rules_of,
        write_ppr_suite,
    )
    from taurec.evaluator.files import NotARunFile
    from taurec.evaluator.labels import LabelFilter
    from taurec.evaluator.ranking.export import grpo_groups, ppr_record

    if suite_out is not None and (fmt is not ExportFormat.PPR or out is not None):
        err.print("[red]error:[/red] --suite-out: expected --format ppr and no --out")
        raise typer.Exit(2)
    try:
        resolver, files = export_resolver(logdirs, suite)
        passed = Passed(LabelFilter(tuple(label or ())))
        episodes = ranking_episodes(files, resolver, passed)
        label_filter(label, passed.labels)  # each pattern matches a label read, or exit 2
        if passed.unfinished:
            err.print(
                f"[yellow]note:[/yellow] {len(passed.unfinished)} unfinished episode(s) skipped"
            )
        for kind, n in sorted(passed.kinds.items()):
            err.print(
                f"[yellow]note:[/yellow] skipped {plural(n, markup(kind) + ' log')}: "
                f"{fmt.value} exports {USES[fmt]}"
            )
        if not episodes:
            where = markup(", ".join(map(str, logdirs)))
            err.print(f"[red]error:[/red] no ranking episodes under {where} to export")
            raise typer.Exit(2)
        if held_out := not_for_training(episodes, resolver):
            err.print(
                f"[yellow]note:[/yellow] rollouts of {markup(', '.join(held_out))}: for "
                "training, mine a suite of the train part (taurec tasks generate --split train)"
            )
        counts = ItemCounts(episodes, resolver) if fmt is ExportFormat.PPR else None
        if suite_out is not None:
            assert counts is not None
            pairs = write_ppr_suite(episodes, seed, suite_out, mining.value, counts)
            where = markup(str(suite_out))
            err.print(
                f"wrote {len(pairs)} ppr tasks to {where} (play them: taurec run --suite {where})"
            )
            err.print(rules_of(pairs, counts).line())
            return
        if fmt is ExportFormat.GRPO:
            lines = list(grpo_groups(episodes))
        else:
            pairs = mined_pairs(episodes, seed, mining.value, counts)
            lines = [ppr_record(pair) for pair in pairs]
    except (FileNotFoundError, NotARunFile, DataError) as exc:
        err.print(f"[red]error:[/red] {markup(str(exc))}")
        raise typer.Exit(2) from None
    blob = b"".join(orjson.dumps(line) + b"\n" for line in lines)
    if out is None:
        sys.stdout.buffer.write(blob)
    else:
        out.write_bytes(blob)
        err.print(f"wrote {len(lines)} {fmt.value} records to {out}")
    if fmt is ExportFormat.PPR and counts is not None:
        err.print(rules_of(pairs, counts).line())
