"""`taurec catalog`: generate synthetic catalogs, build one from TMDB, import τ-Rec's, inspect.

Exit codes: 0 = done, 2 = the input or the source could not be used (one line on
stderr, no traceback).
"""

from __future__ import annotations

import gc
import os
from collections import Counter
from collections.abc import Iterable, Iterator
from datetime import date
from pathlib import Path
from typing import Annotated, Any, NoReturn

import orjson
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from taurec.catalog.errors import DataError
from taurec.catalog.io import CatalogMeta, write_catalog_file
from taurec.catalog.item import Item
from taurec.catalog.store import BUILTIN, Catalog

app = typer.Typer(
    name="catalog",
    help="Catalogs: generate synthetic ones, build from TMDB, import τ-Rec's, inspect.",
    no_args_is_help=True,
    add_completion=False,
)

#: Progress is redrawn once per this many items (redrawing per item would dominate).
PROGRESS_STEP = 4096


def _console(stderr: bool = False) -> Console:
    # Piped output is read in files and CI logs: do not wrap it at 80 columns.
    wide = not os.isatty(2 if stderr else 1) and "COLUMNS" not in os.environ
    return Console(width=140 if wide else None, highlight=False, stderr=stderr)


def _fail(message: object) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def _write(out: Path, meta: CatalogMeta, items: Iterable[Item]) -> None:
    try:
        write_catalog_file(out, meta, items)
    except OSError as exc:
        _fail(f"{out}: cannot write ({exc.strerror or exc})")


def _with_progress(items: Iterable[Item], total: int, label: str) -> Iterator[Item]:
    """Yield `items`, showing a progress bar on stderr (plain lines when not a terminal)."""
    console = _console(stderr=True)
    if not console.is_terminal:
        for done, item in enumerate(items, 1):
            yield item
            if done % (PROGRESS_STEP * 64) == 0:
                typer.echo(f"{label}: {done:,}/{total:,}", err=True)
        return
    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task(label, total=total)
        done = 0
        for done, item in enumerate(items, 1):
            yield item
            if done % PROGRESS_STEP == 0:
                progress.update(task, completed=done)
        progress.update(task, completed=done)


@app.command()
def generate(
    out: Annotated[
        Path, typer.Option("--out", help="File to write: .json, or .jsonl for JSON Lines.")
    ],
    n: Annotated[int, typer.Option("--n", min=1, help="Number of items.")] = 300,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Random seed.")] = 0,
    name: Annotated[
        str | None, typer.Option("--name", help="Catalog name in meta (default: the file's stem).")
    ] = None,
) -> None:
    """Write N fictional items; the same --n and --seed always write the same bytes."""
    from taurec.catalog.builders.synthetic import iter_items, synthetic_meta

    meta = synthetic_meta(n, seed, name=name or out.stem)
    # Items hold no reference cycles; pausing the cyclic GC halves the time for big n.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        _write(out, meta, _with_progress(iter_items(n, seed), n, "generating"))
    finally:
        if was_enabled:
            gc.enable()
    typer.echo(f"wrote {n:,} items to {out} (seed {seed})", err=True)


def _summary(cat: Catalog) -> dict[str, Any]:
    items = cat.items
    years = [it.year for it in items]
    return {
        "name": cat.meta.name,
        "source": cat.meta.source,
        "snapshot_date": cat.meta.snapshot_date.isoformat() if cat.meta.snapshot_date else None,
        "seed": cat.meta.seed,
        "items": len(items),
        "years": [min(years), max(years)],
        "sponsored": sum(it.sponsored for it in items),
        "on_no_service": sum(not it.streaming_services for it in items),
        "genres": dict(Counter(g for it in items for g in it.genres).most_common()),
        "content_ratings": dict(Counter(it.content_rating.value for it in items).most_common()),
        "services": dict(Counter(s for it in items for s in it.streaming_services).most_common()),
        "languages": dict(Counter(it.original_language for it in items).most_common()),
    }


def _counts_table(title: str, key: str, counts: dict[str, int], total: int) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column(key)
    table.add_column("items", justify="right")
    table.add_column("share", justify="right")
    for key, count in counts.items():
        table.add_row(key, str(count), f"{count / total:.0%}")
    return table


