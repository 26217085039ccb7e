"""The "ppr" kind on the MCP server and in the Python environment, end to end: ranking
logs -> a mined pair suite -> episodes over MCP and in PairEnv -> the evaluator's scores,
with the same answers earning the same rewards on both paths."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client
from support.ppr import write_pair_suite

from taurec.evaluator.files import find_logs
from taurec.evaluator.logs import Resolver, score_file
from taurec.server.app import build_server
from taurec.server.ranking.ppr import PairEnv
from taurec.server.settings import ServerSettings
from taurec.tasks.ranking.pair import score_answer
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.reader import read_log

#: scripted answers, cycled over the suite's tasks: both letters, and two invalid ones
SCRIPT = ("A", "B", "b", "A", "maybe", "B", "")


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(write_pair_suite(tmp_path_factory.mktemp("ppr")))


def _server(pairs: str, log_dir: Path):
    return build_server(ServerSettings(suite=pairs, log_dir=log_dir, run_label="ppr"))


async def _start(client: Client, task_id: str) -> dict:
    started = await client.call_tool("start_episode", {"task_id": task_id, "agent_label": "s"})
    assert not started.is_error, started.content
    return dict(started.structured_content)


def test_the_mined_suite_is_a_ppr_suite_of_two_tasks_per_unsorted_rollout(pairs: str):
    suite = load_suite(pairs)
    # six ranking tasks with the positive at ranks 3, missing, 2, 1, 3, missing: five pairs
    assert suite.kind == "ppr" and len(suite.tasks) == 10
    assert sorted(t.direction for t in suite.tasks) == ["LESS"] * 5 + ["MORE"] * 5


async def test_the_server_offers_start_submit_answer_and_abort(pairs: str, tmp_path: Path):
    async with Client(_server(pairs, tmp_path)) as client:
        names = {t.name for t in (await client.list_tools()).tools}
    assert names == {"start_episode", "submit_answer", "abort_episode"}


async def test_the_opening_shows_both_titles_and_never_the_answer(pairs: str, tmp_path: Path):
    task = load_suite(pairs).tasks[0]
    async with Client(_server(pairs, tmp_path)) as client:
        started = await _start(client, task.id)
    assert set(started) == {"episode_id", "task_id", "trial", "opening", "max_turns"}
    opening = started["opening"]
    assert f"Item A: {task.item_a.title}\nItem B: {task.item_b.title}" in opening
    assert f"{task.direction} LIKELY" in opening and task.positive not in opening


async def test_an_answer_ends_the_episode_and_a_second_one_is_refused(pairs: str, tmp_path: Path):
    task = load_suite(pairs).tasks[0]
    async with Client(_server(pairs, tmp_path)) as client:
        episode_id = (await _start(client, task.id))["episode_id"]
        first = await client.call_tool("submit_answer", {"episode_id": episode_id, "answer": "C"})
        again = await client.call_tool("submit_answer", {"episode_id": episode_id, "answer": "A"})
    assert first.structured_content == {
        "valid": False,
        "message": "Invalid answer (answer: 'C' is not 'A' or 'B'). The episode is over "
        "(reward 0).",
        "episode_ended": True,
        "end_reason": "recommended",
    }
    assert again.is_error and "has ended (recommended)" in again.content[0].text
    (log,) = tmp_path.rglob("*.jsonl")
    parsed = read_log(log)
    assert parsed.header is not None and parsed.header.kind == "ppr"
    assert parsed.events[-1]["reason"] == "recommended"
    assert score_file(log, Resolver(suite=pairs)).reward == 0.0


async def test_an_answer_that_is_not_a_string_is_a_schema_error_and_leaves_it_open(
    pairs: str, tmp_path: Path
):
    task = load_suite(pairs).tasks[0]
    async with Client(_server(pairs, tmp_path)) as client:
        episode_id = (await _start(client, task.id))["episode_id"]
        bad = await client.call_tool("submit_answer", {"episode_id": episode_id, "answer": 1})
        good = await client.call_tool(
            "submit_answer", {"episode_id": episode_id, "answer": task.answer}
        )
    assert bad.is_error and not good.is_error
    (log,) = tmp_path.rglob("*.jsonl")
    assert score_file(log, Resolver(suite=pairs)).reward == 1.0


def test_the_env_needs_reset_and_refuses_other_tools_without_ending(pairs: str):
    env = PairEnv.from_suite(pairs)
    with pytest.raises(RuntimeError, match="reset"):
        env.step({"name": "submit_answer", "arguments": {"answer": "A"}})
    env.reset(env.suite.tasks[0])
    step = env.step({"name": "get_user_profile", "arguments": {}})
    assert step.is_error and not step.done and step.reward is None


@pytest.mark.parametrize("answer", [None, 3, ["A"], "A" * 1001])
def test_the_env_refuses_an_answer_the_mcp_schema_refuses_and_stays_open(pairs: str, answer):
    env = PairEnv.from_suite(pairs)
    env.reset(env.suite.tasks[0])  # type: ignore[union-attr]
    arguments = {} if answer is None else {"answer": answer}
    step = env.step({"name": "submit_answer", "arguments": arguments})
    assert step.is_error and not step.done and "needs answer" in step.observation
    assert env.step({"name": "submit_answer", "arguments": {"answer": "A"}}).done


async def test_the_same_answers_get_the_same_rewards_over_mcp_in_the_env_and_in_the_evaluator(
    pairs: str, tmp_path: Path
):
    tasks = load_suite(pairs).tasks
    answers = {t.id: SCRIPT[n % len(SCRIPT)] for n, t in enumerate(tasks)}
    async with Client(_server(pairs, tmp_path)) as client:
        for task in tasks:
            started = await _start(client, task.id)
            await client.call_tool(
                "submit_answer", {"episode_id": started["episode_id"], "answer": answers[task.id]}
            )
    scored = {
        s.task_id: s.reward
        for s in (score_file(p, Resolver(suite=pairs)) for p in find_logs([tmp_path]))
    }
    env = PairEnv.from_suite(pairs)
    in_env = {}
    for task in tasks:
        opening = env.reset(task)
        assert opening.startswith("Given the user's interaction history")
        step = env.step({"name": "submit_answer", "arguments": {"answer": answers[task.id]}})
        assert step.done
        in_env[task.id] = step.reward
    expected = {t.id: score_answer(t, answers[t.id]).reward for t in tasks}
    assert scored == in_env == expected
    assert 0.0 in expected.values() and 1.0 in expected.values()
