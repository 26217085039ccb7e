"""Scores unchanged, byte for byte: `evaluator score --json` on the same logs by this
checkout's code and by the code at --base (a git revision), compared.

The logs are written once (into --logs, kept for the next run; a temporary folder by
default) by this checkout: `taurec run` (offline, in process, signed with a fixed key)
with each agent of SUITES on each shipped suite, and on τ-Rec's release when it lies at
../shared/third_party; and the τ-Rec differential's episodes (every script of
tests/support/taurec_scripts.py on every release task, as
tests/evaluator/recommendation/test_taurec_end_to_end.py plays them through our server).
The code at --base is taken with `git archive` into a temporary folder and imported from
there. Each folder is scored under every option set of OPTIONS by both; one line per
folder and options says identical, or where the outputs first differ. Exits 1 on any
difference.

    python scripts/score_identity.py --base main --logs /tmp/identity-logs
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TAU_REC = ROOT.parent / "shared" / "third_party" / "tau-rec-v1.0"
LAYERS = ("catalog", "tasks", "policies", "server", "evaluator", "clients")
AGENTS = ["scripted", "random", "oracle", "popularity"]
STREAM_AGENTS = ["random", "popularity", "ceiling", "learner"]
SUITES = {"builtin": AGENTS, "ranking:builtin": AGENTS, "stream:builtin": STREAM_AGENTS}
OPTIONS = (
    ["--json"],
    ["--json", "--verify"],
    ["--json", "--rules", "both", "--seed", "3"],
    ["--json", "--no-replay", "--verify"],
    ["--format", "markdown", "--verify"],
)
KEY = b"score identity key, not a secret"
EVALUATOR = "from taurec.evaluator.cli.main import main; main()"


def write_logs(out: Path, env: dict[str, str], trials: int) -> list[Path]:
    """One folder per suite (and the differential's), written unless already there."""
    suites = dict(SUITES)
    if TAU_REC.is_dir():
        suites[f"tau-rec:{TAU_REC}"] = AGENTS
    folders = []
    for suite, agents in suites.items():
        folder = out / suite.split(":")[0].split("/")[0]
        folders.append(folder)
        for agent in agents if not folder.is_dir() else ():
            cmd = [sys.executable, "-c", "from taurec.clients.cli.main import main; main()"]
            cmd += ["run", "--suite", suite, "--agent", agent, "--trials", str(trials)]
            cmd += ["--out", str(folder / agent)]
            subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    if TAU_REC.is_dir():
        folder = out / "tau-rec-differential"
        if not folder.is_dir():
            folder.mkdir(parents=True)
            subprocess.run([sys.executable, __file__, "--play", str(folder)], env=env, check=True)
        folders.append(folder)
    return folders


def play_differential(folder: Path) -> None:
    """Our side of the τ-Rec end-to-end differential: every script on every release task."""
    sys.path.insert(0, str(ROOT / "tests"))
    import anyio
    from mcp import Client
    from support.taurec_drivers import UserScripts, our_log
    from support.taurec_scripts import scripts

    from taurec.server.app import build_server
    from taurec.server.settings import ServerSettings
    from taurec.tasks.suite import load_suite

    async def play() -> None:
        suite = load_suite(f"tau-rec:{TAU_REC}")
        users = UserScripts()
        settings = ServerSettings(log_dir=folder, suite=f"tau-rec:{TAU_REC}", run_label="e2e")
        async with Client(build_server(settings, make_user=users)) as client:
            tools = (await client.list_tools()).tools
            for task in suite.tasks:
                for trial, script in enumerate(scripts(task, suite.catalog)):
                    await our_log(client, tools, users, folder, script, task.id, trial)

    anyio.run(play)


def base_tree(rev: str, tmp: Path) -> Path:
    """The code at `rev`, laid out to import as `taurec.<layer>` (PYTHONPATH)."""
    src, site = tmp / "src", tmp / "site"
    src.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True
    )
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive.stdout, check=True)
    (site / "taurec").mkdir(parents=True)
    for layer in LAYERS:
        (site / "taurec" / layer).symlink_to(src / layer)
    return site


def score(folder: Path, options: list[str], env: dict[str, str]) -> bytes:
    done = subprocess.run(
        [sys.executable, "-c", EVALUATOR, "score", str(folder), *options],
        env=env,
        capture_output=True,
    )
    return done.stdout + b"\nexit %d\n" % done.returncode


def first_difference(a: bytes, b: bytes) -> str:
    for n, (x, y) in enumerate(zip(a.splitlines(), b.splitlines(), strict=False), 1):
        if x != y:
            return f"line {n}: {x[:120]!r} != {y[:120]!r}"
    return f"one output is longer ({len(a):,} against {len(b):,} bytes)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="main", help="the git revision to compare with")
    ap.add_argument("--logs", type=Path, help="where the logs are (written when missing)")
    ap.add_argument("--trials", type=int, default=2)
    ap.add_argument("--play", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.play is not None:
        play_differential(args.play)
        return 0
    with tempfile.TemporaryDirectory(prefix="taurec-identity-") as tmp:
        logs = args.logs or Path(tmp) / "logs"
        key_file = Path(tmp) / "log.key"
        key_file.write_bytes(KEY)
        env = os.environ | {"TAUREC_LOG_KEY_FILE": str(key_file)}
        env.pop("TAUREC_LOG_KEY", None)
        folders = write_logs(logs, env, args.trials)
        base = env | {"PYTHONPATH": str(base_tree(args.base, Path(tmp)))}
        differ = 0
        for folder in folders:
            for options in OPTIONS:
                ours, theirs = score(folder, options, env), score(folder, options, base)
                same = ours == theirs
                differ += not same
                what = "identical" if same else "DIFFER: " + first_difference(theirs, ours)
                print(f"{folder.name} {' '.join(options)}: {len(ours):,} bytes, {what}")
        print(f"{differ} of {len(folders) * len(OPTIONS)} outputs differ from {args.base}'s")
        return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