@app.command()
def info(
    spec: Annotated[str, typer.Argument(help="'builtin' or a catalog file path.")] = BUILTIN,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Summarise a catalog: where it came from, its size, genres, ratings and services."""
    try:
        cat = Catalog.load(spec)
    except DataError as exc:
        _fail(exc)
    summary = _summary(cat)
    if json_out:
        typer.echo(orjson.dumps(summary, option=orjson.OPT_INDENT_2).decode())
        return
    console = _console()
    head = Table.grid(padding=(0, 2))
    for key in ("name", "source", "snapshot_date", "seed", "items", "sponsored", "on_no_service"):
        head.add_row(key, str(summary[key]))
    head.add_row("years", f"{summary['years'][0]}-{summary['years'][1]}")
    console.print(head)
    total = summary["items"]
    console.print(_counts_table("Genres", "genre", summary["genres"], total))
    console.print(_counts_table("Content ratings", "rating", summary["content_ratings"], total))
    console.print(_counts_table("Services", "service", summary["services"], total))
    console.print(_counts_table("Languages", "language", summary["languages"], total))


@app.command("build-tmdb")
def build_tmdb(
    out: Annotated[Path, typer.Option("--out", help="File to write: .json or .jsonl.")],
    start: Annotated[
        str, typer.Option("--start", help="First release date of the discover window (YYYY-MM-DD).")
    ],
    end: Annotated[
        str,
        typer.Option(
            "--end",
            "--snapshot-date",
            help="Snapshot date (YYYY-MM-DD): the window's last day, recorded in meta.",
        ),
    ],
    region: Annotated[
        str, typer.Option("--region", help="Country for certifications and providers.")
    ] = "US",
    pages: Annotated[
        int, typer.Option("--pages", min=1, help="Discover pages (20 titles each).")
    ] = 5,
    min_votes: Annotated[
        int, typer.Option("--min-votes", min=0, help="Discover vote_count floor.")
    ] = 50,
    cache: Annotated[
        Path, typer.Option("--cache", help="Folder of cached raw responses (reruns read it).")
    ] = Path(".cache/tmdb"),
    name: Annotated[str | None, typer.Option("--name", help="Catalog name in meta.")] = None,
) -> None:
    """Discover, enrich and normalise TMDB movies into a catalog (cached, reproducible).

    Needs TMDB_API_KEY or TMDB_READ_TOKEN, unless every response is already cached.
    """
    from taurec.catalog.builders.tmdb import TmdbSettings, build_catalog
    from taurec.catalog.builders.tmdb_client import TmdbError

    try:
        settings = TmdbSettings(
            start=_date(start, "--start"),
            snapshot_date=_date(end, "--end"),
            region=region.upper(),
            pages=pages,
            min_votes=min_votes,
            cache_dir=cache,
            name=name or out.stem,
        )
        build = build_catalog(settings)
    except (DataError, TmdbError, ValueError) as exc:
        _fail(exc)
    _write(out, build.meta, build.items)
    for reason, ids in build.dropped.items():
        typer.echo(f"dropped {len(ids)} record(s): {reason}", err=True)
    typer.echo(
        f"wrote {len(build.items):,} items to {out} "
        f"({build.requests} request(s), {build.cache_hits} from cache)",
        err=True,
    )


def _date(text: str, option: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        _fail(f"{option}: expected a date YYYY-MM-DD, got {text!r}")


@app.command("import-tau-rec")
def import_tau_rec(
    path: Annotated[Path, typer.Argument(help="A τ-Rec release folder or its catalog.json.")],
    out: Annotated[Path, typer.Option("--out", help="File to write: .json or .jsonl.")],
) -> None:
    """Convert the τ-Rec release catalog to our schema; print what had to be adapted."""
    from taurec.catalog.builders.taurec_release import import_catalog

    try:
        meta, items, warnings = import_catalog(path)
    except DataError as exc:
        _fail(exc)
    for warning in warnings:
        typer.echo(f"warning: {warning}", err=True)
    _write(out, meta, items)
    typer.echo(f"wrote {len(items):,} items to {out}", err=True)
