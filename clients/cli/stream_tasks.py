"""`taurec tasks generate-streams`: write a stream (BIEL) suite; `taurec tasks validate` of one.

Items come from a movie catalog (`--catalog`) or from Amazon Reviews 2023 product
metadata (`--products meta_*.jsonl[.gz]`); personas are drawn from the items'
vocabulary; utilities come from the personas' hidden preference models, or, with
`--llm-utilities MODEL[,MODEL]`, from language models (cached under `--cache`).
With the four `--biel-*` files, items, categories, personas and utilities are BIEL's
released data instead (docs/streams.md, "BIEL's released data"). `--cross-stream` says
what one stream may share with another (tasks/stream/leaks.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import orjson
import typer

from taurec.catalog.spec import BUILTIN
from taurec.clients.cli.output import console, note_shipped_twins

if TYPE_CHECKING:
    from taurec.catalog.builders.biel_data import BielFiles
    from taurec.tasks.stream.leaks import StreamLeaks
    from taurec.tasks.stream.task import FeedbackKind, StreamSetting, StreamTask
    from taurec.tasks.suite import Suite

#: `--cross-stream` values (tasks/stream/generator.py, CrossStream).
CROSS_STREAM = ("isolated", "distinct", "biel")

# `taurec tasks generate-streams --help` loads this module: the generators and the catalog
# are imported in the command's body.


def _names(text: str, allowed: type[FeedbackKind] | type[StreamSetting], option: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    known = {m.value for m in allowed}
    bad = [n for n in names if n not in known]
    if bad or not names:
        raise typer.BadParameter(
            f"{bad[0] if bad else text!r}; expected one or more of {', '.join(sorted(known))}",
            param_hint=option,
        )
    return names


def _biel_files(
    needed: list[Path | None],
    product_ids: Path | None,
    category_names: Path | None,
    others: dict[str, bool],
) -> BielFiles | None:
    """The BIEL files given, or None when no --biel-* option is; a partial set, or one mixed
    with another item or utility source, is a usage error."""
    options = ["--biel-products", "--biel-personas", "--biel-scores", "--biel-categories"]
    if all(p is None for p in needed) and product_ids is None and category_names is None:
        return None
    missing = [o for o, p in zip(options, needed, strict=True) if p is None]
    if missing:
        raise typer.BadParameter(
            f"missing {', '.join(missing)}; BIEL's data needs all of {', '.join(options)}",
            param_hint=missing[0],
        )
    mixed = [o for o, given in others.items() if given]
    if mixed:
        raise typer.BadParameter(
            "BIEL's data brings its own products, personas and utilities; drop it or the "
            "--biel-* options",
            param_hint=mixed[0],
        )
    from taurec.catalog.builders.biel_data import BielFiles

    products, personas, scores, links = (p for p in needed if p is not None)
    return BielFiles(products, personas, scores, links, product_ids, category_names)


def generate_streams_cmd(
    out: Annotated[Path, typer.Option("--out", help="Suite folder to write.")],
    catalog: Annotated[
        str, typer.Option("--catalog", help="'builtin' or a catalog file (movies).")
    ] = BUILTIN,
    products: Annotated[
        Path | None,
        typer.Option("--products", help="Amazon Reviews 2023 meta_*.jsonl[.gz] instead of movies."),
    ] = None,
    n: Annotated[int, typer.Option("--n", min=1, help="Streams per setting.")] = 12,
    episodes: Annotated[
        int, typer.Option("--episodes", min=1, max=100, help="Episodes per stream.")
    ] = 10,
    personas: Annotated[
        int, typer.Option("--personas", min=1, help="Persona pool size (not with --biel-*).")
    ] = 40,
    settings: Annotated[
        str, typer.Option("--settings", help="Comma-separated stream settings.")
    ] = "variable_category,variable_persona,variable_settings",
    feedback: Annotated[
        str, typer.Option("--feedback", help="Feedback kinds, cycled over the streams.")
    ] = "regret,stars,persona",
    seed: Annotated[int, typer.Option("--seed", help="Random seed.")] = 0,
    llm: Annotated[
        str | None,
        typer.Option(
            "--llm-utilities", help="Score utilities with these litellm models (comma-separated)."
        ),
    ] = None,
    cache: Annotated[
        Path | None, typer.Option("--cache", help="--llm-utilities: reply cache folder.")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace existing task files.")] = False,
    biel_products: Annotated[
        Path | None,
        typer.Option("--biel-products", help="BIEL's folder of meta_N.json product files."),
    ] = None,
    biel_personas: Annotated[
        Path | None,
        typer.Option(
            "--biel-personas",
            help="Tianyi-Lab/Personas, split train: .parquet, a folder of shards, .jsonl or .json.",
        ),
    ] = None,
    biel_scores: Annotated[
        Path | None, typer.Option("--biel-scores", help="BIEL's persona_scores.parquet.")
    ] = None,
    biel_categories: Annotated[
        Path | None, typer.Option("--biel-categories", help="BIEL's product_category.parquet.")
    ] = None,
    biel_product_ids: Annotated[
        Path | None,
        typer.Option(
            "--biel-product-ids", help="BIEL's products.parquet: its product ids (optional)."
        ),
    ] = None,
    biel_category_names: Annotated[
        Path | None,
        typer.Option(
            "--biel-category-names", help="BIEL's categories.parquet: its names (optional)."
        ),
    ] = None,
    cross_stream: Annotated[
        str | None,
        typer.Option(
            "--cross-stream",
            help="What streams share: 'isolated' (no customer meets a best item of theirs in "
            "two streams; the default), 'distinct' (no customer in two streams) or 'biel' "
            "(each stream drawn on its own, as BIEL's seeds; the default with --biel-*).",
        ),
    ] = None,
    episode_order: Annotated[
        str | None,
        typer.Option(
            "--episode-order",
            help="How a stream's episodes are ordered: 'balanced' (so a random pick's "
            "expected regret has no trend along the stream; the default) or 'drawn' (as "
            "drawn, BIEL's; the default with --biel-*).",
        ),
    ] = None,
) -> None:
    """Write a stream suite (kind "stream") to OUT; it loads with --suite OUT."""
    from taurec.catalog.builders.amazon_products import load_products
    from taurec.catalog.choice_items import from_movie
    from taurec.catalog.choice_sets import movie_categories, product_categories
    from taurec.catalog.errors import DataError
    from taurec.catalog.llm_utilities import LLMUtilityScorer, LLMUtilitySettings
    from taurec.catalog.personas import persona_pool
    from taurec.catalog.store import Catalog
    from taurec.tasks.stream.generator import (
        CrossStream,
        GenerationError,
        StreamPlan,
        UtilityFn,
        generate_streams,
        llm_utilities,
        model_utilities,
    )
    from taurec.tasks.stream.ordering import EpisodeOrder
    from taurec.tasks.stream.task import FeedbackKind, StreamSetting
    from taurec.tasks.suite import TASKS_DIR, SuiteManifest, load_suite, write_suite_dir

    if (out / TASKS_DIR).is_dir() and any((out / TASKS_DIR).glob("*.json")) and not force:
        raise typer.BadParameter(
            f"{out / TASKS_DIR} already holds task files; pass --force", param_hint="--out"
        )
    biel = _biel_files(
        [biel_products, biel_personas, biel_scores, biel_categories],
        biel_product_ids,
        biel_category_names,
        others={
            "--products": products is not None,
            "--llm-utilities": bool(llm),
            "--catalog": catalog != BUILTIN,
            "--personas": personas != 40,
            "--cache": cache is not None,
        },
    )
    if cross_stream is not None and cross_stream not in CROSS_STREAM:
        raise typer.BadParameter(
            f"{cross_stream!r}; expected one of {', '.join(CROSS_STREAM)}",
            param_hint="--cross-stream",
        )
    if episode_order is not None and episode_order not in ("balanced", "drawn"):
        raise typer.BadParameter(
            f"{episode_order!r}; expected balanced or drawn", param_hint="--episode-order"
        )
    plan = StreamPlan(
        settings=tuple(StreamSetting(s) for s in _names(settings, StreamSetting, "--settings")),
        n=n,
        episodes=episodes,
        seed=seed,
        feedback=tuple(FeedbackKind(f) for f in _names(feedback, FeedbackKind, "--feedback")),
        cross_stream=None if cross_stream is None else CrossStream(cross_stream),
        episode_order=None if episode_order is None else EpisodeOrder(episode_order),
    )
    try:
        if biel is not None:
            from taurec.catalog.builders.biel_data import load_biel_data
            from taurec.tasks.stream.biel_streams import biel_streams

            built = biel_streams(load_biel_data(biel), plan)
            typer.echo(built.summary)
            tasks, source = built.tasks, f"BIEL's released data ({biel.products.name})"
        else:
            if products is not None:
                items = load_products(products).items
                categories = product_categories(items)
                source = f"products from {products.name}"
            else:
                items = [from_movie(i) for i in Catalog.load(catalog).items]
                categories = movie_categories(items)
                source = f"movies of catalog {catalog!r}"
            pool = persona_pool(items, personas, seed)
            score: UtilityFn = model_utilities
            if llm:
                models = tuple(m.strip() for m in llm.split(",") if m.strip())
                score = llm_utilities(
                    LLMUtilityScorer(LLMUtilitySettings(models=models, cache_dir=cache))
                )
            tasks = generate_streams(items, pool, categories, plan, score)
    except (DataError, GenerationError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    manifest = SuiteManifest(
        format_version=1,
        id=out.resolve().name,
        catalog=BUILTIN if products is not None or biel is not None else catalog,
        kind="stream",
        description=f"{len(tasks)} streams of {episodes} episodes over {source}, seed {seed}.",
    )
    write_suite_dir(out, manifest, tasks)
    load_suite(str(out))  # it loads: every stream passes its checks
    typer.echo(f"wrote {len(tasks)} streams to {out}")
    note_shipped_twins(out, seed)
    _warn_leaks(tasks)


def _warn_leaks(tasks: list[StreamTask]) -> None:
    """What a suite drawn as BIEL's (or sharing customers) gives away across streams."""
    from taurec.tasks.stream.leaks import stream_leaks

    leaks = stream_leaks(tasks)
    if leaks.hard:
        typer.echo(
            f"warning: {leaks.hard_episodes} episodes in {len(leaks.hard)} streams have a best "
            "item that another stream's feedback to the same customer gives away (streams "
            "drawn as BIEL's seeds); `taurec tasks validate` reports them as errors, "
            "--cross-stream isolated avoids them",
            err=True,
        )
    for w in leaks.warnings():
        typer.echo(f"warning: {w}", err=True)


