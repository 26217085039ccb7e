"""`taurec tasks generate --kind ranking` and `taurec tasks validate` of a ranking suite."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import orjson
import typer

from taurec.clients.cli.output import console, fail, note_shipped_twins

if TYPE_CHECKING:
    from taurec.tasks.suite import Suite


def validate_ranking(loaded: Suite, json_out: bool) -> None:
    from taurec.catalog.errors import DataError
    from taurec.catalog.interaction_sources import load_interactions
    from taurec.tasks.ranking.validate import validate_ranking_tasks

    try:
        data = load_interactions(loaded.data.get("interactions", "synthetic"), loaded.catalog)
    except DataError as exc:
        fail(exc)
    problems = validate_ranking_tasks(loaded.tasks, data)
    if json_out:
        typer.echo(
            orjson.dumps({"suite_id": loaded.id, "ok": not problems, "problems": problems}).decode()
        )
    else:
        out = console()
        out.print(
            f"[bold]Suite {loaded.id}[/] ({loaded.spec}): {len(loaded.tasks)} ranking tasks over "
            f"{len(data):,} interactions; {len(problems)} with problems"
        )
        for task_id, ps in problems.items():
            out.print(f"[red]{task_id}[/]: {'; '.join(ps)}")
    raise typer.Exit(1 if problems else 0)


def validate_pairs(loaded: Suite, json_out: bool) -> None:
    """A PPR suite: each task passed its kind's checks when it loaded; across tasks, no
    source ranking task gives pairs from several rollouts (they would share its positive)."""
    from taurec.tasks.ranking.siblings import pair_leaks

    problems = pair_leaks(loaded.tasks)
    if json_out:
        typer.echo(
            orjson.dumps({"suite_id": loaded.id, "ok": not problems, "problems": problems}).decode()
        )
    else:
        out = console()
        out.print(f"{loaded.id}: {len(loaded.tasks)} ppr tasks; {len(problems)} with problems")
        for task_id, ps in problems.items():
            out.print(f"[red]{task_id}[/]: {'; '.join(ps)}")
    raise typer.Exit(1 if problems else 0)


def generate_ranking(
    out: Path,
    catalog: str,
    n: int,
    seed: int,
    id_prefix: str,
    suite_id: str | None,
    interactions: str | None,
    per_user: int,
    split_at: tuple[str, str],
) -> None:
    from taurec.catalog.errors import DataError
    from taurec.catalog.interaction_sources import load_interactions
    from taurec.catalog.splits import part_of, scheme_of
    from taurec.catalog.store import Catalog
    from taurec.tasks.ranking.generator import generate_ranking_tasks
    from taurec.tasks.ranking.validate import validate_ranking_tasks
    from taurec.tasks.suite import SUITE_FILE, SuiteManifest, write_suite_dir

    source = interactions or "synthetic"
    split, scheme = split_at
    try:
        scheme = scheme_of(scheme, "--split-scheme")
        part_of(split, "--split")
        data = load_interactions(source, Catalog.load(catalog))
        tasks = generate_ranking_tasks(
            data,
            n,
            seed,
            split=split,
            scheme=scheme,
            prefix=id_prefix if id_prefix != "gen" else "rank",
            per_user=per_user,
        )
        manifest = SuiteManifest(
            format_version=1,
            id=suite_id or out.resolve().name,
            catalog=catalog,
            kind="ranking",
            data={"interactions": source, "split": scheme, "part": split},
            description=f"{len(tasks)} ranking tasks from the {split} part ({scheme} 8:1:1 "
            f"split) generated with seed {seed} from {source}.",
        )
    except (DataError, ValueError) as exc:
        fail(exc)
    write_suite_dir(out, manifest, tasks)
    problems = validate_ranking_tasks(tasks, data)
    out_console = console()
    out_console.print(
        f"wrote {SUITE_FILE} and {len(tasks)} ranking task files to {out} "
        f"({len(data)} interactions, {len(data.user_ids)} users, {len(data.items)} items)"
    )
    note_shipped_twins(out, seed)
    for task_id, ps in problems.items():
        out_console.print(f"[red]{task_id}[/]: {'; '.join(ps)}")
    raise typer.Exit(1 if problems else 0)
