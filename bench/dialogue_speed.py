"""What the dialogue metrics and the simulator-fault audit add to scoring.

Plays the built-in suite in process (scripted agent, the chosen simulator, `--trials`
trials), copies the logs `--copies` times, then scores them in one process with and
without the dialogue hook (evaluator/recommendation/dialogue.py), alternating, `--repeats` times.
Prints the median episodes per second of each and the ratio.

    python bench/dialogue_speed.py --simulator agenda-requests --copies 20
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import anyio

from taurec.clients.agents.recommendation.scripted import ScriptedAgent
from taurec.clients.runner.connection import Connection
from taurec.clients.runner.plan import plan
from taurec.clients.runner.runner import Runner
from taurec.evaluator import logs as logs_module
from taurec.evaluator.logs import Resolver, score_files
from taurec.server.settings import ServerSettings
from taurec.tasks.suite import load_suite


async def _play(out: Path, simulator: str, trials: int) -> None:
    settings = ServerSettings(log_dir=out, run_label="bench", simulator=simulator)
    runner = Runner(ScriptedAgent(), Connection("inproc", settings), out, "b", handle_signals=False)
    await runner.run(plan([t.id for t in load_suite("builtin").tasks], trials))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--simulator", default="agenda-requests", choices=["rule", "abus", "agenda-requests"]
    )
    ap.add_argument("--trials", type=int, default=1)
    ap.add_argument("--copies", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        anyio.run(_play, root / "played", args.simulator, args.trials)
        played = sorted((root / "played").rglob("*.jsonl"))
        files = []
        for c in range(args.copies):
            for p in played:
                dest = root / "copies" / str(c) / p.parent.name / p.name
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(p, dest)
                files.append(dest)
        hook = logs_module.note_dialogue
        rates: dict[str, list[float]] = {"with": [], "without": []}
        for _ in range(args.repeats):
            for name in ("without", "with"):
                logs_module.note_dialogue = hook if name == "with" else (lambda *a: None)
                t0 = time.perf_counter()
                score_files(files, Resolver(), workers=1)
                rates[name].append(len(files) / (time.perf_counter() - t0))
        logs_module.note_dialogue = hook
    without, with_ = (statistics.median(rates[k]) for k in ("without", "with"))
    print(f"{len(files)} episodes ({args.simulator} user), one process, median of {args.repeats}")
    print(f"without the dialogue hook: {without:,.0f} episodes/s")
    print(f"with the dialogue hook:    {with_:,.0f} episodes/s  (time ratio {without / with_:.3f})")


if __name__ == "__main__":
    main()