def _report(loaded: Suite, leaks: StreamLeaks) -> dict[str, object]:
    return {
        "suite_id": loaded.id,
        "ok": not leaks.hard,
        "problems": leaks.hard,
        "warnings": leaks.warnings(),
        "leaks": leaks.as_json(),
    }


def validate_streams(loaded: Suite, json_out: bool) -> None:
    """A stream suite: each stream passed its kind's checks when it loaded; across streams,
    no episode's best item is given away by another stream's feedback to the same customer
    (errors), and customers shared by streams are counted (a warning)."""
    from taurec.tasks.stream.leaks import stream_leaks

    leaks = stream_leaks(loaded.tasks)
    if json_out:
        typer.echo(orjson.dumps(_report(loaded, leaks), option=orjson.OPT_INDENT_2).decode())
        raise typer.Exit(1 if leaks.hard else 0)
    out = console()
    out.print(
        f"[bold]Suite {loaded.id}[/] ({loaded.spec}): {len(loaded.tasks)} streams, each passed "
        f"its kind's checks; {len(leaks.hard)} with episodes another stream gives away "
        f"({leaks.hard_episodes} episodes)",
        highlight=False,
    )
    for task_id, ps in leaks.hard.items():
        shown = "; ".join(ps[:2]) + (f"; and {len(ps) - 2} more" if len(ps) > 2 else "")
        out.print(f"[red]{task_id}[/]: ", end="")
        out.print(shown, markup=False, highlight=False)
    for w in leaks.warnings():
        out.print("[yellow]! [/]", end="")
        out.print(w, markup=False, highlight=False)
    raise typer.Exit(1 if leaks.hard else 0)
