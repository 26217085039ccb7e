"""Writing episode rows (rows.py) as JSON, CSV or a terminal table, for
`evaluator episodes`."""

from __future__ import annotations

import csv
import io
import re
import sys
from typing import Any

import orjson
from rich.console import Console
from rich.table import Table

from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.episodes.rows import COLUMNS, episode_rows
from taurec.evaluator.text import csv_cell, markup

#: the table's width when stdout is no terminal (a pipe, a file): wide enough for every column
PIPED_WIDTH = 240

#: How list cells are joined in CSV and the table.
LIST_SEP = "; "


def rows_json(rows: list[dict[str, Any]]) -> bytes:
    return orjson.dumps(rows, option=orjson.OPT_INDENT_2) + b"\n"


def _cell(value: Any) -> str:
    """One CSV cell. Text comes from logs anyone can write: it goes through csv_cell (no
    control bytes, no cell a spreadsheet runs as a formula); numbers are written as they are."""
    if value is None:
        return ""
    if isinstance(value, list):
        return csv_cell(LIST_SEP.join(map(str, value)))
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return csv_cell(value)


def _natural(name: str) -> list[Any]:
    """`regret@2` before `regret@10`."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def rows_csv(rows: list[dict[str, Any]]) -> str:
    """One CSV line per row; each metric becomes a `metric:<name>` column."""
    metric_names = sorted({name for r in rows for name in r["metrics"]}, key=_natural)
    head = [c for c in COLUMNS if c != "metrics"] + [f"metric:{m}" for m in metric_names]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(head)
    for r in rows:
        writer.writerow(
            [_cell(r[c]) for c in COLUMNS if c != "metrics"]
            + [_cell(r["metrics"].get(m)) for m in metric_names]
        )
    return out.getvalue()


def _why(row: dict[str, Any]) -> str:
    parts = [f"constraint {c}" for c in row["failed_constraints"]]
    parts += [f"policy {p}" for p in row["failed_policies"]]
    if row["failure"]:
        parts.append(row["failure"])
    if row["simulator_faults"]:
        parts.append(f"{row['simulator_faults']} simulator faults")
    return LIST_SEP.join(parts)


_RESULT_MARKUP = {"pass": "[green]pass[/green]", "fail": "[red]fail[/red]"}


def rows_table(rows: list[dict[str, Any]]) -> Table:
    table = Table(title=f"{len(rows)} episode{'s' if len(rows) != 1 else ''}", title_justify="left")
    for col in ("label", "task", "trial", "result", "reward", "end", "why", "log"):
        table.add_column(col, overflow="fold")
    for r in rows:
        reward = "-" if r["reward"] is None else f"{r['reward']:.2f}"
        table.add_row(
            markup(r["label"]),
            markup(r["task"]),
            str(r["trial"]),
            _RESULT_MARKUP.get(r["result"], markup(r["result"])),
            reward,
            markup(r["end_reason"]),
            markup(_why(r)),
            markup(r["path"]),
        )
    return table


def write_rows(scores: list[EpisodeScore], *, failed: bool, fmt: str) -> None:
    """Print the rows of `scores` (only the failed ones with `failed`: result "fail") to stdout as
    "json", "csv" or "table"."""
    rows = [r for r in episode_rows(scores) if not (failed and r["result"] != "fail")]
    if fmt == "json":
        sys.stdout.buffer.write(rows_json(rows))
    elif fmt == "csv":
        sys.stdout.write(rows_csv(rows))
    else:
        console = Console()
        if not console.is_terminal:  # piped or redirected: no terminal to fit, keep rows whole
            console = Console(width=PIPED_WIDTH)
        console.print(rows_table(rows))
