"""What `evaluator` does before its commands: `.env` read, tracebacks not squeezed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import os, sys
from taurec.evaluator import evaluate
from taurec.evaluator.cli import main as cli

def boom(*args, **kwargs):
    raise RuntimeError("a" * 150 + " " + os.environ.get("TAUREC_TEST_FROM_ENV_FILE", "unset"))

evaluate.evaluate = boom  # the score command imports it when it runs
sys.argv = ["evaluator", "score", "."]
cli.main()
"""


def test_an_unexpected_error_prints_a_full_width_traceback_and_env_is_read(
    tmp_path: Path,
) -> None:
    (tmp_path / ".env").write_text("TAUREC_TEST_FROM_ENV_FILE=from-the-file\n")
    env = {**os.environ, "COLUMNS": "25", "TERMINAL_WIDTH": "25"}
    env.pop("TAUREC_TEST_FROM_ENV_FILE", None)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert done.returncode == 1
    assert "Traceback (most recent call last)" in done.stderr
    assert f"RuntimeError: {'a' * 150} from-the-file" in done.stderr
