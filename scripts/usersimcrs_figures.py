"""The figures docs/usersimcrs.md quotes, made anew: the reference CRS (`taurec crs-demo`)
against each simulated user on a `--for crs` suite, in both dialogue modes.

    python scripts/usersimcrs_figures.py [--catalog movielens:recbole] [--tasks 30] [--trials 1]

It generates the suite over the catalog (the built-in one by default; MovieLens-100K
needs `pip install --no-deps recbole`), serves the reference CRS on a loopback port, plays
`taurec run --agent crs` for abus (with UserSimCRS's slot values in the usersimcrs mode),
agenda-requests, and llm-sp and llm-dp with the offline mock model, and prints one
markdown row per user and mode: pass^1, SR, SRRR (both readings), RDL, turns.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import orjson
import uvicorn

from taurec.clients.agents.contestants.crs_demo import DemoCrs, crs_app
from taurec.tasks.suite import load_suite

USERS = (
    ("abus", []),
    ("agenda-requests", []),
    ("llm-sp", ["--simulator-model", "mock"]),
    ("llm-dp", ["--simulator-model", "mock"]),
)


def _serve(suite: str) -> str:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    app = crs_app(DemoCrs(load_suite(suite).catalog))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return f"http://127.0.0.1:{sock.getsockname()[1]}/"


def _taurec(*args: str) -> subprocess.CompletedProcess[str]:
    entry = "import sys; from taurec.clients.cli.main import main; sys.exit(main())"
    return subprocess.run([sys.executable, "-c", entry, *args], capture_output=True, text=True)


def _group(logs: Path, suite: str) -> dict:
    entry = "import sys; from taurec.evaluator.cli.main import main; sys.exit(main())"
    done = subprocess.run(
        [sys.executable, "-c", entry, "score", str(logs), "--suite", suite, "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    (group,) = orjson.loads(done.stdout)["groups"]
    return group


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", default=None, help="e.g. movielens:recbole")
    parser.add_argument("--tasks", type=int, default=30)
    parser.add_argument("--trials", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="usersimcrs-figures-"))
    suite = str(work / "crs-suite")
    made = ["tasks", "generate", "--for", "crs", "--n", str(args.tasks), "--out", suite]
    made += ["--seed", str(args.seed)]
    if args.catalog:
        catalog = work / "films.json"
        done = _taurec("catalog", "build", args.catalog, "--out", str(catalog))
        if done.returncode:
            sys.exit(done.stderr.strip() or done.stdout.strip())
        made += ["--catalog", str(catalog)]
    done = _taurec(*made)
    if done.returncode:
        sys.exit(done.stderr.strip() or done.stdout.strip())
    url = _serve(suite)
    print(
        f"{args.tasks} tasks x {args.trials} trials, reference CRS, catalog {args.catalog or 'built-in'}\n"
    )
    print("| user | dialogue | pass^1 | SR | SRRR | SRRR (UserSimCRS) | RDL | avg turns |")
    print("|---|---|---|---|---|---|---|---|")
    for mode in ("taurec", "usersimcrs"):
        for user, extra in USERS:
            if mode == "usersimcrs" and user == "abus":
                extra = [*extra, "--abus-slot-values", "catalog"]
            logs = work / f"logs-{mode}-{user}"
            run = ["run", "--agent", "crs", "--crs-url", url, "--suite", suite, "--simulator", user]
            run += [
                *extra,
                "--crs-dialogue",
                mode,
                "--trials",
                str(args.trials),
                "--out",
                str(logs),
            ]
            done = _taurec(*run)
            if done.returncode:
                sys.exit(f"{user} ({mode}): {done.stderr.strip().splitlines()[-1:]}")
            g = _group(logs, suite)
            d = g.get("dialogue") or {}
            cells = [
                g["pass_k"].get("1"),
                d.get("sr"),
                d.get("srrr"),
                d.get("srrr_usersimcrs"),
                d.get("rdl"),
            ]
            shown = ["-" if v is None else f"{100 * v:.1f}%" for v in cells]
            turns = d.get("avg_turns")
            print(
                f"| {user} | {mode} | {' | '.join(shown)} | {'-' if turns is None else f'{turns:.1f}'} |"
            )


if __name__ == "__main__":
    main()
