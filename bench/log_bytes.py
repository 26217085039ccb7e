"""What an episode log's bytes are spent on: per record type and per field.

Reads the logs under LOGDIR (or, without one, writes the evaluator bench's episodes on
τ-Rec's release: the same logs bench/evaluator_speed.py times) and prints the median
bytes per episode, then a table of where they go: each record type's share, and within
it each top-level field's bytes (its key, value and separator, as written), the chain
hash and the end record's HMAC included.

    python bench/log_bytes.py [LOGDIR] [--episodes 620]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections import Counter
from pathlib import Path

import orjson
from rich.console import Console
from rich.table import Table

from taurec.evaluator.files import find_logs


def field_bytes(line: bytes) -> dict[str, int]:
    """Bytes of each top-level member of one log line as written (`"key":value,`)."""
    record = orjson.loads(line)
    out = {k: len(orjson.dumps({k: v})) - 1 for k, v in record.items()}  # "{" + "}" - ","
    out["(braces and newline)"] = len(line) + 1 - sum(out.values())
    return out


def spent(files: list[Path]) -> tuple[list[int], Counter[tuple[str, str]], Counter[str]]:
    sizes: list[int] = []
    by_field: Counter[tuple[str, str]] = Counter()
    lines_of: Counter[str] = Counter()
    for f in files:
        raw = f.read_bytes()
        sizes.append(len(raw))
        for line in raw.splitlines():
            kind = str(orjson.loads(line).get("type"))
            lines_of[kind] += 1
            for name, n in field_bytes(line).items():
                by_field[(kind, name)] += n
    return sizes, by_field, lines_of


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("logdir", nargs="?", type=Path)
    ap.add_argument("--episodes", type=int, default=620)
    args = ap.parse_args()
    console = Console(width=120)
    with tempfile.TemporaryDirectory(prefix="taurec-bytes-") as tmp:
        logdir = args.logdir
        if logdir is None:
            sys.path.insert(0, str(Path(__file__).parent))
            from scoring_workload import TAU_REC, bench_suite, write_logs

            tau_rec = TAU_REC if TAU_REC.is_dir() else None
            suite = bench_suite(Path(tmp), tau_rec, 0)
            logdir, _ = write_logs(Path(tmp), args.episodes, 0, suite)
        files = find_logs([logdir])
        if not files:
            raise SystemExit(f"{logdir}: no episode logs (*.jsonl) found")
        sizes, by_field, lines_of = spent(files)
    n = len(files)
    total = sum(sizes)
    console.print(
        f"{n:,} logs: median {statistics.median(sizes):,.0f} bytes per episode, "
        f"mean {total / n:,.0f}"
    )
    table = Table(title="bytes per episode (mean), by record type and field")
    for col in ("record", "field", "bytes/episode", "share"):
        table.add_column(col)
    by_kind: Counter[str] = Counter()
    for (kind, _), b in by_field.items():
        by_kind[kind] += b
    for kind, kb in by_kind.most_common():
        table.add_row(
            f"{kind} ({lines_of[kind] / n:.1f} a log)",
            "(all)",
            f"{kb / n:,.0f}",
            f"{kb / total:.1%}",
        )
        fields = sorted(((b, name) for (k, name), b in by_field.items() if k == kind), reverse=True)
        for b, name in fields:
            if b / total >= 0.005:
                table.add_row("", name, f"{b / n:,.0f}", f"{b / total:.1%}")
    console.print(table)


if __name__ == "__main__":
    main()
