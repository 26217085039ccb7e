"""`taurec run` with a provider model and no key stops at once: the key is checked before
litellm (or the runner's heavy stack) is imported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support.hang_guard import HANG_GUARD_S

PROBE = """
import sys
sys.argv = ["taurec", "run", "--agent", "llm", "--model", "openai/gpt-4o-mini",
            "--log-dir", sys.argv[1]]
from taurec.clients.cli.main import main
try:
    main()
except SystemExit as exc:
    code = exc.code
print(code, "litellm" in sys.modules, "mcp" in sys.modules)
"""


def test_a_missing_agent_key_is_told_without_importing_litellm(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # were litellm loaded, it fetches no prices
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "logs")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,  # no .env of the working tree
        timeout=HANG_GUARD_S,
    )
    assert done.stdout.split() == ["2", "False", "False"], done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("error: --model openai/gpt-4o-mini: OPENAI_API_KEY not set")
    assert not (tmp_path / "logs").exists()
