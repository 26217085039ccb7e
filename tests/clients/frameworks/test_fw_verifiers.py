"""taurec as a verifiers environment: rollouts played through verifiers' own evaluate
(and `vf-eval` on the command line) against a chat-completions stand-in on loopback are
taurec episodes, and each reward is the evaluator's score of the episode's own log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

vf = pytest.importorskip("verifiers", reason="the verifiers extra is not installed")

from openai import AsyncOpenAI  # noqa: E402 (after the skip: verifiers brings it)
from support.hang_guard import HANG_GUARD_S  # noqa: E402
from support.http_server import free_port  # noqa: E402
from support.loopback import serve_app  # noqa: E402

from taurec.catalog.errors import DataError  # noqa: E402
from taurec.clients.frameworks.mock_llm import MALFORMED, chat_app  # noqa: E402
from taurec.clients.frameworks.verifiers_env import load_environment  # noqa: E402
from taurec.clients.frameworks.verifiers_rollout import TaurecVerifiersEnv  # noqa: E402
from taurec.evaluator.aggregate import aggregate  # noqa: E402
from taurec.evaluator.logs import score_file, score_paths  # noqa: E402
from taurec.evaluator.resolver import Resolver  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
ENVIRONMENTS = ROOT / "environments"
VF_EVAL = Path(sys.executable).with_name("vf-eval")


@pytest.fixture(scope="module")
def standin() -> Any:
    app = chat_app()
    with serve_app(app) as url:
        app.state.url = f"{url}/v1"
        yield app


@pytest.fixture
def ranking(tmp_path: Path) -> Any:
    env = load_environment("ranking", log_dir=tmp_path)
    yield env
    env.close()


async def evaluate(env: TaurecVerifiersEnv, standin: Any, model: str, n: int, r: int) -> list:
    client = vf.OpenAIChatCompletionsClient(AsyncOpenAI(base_url=standin.state.url, api_key="none"))
    results = await env.evaluate(
        client=client,
        model=model,
        num_examples=n,
        rollouts_per_example=r,
        on_progress=lambda *a, **k: None,
    )
    return list(results["outputs"])


def evaluator_reward(output: dict[str, Any], suite: str) -> float:
    return score_file(Path(output["info"]["taurec"]["log"]), Resolver(suite=suite)).reward


def logged_opening(log: str) -> str:
    for line in Path(log).read_text().splitlines():
        record = json.loads(line)
        if record["type"] == "user_message":
            return str(record["text"])
    raise AssertionError(f"no user message in {log}")


async def test_ranking_rewards_are_the_evaluator_scores_of_the_logs(ranking, standin, tmp_path):
    outputs = await evaluate(ranking, standin, "scripted-ranking", n=2, r=2)
    assert len(outputs) == 4
    logs = {o["info"]["taurec"]["log"] for o in outputs}
    assert len(logs) == 4 and all(Path(log).parent.parent.parent == tmp_path for log in logs)
    for output in outputs:
        assert output["error"] is None
        assert output["reward"] == evaluator_reward(output, "ranking:builtin")
        assert output["reward"] == output["info"]["taurec"]["reward"]
    rewards = {o["info"]["taurec"]["task_id"]: o["reward"] for o in outputs}
    assert len(set(rewards.values())) == 2  # two tasks, scored apart
    assert sorted(o["info"]["taurec"]["trial"] for o in outputs) == [0, 0, 1, 1]


async def test_each_completion_is_logged_as_a_model_call_and_the_header_names_the_model(
    ranking, standin
):
    [output] = await evaluate(ranking, standin, "scripted-ranking", n=1, r=1)
    records = [
        json.loads(line) for line in Path(output["info"]["taurec"]["log"]).read_text().splitlines()
    ]
    assert records[0]["agent"]["model"] == "scripted-ranking"
    calls = [r for r in records if r["type"] == "model_call"]
    replies = [m for m in output["completion"] if m["role"] == "assistant"]
    assert len(calls) == len(replies) == 2
    assert all(c["model"] == "scripted-ranking" for c in calls)
    assert calls[0]["usage"] == {"prompt_tokens": 10, "completion_tokens": 5}
    assert score_file(Path(output["info"]["taurec"]["log"]), Resolver()).model_usage


async def test_a_malformed_ranking_reply_scores_minus_one(ranking, standin):
    outputs = await evaluate(ranking, standin, MALFORMED, n=2, r=1)
    assert [o["reward"] for o in outputs] == [-1.0, -1.0]
    assert [evaluator_reward(o, "ranking:builtin") for o in outputs] == [-1.0, -1.0]
    assert all(o["info"]["taurec"]["metrics"]["valid"] == 0.0 for o in outputs)


async def test_the_prompt_is_the_episodes_opening_and_taurecs_tools_are_offered(ranking, standin):
    before = len(standin.state.requests)
    [output] = await evaluate(ranking, standin, "scripted-ranking", n=1, r=1)
    first = standin.state.requests[before]
    assert [m["role"] for m in first["messages"]] == ["user"]  # the opening says it all
    opening = first["messages"][0]["content"]
    assert opening == logged_opening(output["info"]["taurec"]["log"])
    assert output["prompt"][-1]["content"] == opening
    offered = [t["function"]["name"] for t in first["tools"]]
    assert offered == [t.name for t in ranking.tool_defs]
    assert "get_user_profile" in offered and "submit_ranking" in offered


async def test_tool_calls_are_answered_with_tool_messages_and_the_end_with_the_last(
    ranking, standin
):
    [output] = await evaluate(ranking, standin, "scripted-ranking", n=1, r=1)
    completion = output["completion"]
    assert [m["role"] for m in completion] == ["assistant", "tool", "assistant", "user"]
    call = json.loads(completion[0]["tool_calls"][0])
    assert call["name"] == "get_user_profile"
    assert completion[1]["tool_call_id"] == call["id"]
    assert completion[1]["content"].startswith("User profile")
    assert "episode is over" in completion[3]["content"]
    assert output["stop_condition"] == "has_final_env_response"


async def test_a_reply_left_by_verifiers_turn_limit_is_still_taken(ranking, standin):
    ranking.set_kwargs(max_turns=1)
    [answer] = await evaluate(ranking, standin, MALFORMED, n=1, r=1)
    assert answer["stop_condition"] == "max_turns_reached"
    assert answer["info"]["taurec"]["end_reason"] == "recommended"  # the answer counted
    assert answer["reward"] == -1.0 == evaluator_reward(answer, "ranking:builtin")
    assert answer["completion"][-1]["role"] == "user"  # what the episode said to it


async def test_an_episode_verifiers_stops_early_is_ended_as_an_agent_error_and_scored(
    ranking, standin
):
    ranking.set_kwargs(max_turns=1)
    [output] = await evaluate(ranking, standin, "scripted-ranking", n=1, r=1)
    record = output["info"]["taurec"]
    assert record["steps"] == 1 and record["end_reason"] == "agent_error"
    assert output["reward"] == evaluator_reward(output, "ranking:builtin")


async def test_a_dialogue_begins_with_the_servers_contestant_prompt(standin, tmp_path):
    env = load_environment("dialogue", log_dir=tmp_path)
    try:
        before = len(standin.state.requests)
        outputs = await evaluate(env, standin, "scripted-recommendation", n=2, r=1)
    finally:
        env.close()
    first = standin.state.requests[before]["messages"]
    assert [m["role"] for m in first] == ["system", "user"]
    assert "How this harness runs the episode" in first[0]["content"]
    for output in outputs:
        assert output["error"] is None
        assert output["info"]["taurec"]["end_reason"] == "recommended"
        assert output["prompt"][-1]["content"] == logged_opening(output["info"]["taurec"]["log"])
        assert output["reward"] == evaluator_reward(output, "builtin")
    roles = [m["role"] for m in outputs[0]["completion"]]
    assert roles[:2] == ["assistant", "user"]  # plain text went to the simulated user


async def test_a_given_system_prompt_replaces_the_servers(standin, tmp_path):
    env = load_environment("dialogue", log_dir=tmp_path, system_prompt="Be brief.")
    try:
        before = len(standin.state.requests)
        await evaluate(env, standin, "scripted-recommendation", n=1, r=1)
    finally:
        env.close()
    first = standin.state.requests[before]["messages"]
    assert first[0] == {"role": "system", "content": "Be brief."}
    assert [m["role"] for m in first] == ["system", "user"]


async def test_stream_rewards_are_the_evaluator_scores_of_the_logs(standin, tmp_path):
    env = load_environment("stream", log_dir=tmp_path)
    try:
        [output] = await evaluate(env, standin, "scripted-stream", n=1, r=1)
    finally:
        env.close()
    assert output["error"] is None and output["info"]["taurec"]["end_reason"] == "recommended"
    assert output["reward"] == evaluator_reward(output, "stream:builtin")


async def test_a_provider_that_cannot_be_reached_is_an_infra_error_with_its_cause(ranking):
    down = AsyncOpenAI(base_url=f"http://127.0.0.1:{free_port()}/v1", api_key="x", max_retries=0)
    results = await ranking.evaluate(
        client=vf.OpenAIChatCompletionsClient(down),
        model="any",
        num_examples=2,
        on_progress=lambda *a, **k: None,
    )
    for output in results["outputs"]:
        assert output["info"]["taurec"].get("end_reason") == "infra_error", output["error"]
        log = Path(output["info"]["taurec"]["log"])
        end = json.loads(log.read_text().splitlines()[-1])
        assert "APIConnectionError: Connection error." in end["detail"]
        assert score_file(log, Resolver(suite="ranking:builtin")).infra_error


def test_the_dataset_has_one_row_per_task_of_the_suite(ranking):
    rows = ranking.get_eval_dataset()
    ids = [row["info"]["task_id"] for row in rows]
    assert ids == [task.id for task in ranking.host.suite.tasks]


def test_an_unknown_kind_is_refused_naming_the_kinds():
    with pytest.raises(
        ValueError, match=r"kind: expected one of ranking, dialogue, stream; got 'chess'"
    ):
        load_environment("chess")


def test_a_suite_of_another_kind_is_refused_naming_the_right_one():
    with pytest.raises(
        DataError, match=r"holds recommendation tasks; kind 'ranking'.*'ranking:builtin'"
    ):
        load_environment("ranking", suite="builtin")


def test_an_unknown_setting_is_refused_naming_the_settings():
    with pytest.raises(ValueError, match=r"unknown setting\(s\) patiense; expected .*patience"):
        load_environment("ranking", patiense=3)


async def test_a_row_naming_no_task_of_the_suite_fails_its_rollout_saying_so(ranking, standin):
    client = vf.OpenAIChatCompletionsClient(AsyncOpenAI(base_url=standin.state.url, api_key="none"))
    row = {"prompt": [{"role": "user", "content": "?"}], "info": {"task_id": "nope"}}
    results = await ranking.generate(
        [{**row, "example_id": 0}],
        client=client,
        model="scripted-ranking",
        on_progress=lambda *a, **k: None,
    )
    [output] = results["outputs"]
    assert "task 'nope' did not start" in str(output["error"])
    assert output["reward"] == 0.0 and output["completion"] == []


@pytest.mark.parametrize(
    ("env_id", "kind"),
    [
        ("taurec-ranking", "ranking"),
        ("taurec-dialogue", "recommendation"),
        ("taurec-stream", "stream"),
    ],
)
def test_verifiers_finds_each_environment_id(env_id, kind, monkeypatch):
    monkeypatch.syspath_prepend(str(ENVIRONMENTS))
    env = vf.load_environment(env_id)
    try:
        assert isinstance(env, TaurecVerifiersEnv)
        assert env.host.kind == kind and env.env_id == env_id
    finally:
        env.close()


@pytest.mark.slow
def test_vf_eval_on_the_command_line_scores_like_the_evaluator(standin, tmp_path):
    logs, out = tmp_path / "logs", tmp_path / "out"
    command = [str(VF_EVAL), "taurec-ranking", "-m", "scripted-ranking"]
    command += ["-b", standin.state.url, "-k", "TAUREC_STANDIN_KEY", "-n", "2", "-r", "2"]
    command += ["-a", json.dumps({"log_dir": str(logs)}), "-s", "-o", str(out), "-d"]
    env = dict(os.environ, PYTHONPATH=str(ENVIRONMENTS), TAUREC_STANDIN_KEY="none")
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    done = subprocess.run(
        command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=HANG_GUARD_S
    )
    assert done.returncode == 0, done.stderr[-2000:]
    [results] = list(out.rglob("results.jsonl"))
    outputs = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(outputs) == 4
    for output in outputs:
        assert Path(output["info"]["taurec"]["log"]).is_relative_to(logs)
        assert output["reward"] == evaluator_reward(output, "ranking:builtin")


@pytest.mark.slow
def test_vf_eval_without_a_network_records_infrastructure_errors(tmp_path):
    logs = tmp_path / "logs"
    command = [str(VF_EVAL), "taurec-ranking", "-m", "any", "-n", "2", "-r", "1", "-d"]
    command += ["-b", f"http://127.0.0.1:{free_port()}/v1", "-k", "TAUREC_STANDIN_KEY"]
    command += ["-a", json.dumps({"log_dir": str(logs)}), "-o", str(tmp_path / "out")]
    env = dict(os.environ, PYTHONPATH=str(ENVIRONMENTS), TAUREC_STANDIN_KEY="none")
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    subprocess.run(command, env=env, cwd=tmp_path, capture_output=True, timeout=HANG_GUARD_S)
    scores = score_paths([logs], Resolver(suite="ranking:builtin"))
    assert [s.end_reason for s in scores] == ["infra_error", "infra_error"]
    (group,) = aggregate(scores)
    assert group["infra_errors"] == 2
