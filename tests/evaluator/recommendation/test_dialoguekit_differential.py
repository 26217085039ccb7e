"""DialogueKit's own code on taurec's dialogues: every exported dialogue loads with its
`json_to_dialogues`, and its `Evaluator.avg_turns` equals taurec's avg_turns.

DialogueKit installs with `pip install --no-deps dialoguekit` (its pinned websockets
clashes with the OpenAI Agents SDK's); `.ci/run` does so, and this test says it is
skipped, and why, where it is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.scoring import score_groups
from typer.testing import CliRunner

from taurec.clients.cli.main import app as taurec

try:
    from dialoguekit.utils.dialogue_evaluation import Evaluator
    from dialoguekit.utils.dialogue_reader import json_to_dialogues
except ImportError as exc:  # pragma: no cover - depends on the installation
    pytest.skip(
        f"DialogueKit is not installed ({exc}); pip install --no-deps dialoguekit",
        allow_module_level=True,
    )

runner = CliRunner()
#: DialogueKit's Evaluator wants a reward configuration; avg_turns does not read it
REWARD = {"full_set_points": 20, "intents": {}, "repeat_penalty": 1, "cost": 1}
SIMULATORS = ("rule", "abus", "agenda-requests")


@pytest.mark.slow
def test_dialoguekit_counts_the_turns_taurec_counts(tmp_path: Path) -> None:
    loaded = 0
    for simulator in SIMULATORS:
        out, exported = tmp_path / simulator, tmp_path / f"{simulator}.json"
        run = runner.invoke(
            taurec, ["run", "--simulator", simulator, "--trials", "2", "--out", str(out)]
        )
        assert run.exit_code == 0, run.output
        result = runner.invoke(taurec, ["dialogues", "export", str(out), "--out", str(exported)])
        assert result.exit_code == 0, result.output
        dialogues = json_to_dialogues(str(exported))
        (group,) = score_groups(out)
        assert len(dialogues) == group["dialogue"]["episodes"] == 120
        assert Evaluator(dialogues, REWARD).avg_turns() == pytest.approx(
            group["dialogue"]["avg_turns"], abs=1e-12
        )
        loaded += len(dialogues)
    assert loaded == 120 * len(SIMULATORS)
