"""Scoring a log folder the way a user does, for comparing runs in tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from typer.testing import CliRunner

from taurec.evaluator.cli.main import app as evaluator


def score_groups(out: Path) -> list[dict[str, Any]]:
    """`evaluator score OUT --json` groups, without the one wall-clock figure (step
    latency) and the run's random plan id, so two runs of a deterministic agent compare
    equal."""
    result = CliRunner().invoke(evaluator, ["score", str(out), "--json"])
    assert result.exit_code == 0, result.output
    groups = orjson.loads(result.stdout)["groups"]
    for g in groups:
        g["efficiency"].pop("median_step_latency_ms")  # wall-clock time, not behaviour
        g.pop("plan_id")  # a fresh random id per run
    return groups
