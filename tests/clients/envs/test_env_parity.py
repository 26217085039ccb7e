"""Every built-in task of every kind, played in the in-process environment with the
scripted policy: each step's reward at the end equals what `evaluator episodes` (the
command, in another process) computes from the same episode's log, and the logs are
normal taurec logs (chained, one per episode, scored without a problem)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from taurec.clients.agents.recommendation.oracle import ABSTAIN_MESSAGE, OracleAgent
from taurec.clients.envs import TaurecEnv, VectorEnv
from taurec.clients.envs.scripted import ScriptedPolicy

SUITES = ["ranking:builtin", "builtin", "stream:builtin"]


def _play(env: TaurecEnv, task_id: str, policy: ScriptedPolicy) -> tuple[float, Path]:
    obs = env.reset(task_id)
    policy.reset()
    done, reward, info = False, 0.0, {}
    while not done:
        result = env.step(policy.act(obs))
        assert result.reward == 0.0 or result.done  # a reward only at the end
        obs, reward, done, info = result
    return reward, info["log"]


def _play_oracle(env: TaurecEnv, task_id: str) -> tuple[float, Path]:
    """The oracle agent's calls (clients/agents/recommendation/oracle.py) as env actions."""
    oracle = OracleAgent(env.host.suite.spec)
    env.reset(task_id)
    item_id = oracle.answer(task_id)
    env.step({"name": "get_user_history", "arguments": {}})
    if item_id is None:
        result = env.step(
            {"name": "recommend", "arguments": {"item_id": None, "message": ABSTAIN_MESSAGE}}
        )
    else:
        item = env.step({"name": "get_item", "arguments": {"item_id": item_id}}).info["results"][0]
        env.step({"name": "check_availability", "arguments": {"item_id": item_id}})
        env.step({"name": "check_content_preference", "arguments": {"item_id": item_id}})
        arguments = {"item_id": item_id, "message": f"I recommend {item['data'].get('title')}."}
        if item["data"].get("sponsored"):
            arguments["disclose"] = ["sponsored"]
        result = env.step({"name": "recommend", "arguments": arguments})
    assert result.done
    return result.reward, result.info["log"]


def _evaluator_rewards(log_dir: Path, suite: str) -> dict[str, float]:
    out = subprocess.run(
        [
            str(Path(sys.executable).with_name("evaluator")),
            "episodes",
            str(log_dir),
            "--json",
            "--suite",
            suite,
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    rows = json.loads(out.stdout)
    return {str(Path(row["path"]).resolve()): float(row["reward"]) for row in rows}


@pytest.mark.parametrize("suite", SUITES)
def test_every_builtin_task_rewards_as_the_evaluator_scores_its_log(
    tmp_path: Path, suite: str
) -> None:
    with TaurecEnv(suite, log_dir=tmp_path) as env:
        policy = ScriptedPolicy(env.kind)
        played = {
            tid: _play_oracle(env, tid)
            if env.kind == "recommendation" and n % 2
            else _play(env, tid, policy)
            for n, tid in enumerate(env.task_ids)
        }
    scored = _evaluator_rewards(tmp_path, suite)
    assert len(scored) == len(played) == len(env.task_ids)
    for task_id, (reward, log) in played.items():
        assert scored[str(log.resolve())] == reward, task_id
    rewards = [reward for reward, _ in played.values()]
    assert len(set(rewards)) > 1  # not one constant


def test_vector_env_plays_g_trials_of_one_task_as_separate_episodes(tmp_path: Path) -> None:
    with VectorEnv("ranking:builtin", n=4, log_dir=tmp_path) as vec:
        task = vec.envs[0].task_ids[1]
        observations = vec.reset(task)
        policies = [ScriptedPolicy("ranking") for _ in observations]
        results = vec.step([p.act(o) for p, o in zip(policies, observations, strict=True)])
        assert not any(r.done for r in results)
        actions = [p.act(r.observation) for p, r in zip(policies, results, strict=True)]
        actions[2] = "no answer here"  # unreadable: submitted empty, scored -1
        results = vec.step(actions)
        assert all(r.done for r in results)
        assert [r.info["score"].trial for r in results] == [0, 1, 2, 3]
        assert results[2].reward == -1.0
        assert results[0].reward == results[1].reward == results[3].reward != -1.0
        again = vec.step([None] * 4)  # done episodes return their last result
        assert [r.reward for r in again] == [r.reward for r in results]
    scored = _evaluator_rewards(tmp_path, "ranking:builtin")
    assert sorted(scored.values()) == sorted(r.reward for r in results)
