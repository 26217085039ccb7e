"""The multi-turn rollout hook for TRL's GRPOTrainer (clients/frameworks/trl_rollout.py),
driven by fake generate functions, a fake tokenizer and a fake trainer, without TRL: the
dict TRL expects, token bookkeeping (model turns masked in, environment replies masked
out, each turn generated from exactly the tokens before it), rewards equal to the
evaluator's on the written logs, and episodes of every kind."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from taurec.catalog.errors import DataError
from taurec.clients.envs.scripted import ScriptedPolicy
from taurec.clients.frameworks.trl_rewards import env_reward_func
from taurec.clients.frameworks.trl_rollout import make_rollout_func
from taurec.evaluator.logs import score_file
from taurec.evaluator.resolver import Resolver

TOP10 = "<answer>\\boxed{[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}</answer>"
PROFILE_CALL = '<tool_call>{"name": "get_user_profile", "arguments": {}}</tool_call>'
END = "<|end|>"


class CharTokenizer:
    """One token per character, plus the special token END (the EOS); a chat template that
    writes `<|role|>content<|end|>\\n` per message and `<|assistant|>` to prompt a reply.
    With `forget_thinking`, earlier replies lose their <think> part (as some templates do)."""

    eos_token_id = 1_000_000

    def __init__(self, forget_thinking: bool = False) -> None:
        self.forget_thinking = forget_thinking

    def apply_chat_template(self, messages, tools=None, add_generation_prompt=False, tokenize=True):
        assert tokenize is False
        text = f"<|tools|>{json.dumps(tools)}{END}\n" if tools else ""
        for m in messages:
            content = m["content"]
            if self.forget_thinking and m["role"] == "assistant":
                content = re.sub(r"<think>.*?</think>", "", content, flags=re.S)
            text += f"<|{m['role']}|>{content}{END}\n"
        return text + ("<|assistant|>" if add_generation_prompt else "")

    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        assert add_special_tokens is False
        parts = text.split(END)
        ids: list[int] = []
        for n, part in enumerate(parts):
            ids += [ord(c) for c in part] + ([self.eos_token_id] if n < len(parts) - 1 else [])
        return ids

    def decode(self, ids: list[int], skip_special_tokens: bool = False) -> str:
        special = "" if skip_special_tokens else END
        return "".join(special if i == self.eos_token_id else chr(i) for i in ids)


def ranking_turns(context: str) -> str:
    """A ranking agent: the profile on its first turn, then the candidates in order."""
    return PROFILE_CALL if context.count("<|assistant|>") == 1 else TOP10


@pytest.fixture
def rollout(tmp_path):
    func = make_rollout_func(ranking_turns, tokenizer=CharTokenizer(), log_dir=tmp_path)
    yield func
    func.close()


def _spans(mask: list[int]) -> list[tuple[int, int]]:
    """(value, length) runs of a mask."""
    runs: list[tuple[int, int]] = []
    for value in mask:
        if runs and runs[-1][0] == value:
            runs[-1] = (value, runs[-1][1] + 1)
        else:
            runs.append((value, 1))
    return runs


def test_the_output_has_the_fields_trl_requires_one_entry_per_prompt(rollout):
    prompts = ["rank_000", "rank_000", "rank_001"]
    out = rollout(prompts, SimpleNamespace(processing_class=None))
    assert {"prompt_ids", "completion_ids", "logprobs", "env_mask", "env_reward"} <= set(out)
    assert out["task_id"] == prompts and out["logprobs"] is None  # text replies: no logprobs
    for key in ("prompt_ids", "completion_ids", "env_mask", "env_reward", "episode_log"):
        assert len(out[key]) == 3
    for ids, mask in zip(out["completion_ids"], out["env_mask"], strict=True):
        assert len(ids) == len(mask)
        assert [value for value, _ in _spans(mask)] == [1, 0, 1]  # call, result, answer


def test_model_turns_are_masked_in_and_the_environment_reply_masked_out(rollout):
    out = rollout(["rank_000"])
    tok = CharTokenizer()
    prompt, completion = tok.decode(out["prompt_ids"][0]), out["completion_ids"][0]
    assert prompt.startswith("<|system|>You are an helpful recommendation system assistant")
    assert "get_user_profile" in prompt and prompt.endswith("<|assistant|>")
    mask = out["env_mask"][0]
    model = tok.decode([t for t, m in zip(completion, mask, strict=True) if m])
    env = tok.decode([t for t, m in zip(completion, mask, strict=True) if not m])
    assert model == PROFILE_CALL + END + TOP10 + END
    assert env.startswith("\n<|user|>User profile") and env.endswith(f"{END}\n<|assistant|>")


def test_env_rewards_are_the_evaluators_scores_of_the_episode_logs(rollout):
    out = rollout(["rank_000", "rank_001", "rank_002"])
    for reward, log, reason in zip(
        out["env_reward"], out["episode_log"], out["end_reason"], strict=True
    ):
        score = score_file(Path(log), Resolver())
        assert (score.reward, score.end_reason) == (reward, reason)
    assert out["env_reward"][0] > 0  # rank_000's positive is the 5th candidate
    assert (
        env_reward_func(prompts=[], completions=out["completion_ids"], **out) == out["env_reward"]
    )


def test_each_model_turn_is_logged_as_a_model_call_naming_the_trained_model(rollout):
    class Trainer:  # what the rollout reads of GRPOTrainer: its model's checkpoint name
        class model:
            name_or_path = "org/tiny-policy"

    out = rollout(["rank_000"], Trainer())
    score = score_file(Path(out["episode_log"][0]), Resolver())
    assert score.agent_model == "org/tiny-policy"
    usage = score.model_usage["agent"]
    assert usage["calls"] == 2  # the profile call, then the answer
    assert usage["completion_tokens"] == len(PROFILE_CALL) + 1 + len(TOP10) + 1  # + EOS each


def test_sampled_ids_and_logprobs_are_kept_and_the_environment_gets_zero(tmp_path):
    tok = CharTokenizer()

    def sampler(context: str) -> dict[str, Any]:
        ids = [*tok.encode(ranking_turns(context), False), tok.eos_token_id]
        return {"completion_ids": ids, "logprobs": [-0.5] * len(ids)}

    with make_rollout_func(sampler, tokenizer=tok, log_dir=tmp_path) as func:
        out = func(["rank_000"])
    logprobs, mask = out["logprobs"][0], out["env_mask"][0]
    assert {lp for lp, m in zip(logprobs, mask, strict=True) if m} == {-0.5}
    assert {lp for lp, m in zip(logprobs, mask, strict=True) if not m} == {0.0}
    assert out["env_reward"][0] > 0


def test_the_trainers_vllm_generates_from_exactly_the_tokens_so_far(tmp_path):
    tok = CharTokenizer()
    seen: list[list[int]] = []

    class FakeVLLM:
        def generate(self, prompts, images, num_generations):
            assert images is None and num_generations == 1
            seen.extend(prompts)
            ids = [
                [*tok.encode(ranking_turns(tok.decode(p)), False), tok.eos_token_id]
                for p in prompts
            ]
            return prompts, ids, [[[-0.25]] * len(i) for i in ids], None

    trainer = SimpleNamespace(use_vllm=True, vllm_generation=FakeVLLM(), processing_class=tok)
    with make_rollout_func(log_dir=tmp_path) as func:
        out = func(["rank_000"], trainer)
    first, second = seen
    completion, mask = out["completion_ids"][0], out["env_mask"][0]
    model_turn = _spans(mask)[0][1]
    assert first == out["prompt_ids"][0]
    assert second == first + completion[: len(completion) - _spans(mask)[-1][1]]
    assert set(out["logprobs"][0][:model_turn]) == {-0.25}


def test_without_a_generate_the_trainer_must_use_vllm(tmp_path):
    with (
        make_rollout_func(tokenizer=CharTokenizer(), log_dir=tmp_path) as func,
        pytest.raises(DataError, match="GRPOConfig\\(use_vllm=True\\)"),
    ):
        func(["rank_000"], SimpleNamespace(use_vllm=False))


def test_a_prompt_must_be_a_task_id_of_the_suite(rollout):
    with pytest.raises(DataError, match="expected a task id of suite 'ranking:builtin'"):
        rollout([[{"role": "user", "content": "rank the candidates"}]])


def test_a_template_that_rewrites_earlier_turns_gets_the_observation_after_a_neutral_turn(
    tmp_path,
):
    tok = CharTokenizer(forget_thinking=True)

    def thinker(context: str) -> str:
        return "<think>hm</think>" + ranking_turns(context)

    with make_rollout_func(thinker, tokenizer=tok, log_dir=tmp_path) as func:
        out = func(["rank_000"])
    completion, mask = out["completion_ids"][0], out["env_mask"][0]
    env = tok.decode([t for t, m in zip(completion, mask, strict=True) if not m])
    assert env.startswith("<|user|>User profile") and env.endswith(f"{END}\n<|assistant|>")


def test_dialogue_episodes_play_with_the_contestant_prompt(tmp_path):
    def talker(context: str) -> str:
        if context.count("<|assistant|>") == 1:
            return "What are you in the mood for?"
        return '<tool_call>{"name": "recommend", "arguments": {"item_id": null}}</tool_call>'

    tok = CharTokenizer()
    with make_rollout_func(talker, suite="builtin", tokenizer=tok, log_dir=tmp_path) as func:
        out = func(["t001"])
    prompt = tok.decode(out["prompt_ids"][0])
    assert "recommendation agent in a taurec episode" in prompt and "send_message" in prompt
    score = score_file(Path(out["episode_log"][0]), Resolver())
    assert score.outcome == "abstain" and out["env_reward"] == [score.reward]
    assert [value for value, _ in _spans(out["env_mask"][0])] == [1, 0, 1]


def test_stream_episodes_play_to_the_end_with_the_generic_prompt(tmp_path):
    def streamer(context: str) -> str:
        observation = context.rsplit("<|user|>", 1)[-1].split(END, 1)[0]
        call = ScriptedPolicy("stream").act(observation)
        return f"<tool_call>{json.dumps(call)}</tool_call>"

    tok = CharTokenizer()
    with make_rollout_func(
        streamer, suite="stream:builtin", tokenizer=tok, log_dir=tmp_path, max_turns=200
    ) as func:
        task = func.host.suite.tasks[0].id
        out = func([task])
    assert tok.decode(out["prompt_ids"][0]).startswith("<|tools|>")
    assert "taurec stream episode" in tok.decode(out["prompt_ids"][0])
    score = score_file(Path(out["episode_log"][0]), Resolver())
    assert out["env_reward"] == [score.reward] and out["end_reason"] == [score.end_reason]
    assert score.end_reason != "agent_error"


def test_a_generate_answer_that_is_neither_text_nor_a_dict_is_refused(tmp_path):
    with (
        make_rollout_func(lambda context: 7, tokenizer=CharTokenizer(), log_dir=tmp_path) as func,
        pytest.raises(DataError, match="generate: expected the reply's text or a dict"),
    ):
        func(["rank_000"])


def test_a_generate_that_loses_its_provider_ends_the_batch_as_infra_errors(tmp_path):
    def down_on_the_second_turn(context: str) -> str:
        if context.count("<|assistant|>") == 1:
            return PROFILE_CALL
        raise ConnectionRefusedError("the inference server refused the connection")

    func = make_rollout_func(down_on_the_second_turn, tokenizer=CharTokenizer(), log_dir=tmp_path)
    with func, pytest.raises(ConnectionRefusedError):
        func(["rank_000", "rank_001"])
    scores = [score_file(path, Resolver()) for path in sorted(tmp_path.rglob("*.jsonl"))]
    assert [s.end_reason for s in scores] == ["infra_error", "infra_error"]
    for path in tmp_path.rglob("*.jsonl"):
        assert "ConnectionRefusedError: the inference server refused" in path.read_text()


def test_a_generate_that_raises_anything_else_ends_the_batch_as_agent_errors(tmp_path):
    def broken(context: str) -> str:
        raise KeyError("a bug in the caller's generate")

    func = make_rollout_func(broken, tokenizer=CharTokenizer(), log_dir=tmp_path)
    with func, pytest.raises(KeyError):
        func(["rank_000"])
    [path] = tmp_path.rglob("*.jsonl")
    assert score_file(path, Resolver()).end_reason == "agent_error"
    assert "KeyError" in path.read_text()


def test_rollouts_through_the_shipped_stand_in_are_scored_like_any_other(tmp_path):
    from support.loopback import serve_app

    from taurec.clients.frameworks.mock_llm import chat_app
    from taurec.clients.frameworks.trl_chat import ChatGenerate

    with serve_app(chat_app()) as url:
        generate = ChatGenerate(f"{url}/v1", "scripted-ranking")
        with make_rollout_func(generate, tokenizer=CharTokenizer(), log_dir=tmp_path) as func:
            out = func(["rank_000", "rank_001"])
    assert out["end_reason"] == ["recommended", "recommended"]
    assert out["logprobs"] is None  # a chat endpoint gives none
    for reward, log in zip(out["env_reward"], out["episode_log"], strict=True):
        assert score_file(Path(log), Resolver()).reward == reward
        calls = [json.loads(line) for line in Path(log).read_text().splitlines()]
        assert next(c["name"] for c in calls if c["type"] == "tool_call") == "get_user_profile"
