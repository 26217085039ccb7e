"""How fast a million-item catalog folder starts an episode and scores its logs.

    python bench/catalog_episode_speed.py                  # 1,000,000 items, a temp dir
    python bench/catalog_episode_speed.py --catalog /tmp/c.taurec-catalog   # reuse one
    python bench/catalog_episode_speed.py --n 50000 --json

`bench/catalog_speed.py` times opening a catalog folder; this times *using* one. A suite
over the big folder is made the cheap way: `taurec tasks generate` over a 5,000-item
catalog generated with the same seed (the generator's prefixes are stable, so those items
are the big catalog's first 5,000) and its `suite.json` pointed at the big folder. Then,
each step in a process of its own (wall clock and the process's peak RSS):

  - server start + first episode: `Service.create` on the suite (catalog opened, search
    index mapped, the simulated user's title index opened), `start_episode`, and the
    user's reply to a first agent message naming a title (the first fuzzy title lookup
    reads every loose title key: the one step that grows with the catalog);
  - `taurec run --agent scripted` of 4 episodes (start, play, score), in process;
  - the evaluator's start (suite, catalog, title matcher, replayer) and one log scored;
  - `evaluator score` of those 4 logs.

Targets (the issue's load targets) for the two starts: <= 5 s and <= 1.5 GB peak RSS.
The whole run and the whole scoring are printed, not judged: past start-up their time is
the episodes' tool calls and their replay, which grow with the logs.

Before the catalog folder saved its title index (`titles/`, see
`taurec.catalog.title_index`), the 1M-item `taurec run` of one episode took 3 min 47 s and
3.5 GB: the title matcher, the simulated user's reader and the evaluator's matcher each
decoded all million items at start.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).parent))
from catalog_speed import MB, verdict

TARGET = {"seconds": 5.0, "rss_mb": 1536.0}
SMALL = 5_000  # items of the prefix catalog the suite's tasks are generated over
TASKS = 2  # tasks played, each twice


def timed_child(args: list[str]) -> tuple[float, float, bytes, float | None]:
    """Run `args`: wall time, peak RSS (MiB, its own rusage), stdout, and the peak of its
    anonymous memory when it reports one (`--sampled`)."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=err)
        assert proc.stdout is not None
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        took = time.perf_counter() - start
        err.seek(0)
        text = err.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status):
        sys.exit(f"failed: {' '.join(args)}\n{text[-2000:]}")
    lines = text.strip().splitlines()
    anon = float(lines[-1].split()[1]) if lines and lines[-1].startswith("anon-peak-mb") else None
    return took, usage.ru_maxrss / MB, out, anon


def sampled(program: str, *args: str) -> list[str]:
    """Run `taurec` or `evaluator` with the peak of its own (anonymous) memory sampled."""
    return [sys.executable, __file__, "--sampled", program, *args]


def taurec(*args: str) -> list[str]:
    return sampled("taurec", *args)


def evaluator(*args: str) -> list[str]:
    return sampled("evaluator", *args)


def _rss_anon() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return float(line.split()[1]) / 1024
    return 0.0


def run_sampled(program: str, args: list[str]) -> None:
    """Run a program's main here, sampling RssAnon every 50 ms; the peak goes to stderr's
    last line (ru_maxrss also counts the mapped catalog pages the process touched)."""
    import atexit
    import threading

    peak = [0.0]

    def sample() -> None:
        while True:
            peak[0] = max(peak[0], _rss_anon())
            time.sleep(0.05)

    threading.Thread(target=sample, daemon=True).start()
    atexit.register(lambda: print(f"anon-peak-mb {max(peak[0], _rss_anon()):.1f}", file=sys.stderr))
    sys.argv = [program, *args]
    if program == "taurec":
        from taurec.clients.cli.main import main
    else:
        from taurec.evaluator.cli.main import main
    main()


def make_suite(catalog: Path, seed: int, work: Path) -> Path:
    """A suite of 4 generated tasks whose catalog is the folder `catalog`."""
    small = work / "prefix.taurec-catalog"
    suite = work / "suite"
    timed_child(
        taurec("catalog", "generate", "--n", str(SMALL), "--seed", str(seed), "--out", str(small))
    )
    timed_child(
        taurec("tasks", "generate", "--catalog", str(small), "--n", "4", "--out", str(suite))
    )
    manifest = orjson.loads((suite / "suite.json").read_bytes())
    manifest["catalog"] = str(catalog.resolve())
    (suite / "suite.json").write_bytes(orjson.dumps(manifest, option=orjson.OPT_INDENT_2))
    shutil.rmtree(small)
    return suite


def first_episode(suite: str, logs: str) -> dict[str, float]:
    """In this process: the server's start, one episode's start and the user's first reply."""
    import anyio

    start = time.perf_counter()
    from taurec.server.recommendation.service import Service
    from taurec.server.settings import ServerSettings

    imported = time.perf_counter()
    service = Service.create(ServerSettings(suite=suite, log_dir=Path(logs)))
    created = time.perf_counter()
    task = service.suite.tasks[0]
    title, other = service.catalog.items[0].title, service.catalog.items[1].title
    misspelt = other[:3] + other[4:]  # a near miss: the reader's fuzzy lookup runs

    async def play() -> tuple[float, float]:
        t0 = time.perf_counter()
        started = await service.start_episode(task.id, agent_label="bench")
        t1 = time.perf_counter()
        text = f"Hi! Would you like {title}? Or is {misspelt} more your thing?"
        await service.send_message(started.episode_id, text)
        return t1 - t0, time.perf_counter() - t1

    opened, replied = anyio.run(play)
    return {"RssAnon": _rss_anon()} | {
        "imports": imported - start,
        "create": created - imported,
        "start_episode": opened,
        "first_reply": replied,
    }


