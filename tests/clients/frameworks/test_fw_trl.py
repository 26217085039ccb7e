"""TRL support without TRL (clients/frameworks/trl_rewards.py, grpo.py): the single-turn
ranking reward is the evaluator's score of each episode it logs, malformed completions
score -1, the dataset rows, AgenticRec's group advantages (by hand and as `evaluator
export --format grpo` computes them), and G rollouts on a VectorEnv. The rollout hook is
in test_fw_trl_rollout.py; one test imports TRL itself and runs only where it is installed."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import orjson
import pytest

from taurec.catalog.errors import DataError
from taurec.clients.envs import EnvHost, TaurecEnv, VectorEnv
from taurec.clients.frameworks.grpo import group_advantages, rollout_groups
from taurec.clients.frameworks.trl_rewards import (
    SINGLE_TURN_SYSTEM,
    completion_text,
    env_reward_func,
    make_reward_funcs,
    taurec_dataset,
)
from taurec.evaluator.cli.export import ranking_episodes
from taurec.evaluator.logs import score_file
from taurec.evaluator.ranking.export import grpo_groups
from taurec.evaluator.resolver import Resolver

TOP10 = "<answer>\\boxed{[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}</answer>"
PROFILE_CALL = '<tool_call>{"name": "get_user_profile", "arguments": {}}</tool_call>'


def _logs(log_dir: Path) -> list[Path]:
    """The episode logs under `log_dir` (run/task/trial-episode.jsonl)."""
    return sorted(log_dir.rglob("trial*.jsonl"))


def _evaluator(path: Path) -> tuple[str, float, str]:
    score = score_file(path, Resolver())
    return score.task_id, score.reward, score.end_reason


@pytest.fixture
def rewards(tmp_path):
    funcs = make_reward_funcs("ranking:builtin", log_dir=tmp_path / "logs")
    yield funcs
    funcs.close()


# --- single-turn ranking reward ---------------------------------------------------------


def test_ranking_rewards_are_the_evaluators_scores_of_the_logged_episodes(rewards, tmp_path):
    (reward,) = rewards
    tasks = ["rank_000", "rank_001", "rank_002", "rank_003"]
    completions = [
        [{"role": "assistant", "content": f"Thinking... {TOP10}"}],
        "<answer>\\boxed{[20, 19, 18, 17, 16, 15, 14, 13, 12, 11]}</answer>",
        [{"role": "assistant", "content": [{"type": "text", "text": TOP10}]}],
        "no answer at all",
    ]
    got = reward(prompts=[None] * 4, completions=completions, task_id=tasks, trainer_state=None)
    logged = {t: r for t, r, _ in map(_evaluator, _logs(tmp_path / "logs"))}
    assert logged == dict(zip(tasks, got, strict=True))
    assert got[0] > 0 and got[3] == -1.0  # the first ranks rank_000's positive 5th
    assert reward.__name__ == "ranking_reward"


@pytest.mark.parametrize(
    "completion",
    [
        "I would rank them by popularity.",  # no answer
        "<answer>\\boxed{[1, 2, 3, 4, 5, 6, 7, 8, 9]}</answer>",  # nine indices
        "<answer>\\boxed{[1, 1, 2, 3, 4, 5, 6, 7, 8, 9]}</answer>",  # a duplicate
        "<answer>\\boxed{[21, 2, 3, 4, 5, 6, 7, 8, 9, 10]}</answer>",  # not a candidate
        None,
        42,
        [{"role": "user", "content": TOP10}],  # no assistant message
        '<tool_call>{"name": "get_user_profile", "arguments": </tool_call>',  # broken call
    ],
)
def test_a_malformed_completion_scores_minus_one(rewards, completion):
    (reward,) = rewards
    assert reward(prompts=[None], completions=[completion], task_id=["rank_000"]) == [-1.0]


def test_tool_calls_without_an_answer_end_the_single_step_episode_as_agent_error(rewards, tmp_path):
    (reward,) = rewards
    message = {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"type": "function", "function": {"name": "get_user_profile"}}],
    }
    got = reward(
        prompts=[None] * 2, completions=[PROFILE_CALL, [message]], task_id=["rank_000"] * 2
    )
    assert got == [-1.0, -1.0]
    for path in _logs(tmp_path / "logs"):
        assert _evaluator(path) == ("rank_000", -1.0, "agent_error")
        events = [orjson.loads(line) for line in path.read_bytes().splitlines()]
        assert [e["name"] for e in events if e.get("type") == "tool_call"] == ["get_user_profile"]


def test_ranking_reward_needs_one_task_id_per_completion(rewards):
    (reward,) = rewards
    with pytest.raises(ValueError, match="task_id: expected the dataset's task_id column"):
        reward(prompts=[None], completions=[TOP10])
    with pytest.raises(ValueError, match="expected a list of 2 task ids"):
        reward(prompts=[None] * 2, completions=[TOP10] * 2, task_id=["rank_000"])


def test_single_turn_rewards_refuse_a_dialogue_suite():
    with pytest.raises(DataError, match="single-turn rewards are for ranking suites"):
        make_reward_funcs("builtin")


def test_completion_text_reads_strings_and_the_last_assistant_message():
    message = {"role": "assistant", "content": "b", "tool_calls": [{"function": {"name": "x"}}]}
    assert completion_text("a") == ("a", None)
    assert completion_text([{"role": "assistant", "content": "a"}, message]) == ("b", message)
    assert completion_text({"content": [{"text": "x"}, "y"]}) == ("xy", None)
    assert completion_text(3.5) == ("", None)


# --- rows and the env reward -------------------------------------------------------------


def test_single_turn_rows_hold_the_episode_opening_and_the_task_id():
    rows = taurec_dataset("ranking:builtin")
    assert len(rows) == 200 and set(rows.column_names) == {"prompt", "task_id"}
    with EnvHost("ranking:builtin") as host:
        opening = TaurecEnv(host).reset("rank_007")
    row = rows[7]
    assert row["task_id"] == "rank_007"
    assert row["prompt"] == [
        {"role": "system", "content": SINGLE_TURN_SYSTEM},
        {"role": "user", "content": opening},
    ]


def test_multi_turn_rows_are_task_ids_of_any_kind():
    rows = taurec_dataset("stream:builtin", multi_turn=True)
    assert rows[0]["prompt"] == rows[0]["task_id"] == "stream-variable-category-persona-002"
    assert set(rows["kind"]) == {"stream"}


def test_rows_are_plain_dicts_without_the_datasets_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "datasets", None)  # import datasets -> ImportError
    rows = taurec_dataset("builtin", multi_turn=True)
    assert isinstance(rows, list) and rows[0] == {
        "prompt": "t001",
        "task_id": "t001",
        "kind": "recommendation",
    }


def test_single_turn_rows_are_for_ranking_suites_only():
    with pytest.raises(DataError, match="single-turn rows are for ranking suites"):
        taurec_dataset("builtin")


def test_env_reward_func_passes_the_rollouts_rewards_on():
    assert env_reward_func(completions=["a", "b"], env_reward=[0.5, -1]) == [0.5, -1.0]
    with pytest.raises(ValueError, match="env_reward: expected the rollout's env_reward"):
        env_reward_func(completions=["a"])
    with pytest.raises(ValueError, match="expected 2 rewards, one per completion, got 1"):
        env_reward_func(completions=["a", "b"], env_reward=[0.5])


# --- group advantages --------------------------------------------------------------------


def test_group_advantages_are_reward_minus_the_group_mean_without_std():
    (group,) = group_advantages([[1.1, -0.5, 0.3, -1.0]])
    assert group.mean == pytest.approx(-0.025)
    assert group.advantages == pytest.approx([1.125, -0.475, 0.325, -0.975])
    assert not group.dropped


def test_a_group_is_dropped_only_when_every_reward_is_negative():
    kept, dropped = group_advantages([[0.0, -1.0], [-1.0, -0.5]])
    assert not kept.dropped and kept.advantages == pytest.approx([0.5, -0.5])
    assert dropped.dropped and dropped.advantages == pytest.approx([-0.25, 0.25])


@pytest.mark.parametrize(
    ("groups", "message"),
    [([[]], r"rewards_per_group\[0\]: rewards: expected a group"), ([1.0], "a list of groups")],
)
def test_bad_groups_are_refused_with_what_was_expected(groups, message):
    with pytest.raises(ValueError, match=message):
        group_advantages(groups)


class Rotating:
    """Ranks ten candidates starting one place later in each rollout (a copy per rollout)."""

    shifts = itertools.count()

    def reset(self) -> None:
        self.shift = next(Rotating.shifts)

    def act(self, observation: str) -> str:
        indices = [(i + self.shift) % 20 + 1 for i in range(10)]
        return f"<answer>\\boxed{{[{', '.join(map(str, indices))}]}}</answer>"


def test_rollout_groups_match_the_grpo_export_of_their_own_logs(tmp_path):
    Rotating.shifts = itertools.count()
    with VectorEnv("ranking:builtin", n=2, log_dir=tmp_path, label="g") as vec:
        group = rollout_groups(vec, "rank_000", Rotating(), G=4)
    assert group.task_id == "rank_000" and len(set(group.rewards)) == 4
    assert [_evaluator(p)[1] for p in group.logs] == group.rewards
    (exported,) = grpo_groups(ranking_episodes(group.logs, Resolver()))
    assert [r["advantage"] for r in exported["rollouts"]] == pytest.approx(group.advantages)
    assert exported["dropped"] == group.dropped and exported["mean_reward"] == group.mean
    (by_hand,) = group_advantages([group.rewards])
    assert by_hand.advantages == pytest.approx(group.advantages)


def test_rollout_groups_take_a_plain_function_and_mark_an_all_negative_group(tmp_path):
    with VectorEnv("ranking:builtin", n=3, log_dir=tmp_path) as vec:
        group = rollout_groups(vec, "rank_001", lambda observation: "no answer")
    assert group.rewards == [-1.0] * 3 and group.dropped and group.advantages == [0.0] * 3
    with VectorEnv("ranking:builtin", n=2) as vec, pytest.raises(ValueError, match="multiple"):
        rollout_groups(vec, "rank_001", Rotating(), G=3)


# --- TRL itself ---------------------------------------------------------------------------


def test_grpo_trainer_takes_these_reward_and_rollout_functions():
    trl = pytest.importorskip("trl", reason="TRL is not installed (it needs torch)")
    import inspect

    parameters = inspect.signature(trl.GRPOTrainer).parameters
    assert {"reward_funcs", "rollout_func"} <= set(parameters)
    source = inspect.getsource(trl.GRPOTrainer)
    assert '"prompt_ids", "completion_ids", "logprobs"' in source and "env_mask" in source
