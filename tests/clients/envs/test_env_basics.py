"""TaurecEnv's contract besides rewards: what it refuses, how it ends an episode the
trainer leaves open or whose model call failed, where its logs go, and how text becomes
actions per kind."""

from __future__ import annotations

from pathlib import Path

import httpx
import openai
import pytest

from taurec.catalog.errors import DataError
from taurec.clients.envs import EnvHost, TaurecEnv
from taurec.clients.envs.actions import Calls, Say, Unreadable, action_of
from taurec.evaluator.logs import Resolver, score_file


@pytest.fixture(scope="module")
def ranking_host(tmp_path_factory: pytest.TempPathFactory):
    with EnvHost("ranking:builtin", log_dir=tmp_path_factory.mktemp("logs")) as host:
        yield host


def test_step_before_reset_and_after_the_end_are_refused(ranking_host: EnvHost) -> None:
    env = TaurecEnv(ranking_host)
    with pytest.raises(RuntimeError, match=r"reset\(task\) before step"):
        env.step({"name": "get_user_profile", "arguments": {}})
    env.reset()
    assert env.step("garbage").done
    with pytest.raises(RuntimeError, match="has ended; call reset"):
        env.step("garbage")


def test_an_unknown_task_is_one_line_naming_the_suite(ranking_host: EnvHost) -> None:
    with pytest.raises(DataError, match=r"task 'nope' is not in suite .*expected one of"):
        TaurecEnv(ranking_host).reset("nope")


def test_the_step_limit_ends_the_episode_as_an_agent_error(ranking_host: EnvHost) -> None:
    env = TaurecEnv(ranking_host, max_steps=2)
    env.reset()
    first = env.step({"name": "no_such_tool", "arguments": {}})
    assert not first.done and first.observation.startswith("Error: ")
    last = env.step({"name": "get_user_profile", "arguments": {}})
    assert last.done and last.info["end_reason"] == "agent_error"
    assert "step limit (2)" in last.info["log"].read_text()


def test_reset_ends_the_open_episode_and_keeps_its_log(ranking_host: EnvHost) -> None:
    env = TaurecEnv(ranking_host)
    env.reset()
    first_log = env.log
    env.reset()
    assert first_log is not None and '"type":"end"' in first_log.read_text().splitlines()[-1]
    assert "reset before the episode ended" in first_log.read_text()
    assert env.log != first_log


def test_an_outage_of_the_models_provider_ends_the_episode_as_infra_error(
    ranking_host: EnvHost,
) -> None:
    env = TaurecEnv(ranking_host)
    env.reset()
    down = openai.APIConnectionError(request=httpx.Request("POST", "http://127.0.0.1:9/v1"))
    assert env.end_on_error(down) == "infra_error"
    assert env.log is not None
    score = score_file(env.log, Resolver(suite="ranking:builtin"))
    assert score.infra_error and score.end_reason == "infra_error"
    assert "APIConnectionError: Connection error." in env.log.read_text()
    assert env.end_on_error(down) is None  # nothing is open any more


def test_another_failure_of_the_loop_ends_the_episode_as_agent_error(
    ranking_host: EnvHost,
) -> None:
    env = TaurecEnv(ranking_host)
    env.reset()
    assert env.end_on_error(ValueError("no reply could be parsed")) == "agent_error"
    assert env.log is not None
    assert "loop driving the episode stopped: ValueError" in env.log.read_text()


def test_a_model_call_logged_in_one_line_reaches_the_log_before_the_step(
    ranking_host: EnvHost,
) -> None:
    env = TaurecEnv(ranking_host)
    env.reset(agent={"model": "my-model"})
    messages = [{"role": "user", "content": "rank these"}]
    env.log_model_call(model="my-model", messages=messages, output={"role": "assistant"})
    env.step({"name": "get_user_profile", "arguments": {}})
    assert env.log is not None
    types = [line.split('"type":"')[1].split('"')[0] for line in env.log.read_text().splitlines()]
    assert types[types.index("model_call") + 1] == "tool_call"
    assert '"model":"my-model"' in env.log.read_text().splitlines()[0]  # the header names it
    env.close()


def test_harness_tools_and_bad_shapes_are_unreadable_actions(ranking_host: EnvHost) -> None:
    env = TaurecEnv(ranking_host)
    env.reset()
    for action in ({"name": "start_episode", "arguments": {}}, 42, [], [{"arguments": {}}]):
        result = env.step(action)
        assert not result.done and result.observation.startswith("Error: "), action
    assert env.steps == 4


def test_episode_id_in_an_action_is_ignored(ranking_host: EnvHost) -> None:
    env = TaurecEnv(ranking_host)
    env.reset()
    result = env.step({"name": "get_user_profile", "arguments": {"episode_id": "someone-else"}})
    assert not result.info["results"][0]["is_error"]


def test_logs_stay_in_the_given_folder_and_temporary_ones_go(tmp_path: Path) -> None:
    kept = TaurecEnv("ranking:builtin", log_dir=tmp_path)
    kept.reset()
    kept.step("garbage")
    kept.close()
    assert len(list(tmp_path.rglob("*.jsonl"))) == 1
    temporary = TaurecEnv("ranking:builtin")
    temporary.reset()
    folder = temporary.host.log_dir
    assert folder.is_dir()
    temporary.close()
    assert not folder.exists()
    with pytest.raises(RuntimeError, match="closed"):
        temporary.reset()


def test_text_actions_per_kind() -> None:
    hermes = '<tool_call>{"name": "search_catalog", "arguments": {"query": "noir"}}</tool_call>'
    assert action_of(hermes, "recommendation", None) == Calls(
        (("search_catalog", {"query": "noir"}),)
    )
    assert action_of("Any favourite actor?", "recommendation", None) == Say("Any favourite actor?")
    assert isinstance(action_of("   ", "recommendation", None), Unreadable)
    assert isinstance(action_of("I pick the first", "stream", None), Unreadable)
    message = {"tool_calls": [{"function": {"name": "next_episode", "arguments": "{}"}}]}
    assert action_of("", "stream", None, message) == Calls((("next_episode", {}),))
    broken = '<tool_call>{"name": "search_catalog", "arguments": </tool_call>'
    assert "not JSON" in action_of(broken, "recommendation", None).reason  # type: ignore[union-attr]


def test_the_tool_schemas_leave_out_episode_id_and_the_harness_tools() -> None:
    with TaurecEnv("stream:builtin") as env:
        names = [t["function"]["name"] for t in env.tool_schemas()]
        assert "recommend_item" in names and "start_stream" not in names
        assert "start_episode" not in names and "abort_episode" not in names
        for tool in env.tool_schemas():
            assert "episode_id" not in tool["function"]["parameters"]["properties"]
