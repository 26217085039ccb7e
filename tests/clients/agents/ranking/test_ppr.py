"""PPR agents through `taurec run` on a suite written by `evaluator export --format ppr
--suite-out`, and the LLM agent's \\boxed{A|B} answer with a mocked model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from support.ppr import play_rankings
from support.ranking import write_ranking_suite
from typer.testing import CliRunner

from taurec.clients.agents.base import Episode, outcome_of
from taurec.clients.agents.llm import LLMAgentSettings
from taurec.clients.agents.ranking.ppr_llm import NO_ANSWER, PairLLMAgent, boxed_letter
from taurec.clients.cli.main import app
from taurec.evaluator.cli.main import app as evaluator_app
from taurec.server.app import build_server
from taurec.server.settings import ServerSettings
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.reader import read_log

runner = CliRunner()


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp("ppr-run")
    ranking = str(write_ranking_suite(folder / "ranking", n=6))
    anyio.run(play_rankings, ranking, folder / "logs", [3, None, 2, 1])
    out = folder / "pairs"
    args = ["export", str(folder / "logs"), "--format", "ppr", "--suite", ranking]
    result = runner.invoke(evaluator_app, [*args, "--suite-out", str(out), "--seed", "4"])
    assert result.exit_code == 0, result.output
    assert "wrote 10 ppr tasks to" in result.stderr
    return str(out)


def _run(suite: str, out: Path, *args: str):
    return runner.invoke(app, ["run", "--suite", suite, "--out", str(out), "--trials", "1", *args])


def test_suite_out_needs_the_ppr_format(tmp_path: Path):
    result = runner.invoke(
        evaluator_app,
        ["export", str(tmp_path), "--format", "grpo", "--suite-out", str(tmp_path / "x")],
    )
    assert result.exit_code == 2 and "--suite-out: expected --format ppr" in result.stderr


def test_the_oracle_scores_1_on_the_exported_suite(pairs: str, tmp_path: Path):
    result = _run(pairs, tmp_path / "logs", "--agent", "oracle")
    assert result.exit_code == 0, result.output
    assert "accuracy (= reward)   │ 1.0000" in result.stdout


def test_the_random_agent_answers_both_letters_and_the_table_shows_the_a_share(
    pairs: str, tmp_path: Path
):
    result = _run(pairs, tmp_path / "r", "--agent", "random", "--trials", "3")
    assert result.exit_code == 0, result.output
    assert "episodes / tasks      │ 30 / 10 (up to 3 trials)" in result.stdout
    answers = {_submitted(log) for log in (tmp_path / "r").rglob("*.jsonl")}
    assert answers == {"A", "B"} and "share of answers 'A'" in result.stdout


def test_a_ranking_agent_is_refused_on_ppr_tasks(pairs: str, tmp_path: Path):
    result = _run(pairs, tmp_path / "logs", "--agent", "cf")
    assert result.exit_code == 2 and "unknown agent 'cf' for 'ppr' tasks" in result.stderr


def test_the_last_boxed_letter_is_the_answer():
    assert boxed_letter("A seems likely... no: \\boxed{ b }") == "B"
    assert boxed_letter("\\boxed{C}") is None and boxed_letter("A") is None


class _Script:
    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.requests: list[dict[str, Any]] = []

    async def __call__(self, **kwargs: Any) -> Any:
        import litellm

        self.requests.append(kwargs)
        return await litellm.acompletion(**kwargs, mock_response=self.reply)


async def _play_llm(pairs: str, tmp_path: Path, reply: str) -> tuple[Path, _Script]:
    task = load_suite(pairs).tasks[0]
    settings = ServerSettings(suite=pairs, log_dir=tmp_path, run_label="llm-ppr")
    script = _Script(reply)
    async with Client(build_server(settings)) as client:
        started = outcome_of(
            await client.call_tool("start_episode", {"task_id": task.id, "agent_label": "llm"})
        )
        episode = Episode(
            client=client,
            episode_id=str(started.data["episode_id"]),
            task_id=task.id,
            opening=str(started.data["opening"]),
        )
        agent = PairLLMAgent(LLMAgentSettings(model="gpt-4o-mini", completion=script))
        await agent.run(episode)
        assert episode.ended
    (log,) = tmp_path.rglob("*.jsonl")
    return log, script


def _submitted(log: Path) -> str:
    (call,) = [e for e in read_log(log).events if e["type"] == "tool_call"]
    assert call["name"] == "submit_answer"
    return call["arguments"]["answer"]


async def test_the_llm_submits_its_boxed_letter(
    pairs: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    log, script = await _play_llm(pairs, tmp_path, "The user likes sequels. \\boxed{B}")
    assert _submitted(log) == "B"
    assert script.requests[0]["messages"][1]["content"].startswith("Given the user's")
    assert "tools" not in script.requests[0]
    (call,) = [e for e in read_log(log).events if e["type"] == "model_call"]
    assert call["output"]["content"] == "The user likes sequels. \\boxed{B}"
    assert call["input_messages"] == 2 and "tools" not in call


async def test_a_reply_without_a_boxed_letter_submits_an_invalid_answer_scoring_0(
    pairs: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    from taurec.evaluator.logs import Resolver, score_file

    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    log, _ = await _play_llm(pairs, tmp_path, "Probably A.")
    assert _submitted(log) == NO_ANSWER
    score = score_file(log, Resolver(suite=pairs))
    assert score.reward == 0.0 and score.metrics["valid"] == 0.0
