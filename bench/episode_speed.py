"""How long the README's first command takes: `taurec run` with its defaults.

    python bench/episode_speed.py            # scripted agent, built-in suite, 4 trials
    python bench/episode_speed.py --agent oracle --trials 2 --json

Runs `taurec run` as a subprocess into a temporary folder (start-up, 240 episodes in
process with the rule-based user, live scoring and the final table all included) and
prints the wall time and episodes per second. Target: under 2 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

from taurec.clients.runner.plan import episode_logs, summarize_log

TARGET_SECONDS = 120.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="scripted")
    parser.add_argument("--trials", type=int, default=4)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "logs"
        command = [sys.executable, "-m", "taurec.clients.cli.run", "--out", str(out)]
        command += ["--agent", args.agent, "--trials", str(args.trials)]
        t0 = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - t0
        if done.returncode != 0:
            sys.exit(f"taurec run failed ({done.returncode}):\n{done.stderr}")
        episodes = sum(summarize_log(p).complete for p in episode_logs(out))
    result = {
        "agent": args.agent,
        "episodes": episodes,
        "seconds": round(seconds, 2),
        "episodes_per_second": round(episodes / seconds, 1),
        "target_seconds": TARGET_SECONDS,
        "ok": seconds <= TARGET_SECONDS,
    }
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(result, option=orjson.OPT_INDENT_2) + b"\n")
    else:
        verdict = "ok" if result["ok"] else "SLOW"
        print(
            f"taurec run --agent {args.agent} --trials {args.trials}: {episodes} episodes in "
            f"{seconds:.1f} s ({result['episodes_per_second']}/s), target <= "
            f"{TARGET_SECONDS:.0f} s: {verdict}"
        )


if __name__ == "__main__":
    main()
