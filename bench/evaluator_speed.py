"""How fast `evaluator score` is, against merely reading and parsing the same logs.

Writes N synthetic episode logs (about 30 events each) over a generated task suite on the
built-in catalog, then times, in one run and in alternating order:
  read:  open every file and orjson-parse every line (the floor),
  score: the evaluator's full path (parse, validate, transcript, constraints, the seven
         policy checks, aggregation).
Prints episodes per second and the ratio score/read. Targets: >= 5,000 episodes/s and
score within 3x of read, for the default (one worker process per core). The logs are
chained and signed as the server writes them; the --verify row checks that too.

    python bench/evaluator_speed.py --episodes 100000
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

import orjson
from rich.console import Console
from rich.table import Table

from taurec.catalog.store import Catalog
from taurec.evaluator.aggregate import aggregate
from taurec.evaluator.logs import Resolver, find_logs, score_files
from taurec.server.catalog_tools import replay_call
from taurec.tasks.generator import generate_tasks
from taurec.tasks.suite import SuiteManifest, write_suite_dir
from taurec.tasks.trajectory_signing import CHAIN_MARK, GENESIS, HMAC_MARK, LogKey, chain_next

GENRES = ("Comedy", "Drama", "Thriller", "Action", "Romance", "Horror")


def write_logs(root: Path, episodes: int, seed: int) -> tuple[Path, int]:
    catalog = Catalog.load("builtin")
    tasks = generate_tasks(catalog, 30, seed)
    suite_dir = root / "suite"
    write_suite_dir(
        suite_dir, SuiteManifest(format_version=1, id="bench", catalog="builtin"), tasks
    )
    rng = random.Random(seed)
    ids = catalog.ids
    events_total = 0
    out = root / "logs"
    for n in range(episodes):
        task = tasks[n % len(tasks)]
        trial = n // len(tasks)
        header = {
            "type": "header",
            "format": "taurec-trajectory",
            "format_version": 1,
            "run_id": "bench",
            "episode_id": f"ep{n}",
            "agent": {"label": f"agent{n % 2}"},
            "task_id": task.id,
            "task_sha256": task.sha256(),
            "suite": {"id": "bench", "spec": str(suite_dir)},
            "catalog_sha256": catalog.sha256(),
            "trial": trial,
            "seed": n,
            "simulator": {"kind": "rule"},
            "server_version": "bench",
            "started_at": "2026-01-01T00:00:00Z",
        }
        lines: list[dict[str, object]] = [header]

        def add(lines: list[dict[str, object]] = lines, **ev: object) -> None:
            seq = len(lines)
            lines.append({"seq": seq, "t": seq * 0.01, "latency_ms": 1.5, **ev})

        add(type="user_message", text="Looking for something good tonight, not too long.")
        for turn in range(6):
            add(type="agent_message", text=f"Question {turn}: what about the runtime or genre?")
            add(type="user_message", text="I'd like a comedy, under two hours please.")
            cid = f"c{turn}"
            fargs = {"genres_any": [GENRES[turn % len(GENRES)]], "limit": 5}
            add(type="tool_call", call_id=cid, name="filter_catalog", arguments=fargs)
            add(
                type="tool_result",
                call_id=cid,
                content=replay_call(catalog, task, "filter_catalog", fargs),
            )
        item = rng.choice(ids)
        hargs = {"episode_id": f"ep{n}"}
        add(type="tool_call", call_id="h", name="get_user_history", arguments=hargs)
        add(
            type="tool_result",
            call_id="h",
            content=replay_call(catalog, task, "get_user_history", hargs),
        )
        aargs = {"episode_id": f"ep{n}", "item_id": item}
        add(type="tool_call", call_id="a", name="check_availability", arguments=aargs)
        add(
            type="tool_result",
            call_id="a",
            content=replay_call(catalog, task, "check_availability", aargs),
        )
        add(
            type="tool_call",
            call_id="r",
            name="recommend",
            arguments={"item_id": item, "message": "Enjoy!"},
        )
        add(type="tool_result", call_id="r", content={"committed": item})
        add(type="end", reason="recommended", item_id=item, key_id=BENCH_KEY.key_id)
        events_total += len(lines)
        path = out / f"agent{n % 2}" / f"{n:07d}.jsonl"
        if n < 2:
            path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(signed_lines(lines))
    return out, events_total


BENCH_KEY = LogKey(b"bench key, not a secret: 0123456789", "bench")


def signed_lines(records: list[dict[str, object]]) -> bytes:
    """The records as the taurec server writes them: chained, the end record signed."""
    out, chain = [], GENESIS
    for rec in records:
        body = orjson.dumps(rec)[:-1]
        chain = chain_next(chain, body)
        tail = CHAIN_MARK + chain.encode()
        if rec["type"] == "end":
            tail += HMAC_MARK + BENCH_KEY.mac(chain).encode()
        out.append(body + tail + b'"}\n')
    return b"".join(out)


def read_only(files: list[Path]) -> int:
    n = 0
    for f in files:
        for line in f.read_bytes().splitlines():
            orjson.loads(line)
            n += 1
    return n


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--episodes", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    console = Console()
    with tempfile.TemporaryDirectory(prefix="taurec-bench-") as tmp:
        t0 = time.perf_counter()
        out, events = write_logs(Path(tmp), args.episodes, args.seed)
        console.print(
            f"wrote {args.episodes:,} logs ({events / args.episodes:.1f} lines each) in {time.perf_counter() - t0:.1f} s"
        )
        files = find_logs([out])
        workers = os.cpu_count() or 1
        runs = {
            "score1": (1, None),
            "scoreN": (workers, None),
            "verifyN": (workers, BENCH_KEY),
        }
        times: dict[str, list[float]] = {"read": []} | {k: [] for k in runs}
        bad = 0
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            read_only(files)
            times["read"].append(time.perf_counter() - t0)
            for name, (n, key) in runs.items():
                t0 = time.perf_counter()
                # the logs name their suite folder, as a sealed run's plan would allow
                resolver = Resolver(
                    verify_key=key, allowed_specs=frozenset({str(out.parent / "suite")})
                )
                scores = score_files(files, resolver, workers=n)
                aggregate(scores)
                times[name].append(time.perf_counter() - t0)
                bad = max(
                    bad, sum(s.infra_error or bool(s.problems or s.verification) for s in scores)
                )
                del scores
        med = {k: statistics.median(v) for k, v in times.items()}
        table = Table(
            title=f"evaluator speed, {args.episodes:,} episodes, median of {args.repeats}"
        )
        for col in ("measure", "seconds", "episodes/s", "x read", "target"):
            table.add_column(col)
        table.add_row(
            "read + orjson parse (1 process)",
            f"{med['read']:.2f}",
            f"{args.episodes / med['read']:,.0f}",
            "1.00",
            "",
        )
        for key, label in (
            ("score1", "evaluator score, 1 process"),
            ("scoreN", f"evaluator score, {workers} processes (the default)"),
            ("verifyN", f"evaluator score --verify, {workers} processes"),
        ):
            table.add_row(
                label,
                f"{med[key]:.2f}",
                f"{args.episodes / med[key]:,.0f}",
                f"{med[key] / med['read']:.2f}",
                ">= 5,000/s, <= 3x" if key == "scoreN" else "",
            )
        console.print(table)
        if bad:
            console.print(f"[red]{bad} episodes failed to score: the bench logs are wrong[/red]")


if __name__ == "__main__":
    main()
