"""`taurec catalog`: generate synthetic catalogs, build one from TMDB, import τ-Rec's, inspect.

Exit codes: 0 = done, 2 = the input or the source could not be used (one line on
stderr, no traceback).
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterable, Iterator
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import orjson
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from taurec.catalog.spec import BUILTIN
from taurec.evaluator.cli.command_line import CommandGroup

if TYPE_CHECKING:
    from taurec.catalog.io import CatalogMeta
    from taurec.catalog.item import Item

# `taurec catalog ... --help` loads this module: the catalog (numpy, scipy, bm25s,
# pydantic) is imported in each command's body.

app = typer.Typer(
    name="catalog",
    cls=CommandGroup,
    help="Catalogs: generate synthetic ones, build from TMDB, import τ-Rec's, inspect.",
    no_args_is_help=True,
    add_completion=False,
)

#: The suffix that makes `--out` a catalog folder (`taurec.catalog.folder`).
FOLDER_SUFFIX = ".taurec-catalog"
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
    """Write a catalog file (.json, .jsonl) or, for a .taurec-catalog path, a catalog folder."""
    from taurec.catalog.errors import DataError
    from taurec.catalog.io import write_catalog_file

    try:
        if out.suffix == FOLDER_SUFFIX:
            from taurec.catalog.folder import write_catalog_folder

            write_catalog_folder(out, meta, items)
        else:
            write_catalog_file(out, meta, items)
    except OSError as exc:
        _fail(f"{out}: cannot write ({exc.strerror or exc})")
    except DataError as exc:
        _fail(exc)


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
        Path,
        typer.Option(
            "--out",
            help="Where to write: .json, .jsonl (JSON Lines) or a .taurec-catalog folder.",
        ),
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
    spec: Annotated[
        str, typer.Argument(help="'builtin', a catalog file or a .taurec-catalog folder.")
    ] = BUILTIN,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Summarise a catalog: where it came from, its size, genres, ratings and services."""
    from taurec.catalog.errors import DataError
    from taurec.catalog.store import Catalog
    from taurec.catalog.summary import summary as catalog_summary

    try:
        cat = Catalog.load(spec)
    except DataError as exc:
        _fail(exc)
    summary = catalog_summary(cat)
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


@app.command()
def build(
    source: Annotated[
        str,
        typer.Argument(
            help="'builtin', a catalog file or folder, or movielens:recbole / movielens:PATH "
            "(real films, read from MovieLens at run time)."
        ),
    ],
    out: Annotated[
        Path,
        typer.Option("--out", help="Where to write: a .taurec-catalog folder, .json or .jsonl."),
    ],
) -> None:
    """Convert a catalog between formats; a .taurec-catalog folder is saved with its indexes.

    A JSON Lines source is read one item at a time, so a million items convert in little
    memory; a .json source is parsed whole first.
    """
    from taurec.catalog.builders.movielens_catalog import is_movielens, movielens_catalog
    from taurec.catalog.errors import DataError
    from taurec.catalog.io import iter_catalog_file
    from taurec.catalog.store import Catalog, builtin_path

    path = builtin_path() if source == BUILTIN else Path(source)
    try:
        if is_movielens(source):
            meta, movies = movielens_catalog(source)
            items = iter(movies)
        elif path.is_dir():
            cat = Catalog.load(path)
            meta, items = cat.meta, iter(cat.items)
        else:
            meta, items = iter_catalog_file(path)
    except DataError as exc:
        _fail(exc)
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        _write(out, meta, items)
    finally:
        if was_enabled:
            gc.enable()
    typer.echo(f"wrote {out} from {path}", err=True)


@app.command("build-tmdb")
def build_tmdb(
    out: Annotated[
        Path, typer.Option("--out", help="Where to write: .json, .jsonl or .taurec-catalog.")
    ],
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
    from taurec.catalog.errors import DataError

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
    out: Annotated[
        Path, typer.Option("--out", help="Where to write: .json, .jsonl or .taurec-catalog.")
    ],
) -> None:
    """Convert the τ-Rec release catalog to our schema; print what had to be adapted."""
    from taurec.catalog.builders.taurec_release import import_catalog
    from taurec.catalog.errors import DataError

    try:
        meta, items, warnings = import_catalog(path)
    except DataError as exc:
        _fail(exc)
    for warning in warnings:
        typer.echo(f"warning: {warning}", err=True)
    _write(out, meta, items)
    typer.echo(f"wrote {len(items):,} items to {out}", err=True)
