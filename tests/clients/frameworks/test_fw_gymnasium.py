"""The Gymnasium adapter (clients/frameworks/gym_env.py): the registered ids play whole
episodes whose rewards are `evaluator score`'s, the env passes Gymnasium's checker, and
reset/step follow Gymnasium's API (seeding, options, truncation, bad actions)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

gym = pytest.importorskip("gymnasium", reason="the gymnasium extra is not installed")

from gymnasium import Wrapper  # noqa: E402
from gymnasium.utils import env_checker  # noqa: E402

from taurec.clients.envs.scripted import ScriptedPolicy  # noqa: E402
from taurec.clients.frameworks.gym_env import ENV_IDS, MAX_OBSERVATION, observation_of  # noqa: E402
from taurec.clients.frameworks.gym_text import UnicodeText, in_charset  # noqa: E402
from taurec.evaluator.logs import score_paths  # noqa: E402
from taurec.evaluator.resolver import Resolver  # noqa: E402

KINDS = {
    "taurec/Ranking-v0": "ranking",
    "taurec/Dialogue-v0": "recommendation",
    "taurec/Stream-v0": "stream",
}
PROFILE = {"name": "get_user_profile", "arguments": {}}


def _play(env: Any, policy: ScriptedPolicy, **reset: Any) -> tuple[list[tuple], dict[str, Any]]:
    """One whole episode: the (reward, terminated, truncated) of every step, the last info."""
    observation, _ = env.reset(**reset)
    policy.reset()
    steps: list[tuple] = []
    while True:
        observation, reward, terminated, truncated, info = env.step(policy.act(observation))
        assert observation in env.observation_space
        steps.append((reward, terminated, truncated))
        if terminated or truncated:
            return steps, info


def _evaluator_rewards(log_dir: Path) -> dict[str, float]:
    return {s.path: s.reward for s in score_paths([log_dir], Resolver(), workers=1)}


# --- registration ----------------------------------------------------------------------


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_each_id_is_registered_with_its_suite(env_id):
    assert gym.spec(env_id).kwargs == {"suite": ENV_IDS[env_id]}


def test_make_passes_keywords_to_the_environment(tmp_path):
    env = gym.make("taurec/Dialogue-v0", suite="ranking:builtin", log_dir=tmp_path, max_steps=5)
    try:
        assert (env.unwrapped.kind, env.unwrapped.taurec.max_steps) == ("ranking", 5)
        assert env.unwrapped.taurec.host.log_dir == tmp_path
    finally:
        env.close()


def test_the_module_prefixed_id_makes_the_env_in_a_fresh_interpreter():
    # Gymnasium 1.4 loads no plugins: a bare id is unknown until the module is imported,
    # and "module:id" imports it.
    code = (
        "import gymnasium\n"
        "try:\n"
        "    gymnasium.make('taurec/Ranking-v0')\n"
        "except gymnasium.error.Error:\n"
        "    print('bare id unknown')\n"
        "env = gymnasium.make('taurec.clients.frameworks.gym_env:taurec/Ranking-v0')\n"
        "obs, info = env.reset()\n"
        "print(info['kind'], info['task_id'])\n"
        "env.close()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split("\n")[:2] == ["bare id unknown", "ranking rank_000"]


# --- whole episodes --------------------------------------------------------------------


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_scripted_episodes_earn_the_evaluators_rewards(env_id, tmp_path):
    env = gym.make(env_id, log_dir=tmp_path)
    policy = ScriptedPolicy(KINDS[env_id])
    played: dict[str, float] = {}
    try:
        for _ in range(3):
            steps, info = _play(env, policy)
            assert all(s[0] == 0.0 and not s[1] for s in steps[:-1])
            assert steps[-1][1:] == (True, False)  # terminated, not truncated
            played[info["log"]] = steps[-1][0]
            assert json.loads(json.dumps(info))["reward"] == steps[-1][0]
    finally:
        env.close()
    assert len(played) == 3
    assert _evaluator_rewards(tmp_path) == played


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_reset_info_carries_the_episode_tools(env_id):
    env = gym.make(env_id)
    try:
        _, info = env.reset()
        names = [tool["function"]["name"] for tool in info["tools"]]
        assert names == [t["function"]["name"] for t in env.unwrapped.taurec.tool_schemas()]
        assert names and "start_episode" not in names
        assert (info["kind"], info["trial"], info["seed"]) == (KINDS[env_id], 0, None)
        json.dumps(info)
    finally:
        env.close()


def test_the_final_info_holds_the_score_as_json(tmp_path):
    env = gym.make("taurec/Ranking-v0", log_dir=tmp_path)
    try:
        _, info = _play(env, ScriptedPolicy("ranking"))
    finally:
        env.close()
    decoded = json.loads(json.dumps(info))
    assert decoded["end_reason"] == "recommended"
    assert decoded["metrics"]["reward"] == decoded["reward"]
    assert isinstance(decoded["passed"], bool) and Path(decoded["log"]).is_file()
    assert decoded["results"][0]["name"] == "submit_ranking"


# --- truncation ------------------------------------------------------------------------


def test_the_step_limit_truncates_and_scores_the_episode(tmp_path):
    env = gym.make("taurec/Ranking-v0", log_dir=tmp_path, max_steps=3)
    try:
        env.reset()
        steps = [env.step(PROFILE) for _ in range(3)]
    finally:
        env.close()
    assert [(s[2], s[3]) for s in steps] == [(False, False), (False, False), (False, True)]
    info = steps[-1][4]
    assert info["end_reason"] == "agent_error"
    assert _evaluator_rewards(tmp_path) == {info["log"]: steps[-1][1]}


def test_an_episode_ending_on_its_last_allowed_step_is_terminated_not_truncated(tmp_path):
    env = gym.make("taurec/Ranking-v0", log_dir=tmp_path, max_steps=2)
    try:
        steps, info = _play(env, ScriptedPolicy("ranking"))
    finally:
        env.close()
    assert [s[1:] for s in steps] == [(False, False), (True, False)]
    assert info["end_reason"] == "recommended"


# --- actions ---------------------------------------------------------------------------


def test_an_action_of_another_type_is_a_type_error_and_costs_no_step():
    env = gym.make("taurec/Ranking-v0")
    try:
        env.reset()
        with pytest.raises(TypeError, match=r"action: expected the model's text .* got int"):
            env.step(42)
        assert env.step(PROFILE)[4]["step"] == 1
    finally:
        env.close()


def test_text_that_cannot_be_read_is_an_observation_saying_why():
    env = gym.make("taurec/Stream-v0")
    try:
        env.reset()
        observation, reward, terminated, truncated, info = env.step("I like the first one.")
    finally:
        env.close()
    assert observation == f"Error: {info['unreadable']}" and "tool" in info["unreadable"]
    assert (reward, terminated, truncated, info["results"]) == (0.0, False, False, [])


def test_an_assistant_message_acts_with_its_tool_calls():
    function = {"name": "get_user_profile", "arguments": "{}"}
    call = {"id": "c1", "type": "function", "function": function}
    env = gym.make("taurec/Ranking-v0")
    try:
        env.reset()
        *_, info = env.step({"role": "assistant", "content": None, "tool_calls": [call]})
        assert [r["name"] for r in info["results"]] == ["get_user_profile"]
        with pytest.raises(ValueError, match="action: a message must be the assistant's"):
            env.step({"role": "user", "content": "hi"})
    finally:
        env.close()


def test_a_hermes_tool_call_in_text_is_a_call():
    text = '<tool_call>{"name": "get_user_profile", "arguments": {}}</tool_call>'
    env = gym.make("taurec/Ranking-v0")
    try:
        env.reset()
        *_, info = env.step(text)
    finally:
        env.close()
    assert [(r["name"], r["is_error"]) for r in info["results"]] == [("get_user_profile", False)]


# --- reset: task choice, seeds and options ----------------------------------------------


def _task_ids(env: Any, seed: int | None, n: int = 3) -> list[tuple[str, Any, str]]:
    chosen = []
    for i in range(n):
        observation, info = env.reset(seed=seed if i == 0 else None)
        chosen.append((info["task_id"], info["seed"], observation))
    return chosen


def test_unseeded_resets_cycle_through_the_suite():
    env = gym.make("taurec/Dialogue-v0")
    try:
        ids = env.unwrapped.taurec.task_ids
        assert [c[0] for c in _task_ids(env, None)] == ids[:3]
    finally:
        env.close()


def test_a_seed_reproduces_the_tasks_and_episode_seeds_drawn():
    first, second, other = (gym.make("taurec/Dialogue-v0") for _ in range(3))
    try:
        drawn = _task_ids(first, 7)
        assert _task_ids(second, 7) == drawn
        other_ids = [c[0] for c in _task_ids(other, 8)]
        assert len({tuple(other_ids), tuple(c[0] for c in drawn)}) == 2
        assert all(seed is not None for _, seed, _ in drawn)
    finally:
        for env in (first, second, other):
            env.close()


def test_options_choose_the_task_and_trial(tmp_path):
    env = gym.make("taurec/Stream-v0", log_dir=tmp_path)
    try:
        task_id = env.unwrapped.taurec.task_ids[5]
        _, info = env.reset(seed=1, options={"task_id": task_id, "trial": 4})
        assert (info["task_id"], info["trial"]) == (task_id, 4)
        assert env.unwrapped.taurec.log.name.startswith("trial4-")
    finally:
        env.close()


@pytest.mark.parametrize(
    ("options", "error", "says"),
    [
        ({"task": "t001"}, ValueError, "options: unknown task; expected task_id and/or trial"),
        ({"task_id": "no-such-task"}, ValueError, "task 'no-such-task' is not in suite"),
        ({"task_id": 3}, TypeError, r"options\['task_id'\]: expected a task id"),
        ({"trial": -1}, ValueError, r"options\['trial'\]: expected a whole number"),
    ],
)
def test_bad_options_say_what_was_expected(options, error, says):
    env = gym.make("taurec/Dialogue-v0")
    try:
        with pytest.raises(error, match=says):
            env.reset(options=options)
    finally:
        env.close()


# --- Gymnasium's checker -----------------------------------------------------------------


class _WithoutLog(Wrapper):
    def step(self, action: Any) -> Any:
        observation, reward, terminated, truncated, info = self.env.step(action)
        info.pop("log", None)
        return observation, reward, terminated, truncated, info


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_gymnasiums_env_checker_passes(env_id, monkeypatch):
    # check_env plays one step twice from the same seed and wants equal infos. A random
    # text ends a ranking episode (an unreadable answer), and the final info names the
    # episode's log, whose path holds the trial and the server's unguessable episode id:
    # two equal episodes never share it. The step check therefore compares all but it.
    original = env_checker.check_step_determinism
    monkeypatch.setattr(
        env_checker,
        "check_step_determinism",
        lambda env, seed=123: original(_WithoutLog(env), seed),
    )
    env = gym.make(env_id)
    try:
        env_checker.check_env(env.unwrapped)
    finally:
        env.close()


def test_the_final_info_differs_between_equal_episodes_only_in_the_log_path():
    env = gym.make("taurec/Ranking-v0").unwrapped
    try:
        env.reset(seed=3)
        first = env.step("no answer")
        env.reset(seed=3)
        second = env.step("no answer")
    finally:
        env.close()
    assert first[:4] == second[:4] and first[3] is False and first[2] is True
    assert [k for k in first[4] if first[4][k] != second[4][k]] == ["log"]


# --- the text space ----------------------------------------------------------------------


def test_the_space_holds_text_of_every_script_and_no_control_characters():
    space = UnicodeText(100)
    assert "Amélie: 東京の夜 🎬\n\tСказка — «مرحبا»\r" in space
    assert "a\x00b" not in space and "a\ue000b" not in space and "x" * 101 not in space
    assert len(repr(space)) < 100 and space == UnicodeText(100)


def test_an_observation_shows_characters_outside_the_charset_as_replacement_characters():
    assert in_charset("a\x00b\x7fc\ud800d") == "a\ufffdb\ufffdc\ufffdd"
    long = observation_of("é" * (MAX_OBSERVATION + 10))
    assert len(long) == MAX_OBSERVATION and long.endswith("[observation cut]")
    assert long in UnicodeText(MAX_OBSERVATION)


def test_a_sampled_action_is_in_the_action_space_and_reproducible():
    a, b = UnicodeText(1000, seed=5), UnicodeText(1000, seed=5)
    sample = a.sample()
    assert sample == b.sample() and sample in a


def test_gymnasiums_own_vector_env_steps_text_envs():
    envs = gym.make_vec("taurec/Ranking-v0", num_envs=2, vectorization_mode="sync")
    try:
        observations, _ = envs.reset(seed=0)
        _, rewards, terminated, truncated, _ = envs.step(["no answer", PROFILE])
    finally:
        envs.close()
    assert all(o in envs.single_observation_space for o in observations)
    assert rewards.tolist() == [-1.0, 0.0]
    assert (terminated.tolist(), truncated.tolist()) == ([True, False], [False, False])


def test_a_model_call_that_loses_its_provider_ends_the_episode_as_infra_error(tmp_path):
    env = gym.make("taurec/Ranking-v0", log_dir=tmp_path)
    env.reset(seed=0)
    try:
        raise ConnectionRefusedError("the model server refused the connection")
    except ConnectionRefusedError as down:
        assert env.unwrapped.end_on_error(down) == "infra_error"
    env.close()
    (score,) = score_paths([tmp_path], Resolver(suite="ranking:builtin"))
    assert score.infra_error and score.end_reason == "infra_error"
