"""The `mock` model of the LLM users and readers: `--simulator-model mock`, `--nlg-model
mock` and `--nlu-model mock` play whole episodes through litellm with no key and no
network, every call recorded in the log."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from taurec.clients.agents.recommendation.scripted import ScriptedAgent
from taurec.clients.runner.connection import Connection
from taurec.clients.runner.plan import plan
from taurec.clients.runner.runner import Runner
from taurec.server.recommendation.simulator.llm_mock import MockModel
from taurec.server.settings import ServerSettings
from taurec.tasks.trajectory.reader import read_log

TASKS = ["t001", "t002", "t003"]


def _play(tmp_path: Path, **settings: object) -> list:
    out = tmp_path / "logs"
    server = ServerSettings(log_dir=out, run_label="mock", **settings)  # type: ignore[arg-type]
    runner = Runner(ScriptedAgent(), Connection(settings=server), out, "mock", handle_signals=False)
    report = anyio.run(runner.run, plan(TASKS, 1))
    assert report.failure is None and not report.interrupted
    return [read_log(p) for p in sorted(out.rglob("*.jsonl"))]


@pytest.mark.parametrize(
    "settings",
    [
        {"simulator": "llm", "simulator_model": "mock"},
        {"simulator": "llm-sp", "simulator_model": "mock"},
        {"simulator": "llm-dp", "simulator_model": "mock"},
        {"simulator": "abus", "nlg_model": "mock", "nlu_model": "mock"},
    ],
)
def test_a_mocked_model_plays_whole_episodes_offline_and_logs_its_calls(tmp_path, settings):
    logs = _play(tmp_path, **settings)
    assert len(logs) == len(TASKS)
    for log in logs:
        assert log.ok, log.problems
        end = log.events[-1]
        assert end["type"] == "end" and end["reason"] != "infra_error", end
        calls = [e for e in log.events if e["type"] == "model_call"]
        assert calls and all(c["model"] == "mock" for c in calls)


def test_the_mock_user_takes_the_first_title_the_assistant_names():
    mock = MockModel(lambda text: ["Night Train"] if "Night Train" in text else [])
    prompt = "Write the USER's next message.\nHISTORY:\nASSISTANT: How about Night Train?\nUSER:"
    assert mock.text(prompt, []) == "Sounds good, I'll take Night Train. \\end"
    acts = "Give the dialogue acts of this utterance by the USER (who wants a movie).\n"
    assert mock.text(acts + "UTTERANCE: Sounds good, I'll take Night Train.\nACTS: ", []) == (
        'accept(title="Night Train")'
    )
