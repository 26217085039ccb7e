"""The framework examples run offline as a newcomer runs them (`--model mock` for the
litellm loop, `--model scripted` for the OpenAI Agents SDK) and end with a scored
episode; without a key and without the offline flag each stops with one line naming the
key and the offline flag."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.hang_guard import HANG_GUARD_S

from taurec.evaluator.logs import Resolver, score_paths

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _example(name: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # no key reaches the examples (the test's log key does); litellm's bundled price map
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    return subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,  # no .env of the working tree
        timeout=HANG_GUARD_S,
    )


def _scored(log_dir: Path) -> tuple[str, str]:
    (score,) = score_paths([log_dir], Resolver())
    return score.label, score.end_reason


def test_the_litellm_loop_plays_offline_with_the_mock_model(tmp_path: Path) -> None:
    done = _example("litellm_mcp.py", "--model", "mock", "--log-dir", "logs", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "ended: recommended" in done.stdout
    assert "Provider List" not in done.stdout + done.stderr
    assert _scored(tmp_path / "logs") == ("litellm-mcp:mock", "recommended")


def test_the_agents_sdk_example_plays_offline_with_the_scripted_model(tmp_path: Path) -> None:
    pytest.importorskip("agents.mcp", reason="openai-agents is not installed")
    done = _example(
        "openai_agents_sdk.py", "--model", "scripted", "--log-dir", "logs", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "t001 trial 0: Done (scripted model)." in done.stdout
    assert _scored(tmp_path / "logs") == ("agents-sdk:scripted", "recommended")


@pytest.mark.parametrize(
    ("name", "args", "line"),
    [
        (
            "litellm_mcp.py",
            ["--model", "openai/gpt-4o-mini"],
            "error: --model openai/gpt-4o-mini: OPENAI_API_KEY not set (export it, or put it "
            "in .env); to run offline without a key: --model mock",
        ),
        (
            "openai_agents_sdk.py",
            [],
            "error: --model gpt-4.1-mini: OPENAI_API_KEY not set (export it, or put it in "
            ".env); to run offline without a key: --model scripted",
        ),
    ],
)
def test_without_a_key_each_example_stops_with_one_line(
    name: str, args: list[str], line: str, tmp_path: Path
) -> None:
    done = _example(name, *args, "--log-dir", "logs", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [line]
    assert not (tmp_path / "logs").exists()