def first_score(suite: str, logs: str) -> dict[str, float]:
    """In this process: the evaluator's start (suite, catalog, title matcher, replayer) and
    the scoring of one log."""
    start = time.perf_counter()
    from taurec.clients.runner.plan import episode_logs
    from taurec.evaluator.logs import Resolver, score_file

    imported = time.perf_counter()
    resolver = Resolver(suite=suite)
    resolver.context(suite)
    loaded = time.perf_counter()
    score_file(episode_logs(Path(logs))[0], resolver)
    return {
        "RssAnon": _rss_anon(),
        "imports": imported - start,
        "load_suite": loaded - imported,
        "score_one_log": time.perf_counter() - loaded,
    }


def measure(catalog: Path, seed: int, work: Path) -> list[dict[str, Any]]:
    suite = make_suite(catalog, seed, work)
    rows: list[dict[str, Any]] = []

    def row(
        step: str, took: float, rss: float, anon: float | None = None, judged: bool = True
    ) -> None:
        target, ok = verdict(took, rss, TARGET) if judged else ("", "")
        rows.append(
            {
                "step": step,
                "seconds": took,
                "rss_mb": rss,
                "anon_mb": anon,
                "target": target,
                "verdict": ok,
            }
        )

    me = [sys.executable, __file__]
    took, rss, out, _ = timed_child([*me, "--first-episode", str(suite), str(work / "logs0")])
    phases = orjson.loads(out)
    row("server start + first episode + first reply", took, rss, phases.get("RssAnon"))
    for name in ("imports", "create", "start_episode", "first_reply"):
        row(f"  of which {name.replace('_', ' ')}", phases[name], rss, judged=False)
    logs = work / "logs"
    tasks = ",".join(f"gen_{i:03d}" for i in range(TASKS))
    run = ["run", "--agent", "scripted", "--suite", str(suite), "--trials", "2"]
    run += ["--tasks", tasks, "--out", str(logs), "--concurrency", "1"]
    took, rss, _, anon = timed_child(taurec(*run))
    # Not judged on time: past its start, a run's time is its episodes' (the scripted agent
    # pages through every filter match, hundreds of pages on a million items), and scoring
    # replays every one of those calls.
    row(f"taurec run: {2 * TASKS} episodes (start, play, score)", took, rss, anon, judged=False)
    took, rss, out, _ = timed_child([*me, "--first-score", str(suite), str(logs)])
    phases = orjson.loads(out)
    row("evaluator start + first log scored", took, rss, phases["RssAnon"])
    for name in ("imports", "load_suite", "score_one_log"):
        row(f"  of which {name.replace('_', ' ')}", phases[name], rss, judged=False)
    took, rss, _, anon = timed_child(evaluator("score", str(logs), "--json"))
    row(f"evaluator score: {2 * TASKS} logs (CLI)", took, rss, anon, judged=False)
    return rows


def show(rows: list[dict[str, Any]], items: int) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"using a {items:,}-item catalog folder (wall clock; peak RSS)")
    for col in ("step", "time", "peak RSS", "of it own", "target", "verdict"):
        table.add_column(col, justify="left" if col in ("step", "target") else "right")
    for r in rows:
        anon = f"{r['anon_mb']:,.0f} MB" if r["anon_mb"] is not None else ""
        table.add_row(
            r["step"],
            f"{r['seconds']:.2f} s",
            f"{r['rss_mb']:,.0f} MB",
            anon,
            r["target"],
            r["verdict"],
        )
    console = Console(width=140)
    console.print(table)
    console.print(
        "peak RSS counts the pages of the memory-mapped catalog a process touched (the system "
        "can drop them); 'of it own' is its sampled peak of anonymous memory"
    )
    load = os.getloadavg()
    console.print(f"load average at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="items to generate")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--catalog", type=Path, help="a folder from `taurec catalog generate --seed SEED`"
    )
    parser.add_argument("--work", type=Path, help="folder for the temp files (default: /tmp)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--first-episode", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--first-score", nargs=2, help=argparse.SUPPRESS)
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--sampled"]:
        run_sampled(argv[1], argv[2:])
        return 0
    args = parser.parse_args(argv)
    if args.first_episode:
        sys.stdout.write(orjson.dumps(first_episode(*args.first_episode)).decode() + "\n")
        return 0
    if args.first_score:
        sys.stdout.write(orjson.dumps(first_score(*args.first_score)).decode() + "\n")
        return 0
    with tempfile.TemporaryDirectory(dir=args.work) as tmp:
        work = Path(tmp)
        catalog = args.catalog
        if catalog is None:
            catalog = work / "big.taurec-catalog"
            generate = ["catalog", "generate", "--n", str(args.n), "--seed", str(args.seed)]
            took, rss, _, _ = timed_child(taurec(*generate, "--out", str(catalog)))
            print(f"generated {args.n:,} items in {took:.1f} s ({rss:,.0f} MB)", file=sys.stderr)
        items = orjson.loads((catalog / "manifest.json").read_bytes())["items"]
        rows = measure(catalog, args.seed, work)
    if args.json:
        doc = {"items": items, "rows": rows, "rss_unit": f"MiB ({MB:.0f} KiB)"}
        sys.stdout.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        show(rows, items)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
