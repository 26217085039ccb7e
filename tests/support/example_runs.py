"""Running the scripts in examples/ as a newcomer does: a subprocess in an empty folder,
without the test environment's API keys, and scoring the one log it leaves."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support.hang_guard import HANG_GUARD_S
from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.logs import Resolver, score_paths

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
#: `python -c` code that runs the script named next, as `python SCRIPT ARGS...` would.
LAUNCH = (
    "import runpy, sys\nsys.argv = sys.argv[1:]\nrunpy.run_path(sys.argv[0], run_name='__main__')"
)


def run_example(
    name: str,
    *args: str,
    cwd: Path,
    python: str = sys.executable,
    env: dict[str, str] | None = None,
    prelude: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """examples/<name> run by `python` in `cwd` (no .env of the working tree); no API key
    reaches it (the tests' log key does) beyond those in `env`. `prelude`, Python code,
    runs before the example (e.g. to hide a package)."""
    base = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    base["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # litellm's bundled price map
    base["OPENAI_AGENTS_DISABLE_TRACING"] = "1"  # no trace export, whatever the key
    script = str(EXAMPLES / name)
    command = [python, script, *args]
    if prelude is not None:
        command = [python, "-c", f"{prelude}\n{LAUNCH}", script, *args]
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        env={**base, **(env or {})},
        cwd=cwd,
        timeout=HANG_GUARD_S,
    )


def only_score(log_dir: Path) -> EpisodeScore:
    """The score of the one episode log under `log_dir`."""
    (score,) = score_paths([log_dir], Resolver())
    return score


def one_line_error(done: subprocess.CompletedProcess[str]) -> str:
    """The example's last line, checked to be an error line after no traceback."""
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("error: "), done.stderr
    return last
