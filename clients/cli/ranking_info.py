"""`taurec tasks info` for ranking suites and interaction sources: the figures of
AgenticRec's data table (users, items, interactions, sparsity), the time span, and the
suite's tasks.

Users and items are those with at least one record; sparsity is
1 - interactions / (users × items), as a percentage with two decimals, as the paper
prints it. A suite's `data.split` and `data.part` are printed when the suite records
them. `--json` prints the same figures as one JSON object.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NoReturn

import orjson
import typer
from rich.console import Console

if TYPE_CHECKING:
    from taurec.catalog.interactions import Interactions
    from taurec.catalog.store import Catalog
    from taurec.tasks.suite import Suite

# `taurec tasks info --help` loads this module: numpy and the data readers are imported in
# the functions' bodies.


def _fail(message: object) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def _day(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, UTC).date().isoformat()


def interaction_figures(data: Interactions) -> dict[str, Any]:
    """Users, items, interactions, sparsity (%) and the first and last record's UTC day."""
    import numpy as np

    users = int(np.unique(data.user).size)
    items = int(np.unique(data.item).size)
    n = len(data)
    sparsity = 100 * (1 - n / (users * items)) if users and items else None
    return {
        "users": users,
        "items": items,
        "interactions": n,
        "sparsity": None if sparsity is None else round(sparsity, 2),
        "first": _day(int(data.time.min())) if n else None,
        "last": _day(int(data.time.max())) if n else None,
    }


def _load(source: str, catalog: Catalog | None) -> Interactions:
    from taurec.catalog.errors import DataError
    from taurec.catalog.interaction_sources import load_interactions

    try:
        return load_interactions(source, catalog)
    except DataError as exc:
        _fail(exc)


def _suite_figures(suite: Suite) -> dict[str, Any]:
    source = suite.data.get("interactions", "synthetic")
    data = _load(source, suite.catalog)
    targets = [getattr(t, "target_time", None) for t in suite.tasks]
    times = [t for t in targets if isinstance(t, int)]
    tasks: dict[str, Any] = {"tasks": len(suite.tasks)}
    tasks.update({k: suite.data[k] for k in ("split", "part") if k in suite.data})
    if times:
        tasks["targets"] = {"first": _day(min(times)), "last": _day(max(times))}
    return {
        "suite_id": suite.id,
        "spec": suite.spec,
        "source": source,
        "data": data.source,
        **interaction_figures(data),
        **tasks,
    }


def _print(figures: dict[str, Any], title: str) -> None:
    wide = not os.isatty(1) and "COLUMNS" not in os.environ
    console = Console(width=140 if wide else None, highlight=False, soft_wrap=True)
    sparsity = figures["sparsity"]
    rows = [
        ("source", figures["source"]),
        ("read as", figures["data"]),
        ("users", f"{figures['users']:,}"),
        ("items", f"{figures['items']:,}"),
        ("interactions", f"{figures['interactions']:,}"),
        ("sparsity", "-" if sparsity is None else f"{sparsity:.2f}%"),  # 1 - n / (users × items)
        ("time span", f"{figures['first'] or '-'} .. {figures['last'] or '-'} (UTC)"),
    ]
    if "tasks" in figures:
        split = ", ".join(f"{k} {figures[k]}" for k in ("split", "part") if k in figures)
        rows.append(("tasks", f"{figures['tasks']}" + (f" ({split})" if split else "")))
    if "targets" in figures:
        rows.append(
            ("target times", f"{figures['targets']['first']} .. {figures['targets']['last']}")
        )
    shown = "-" if sparsity is None else f"{sparsity:.2f}%"
    row = f"{figures['users']:,} | {figures['items']:,} | {figures['interactions']:,} | {shown}"
    rows.append(("table row", f"| {row} |  (AgenticRec's Users | Items | Interactions | Sparsity)"))
    console.print(f"[bold]{title}[/]")
    width = max(len(name) for name, _ in rows) + 2
    for name, value in rows:
        console.print(f"  {name:<{width}}{value}", markup=False)


def _emit(figures: dict[str, Any], title: str, json_out: bool) -> None:
    if json_out:
        typer.echo(orjson.dumps(figures, option=orjson.OPT_INDENT_2).decode())
    else:
        _print(figures, title)


def ranking_info(suite: Suite, json_out: bool) -> None:
    """Describe a ranking suite: its interaction data's figures and its tasks."""
    with Console(stderr=True).status(f"reading {suite.data.get('interactions', 'synthetic')}"):
        figures = _suite_figures(suite)
    _emit(figures, f"Suite {suite.id} ({suite.spec}): {figures['tasks']} ranking tasks", json_out)


def interactions_info(source: str, json_out: bool) -> None:
    """Describe an interaction source (`--interactions`), read over the built-in catalog."""
    with Console(stderr=True).status(f"reading {source}"):
        data = _load(source, None)
    figures = {"source": source, "data": data.source, **interaction_figures(data)}
    _emit(figures, f"Interactions {source}", json_out)
