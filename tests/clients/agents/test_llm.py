"""The LLM contestant against the real in-process server, with every LLM call mocked."""

from __future__ import annotations

import os

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # litellm must not fetch prices

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import litellm
import pytest
from mcp import Client

from taurec.clients.agents.base import AgentInfraError, AgentSettings, Episode, outcome_of
from taurec.clients.agents.llm import (
    ERROR_PREFIX,
    LLMAgent,
    LLMAgentSettings,
    make_llm_agent,
)
from taurec.clients.agents.registry import AgentUnavailable
from taurec.evaluator.logs import Resolver, score_paths
from taurec.server.app import build_server
from taurec.server.settings import ServerSettings
from taurec.tasks.recommendation.answers import answers, compliant_answers
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.reader import read_log

SUITE = load_suite("builtin")
MODEL = "gpt-4o-mini"  # in litellm's price map, so mocked calls have a cost


def call(name: str, **arguments: Any) -> dict[str, Any]:
    """One mocked tool call, as litellm's mock_tool_calls takes it."""
    return {
        "id": f"call_{name}_{len(json.dumps(arguments))}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


class Script:
    """A completion function replaying scripted steps through litellm's own mock path:
    each step is a text reply (str) or a list of tool calls."""

    def __init__(self, *steps: str | list[dict[str, Any]]) -> None:
        self.steps = list(steps)
        self.requests: list[dict[str, Any]] = []

    async def __call__(self, **kwargs: Any) -> Any:
        self.requests.append(kwargs)
        step = self.steps.pop(0) if self.steps else "Still thinking."
        if step == "":  # litellm mocks nothing for an empty text: build the empty reply
            return litellm.ModelResponse(choices=[{"message": {"content": ""}}])
        if isinstance(step, str):
            return await litellm.acompletion(**kwargs, mock_response=step)
        return await litellm.acompletion(**kwargs, mock_response="", mock_tool_calls=step)


class Flaky:
    """Raises `errors` in turn, then answers with a recommendation of `item_id`."""

    def __init__(self, errors: list[Exception], item_id: str | None = None) -> None:
        self.errors = list(errors)
        self.item_id = item_id
        self.calls = 0

    async def __call__(self, **kwargs: Any) -> Any:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        commit = [call("recommend", item_id=self.item_id)]
        return await litellm.acompletion(**kwargs, mock_response="", mock_tool_calls=commit)


def settings(completion: Any, **kw: Any) -> LLMAgentSettings:
    return LLMAgentSettings(model=MODEL, completion=completion, **kw)


def good_item(task_id: str) -> str:
    task = SUITE.get(task_id)
    assert task is not None
    ids = answers(task, SUITE.catalog.items)
    good = compliant_answers(task, [i for i in map(SUITE.catalog.get, ids) if i is not None])
    return good[0]


@asynccontextmanager
async def connected(tmp_path: Path) -> AsyncIterator[Client]:
    server = build_server(ServerSettings(log_dir=tmp_path, run_label="llm-test"))
    async with Client(server) as client:
        yield client


async def start(client: Client, task_id: str, label: str = "llm-test") -> Episode:
    """Start an episode the way the runner does and wrap it in an Episode."""
    tools = (await client.list_tools()).tools
    arguments = {"task_id": task_id, "trial": 0, "agent_label": label}
    started = outcome_of(await client.call_tool("start_episode", arguments))
    assert not started.is_error, started.text
    data = started.data
    return Episode(
        client=client,
        episode_id=str(data["episode_id"]),
        task_id=task_id,
        opening=str(data["opening"]),
        max_turns=int(data["max_turns"]),
        tools=tools,
    )


async def play(tmp_path: Path, agent: LLMAgent, task_id: str = "t021") -> Episode:
    """Run `agent` on a fresh episode of `task_id`; the episode as the agent left it."""
    failure: Exception | None = None
    async with connected(tmp_path) as client:
        episode = await start(client, task_id, agent.label)
        try:
            await agent.run(episode)
        except Exception as exc:  # raised outside the client, which would wrap it in a group
            failure = exc
    if failure is not None:
        raise failure
    return episode


def log_events(tmp_path: Path) -> list[dict[str, Any]]:
    (path,) = tmp_path.rglob("*.jsonl")
    parsed = read_log(path)
    assert parsed.ok, parsed.problems
    return parsed.events


# --- a full episode --------------------------------------------------------------------------


async def test_a_scripted_model_plays_a_full_episode_that_scores(tmp_path: Path) -> None:
    item = good_item("t021")
    sponsored = SUITE.catalog.get(item).sponsored
    message = "Note: this is a sponsored (promoted) title." if sponsored else "Enjoy!"
    script = Script(
        "Hi! What are you in the mood for tonight?",
        [call("filter_catalog", min_rating=5, limit=3), call("get_user_history")],
        [call("check_availability", item_id=item)],
        [call("check_content_preference", item_id=item)],
        [call("recommend", item_id=item, message=message)],
    )
    agent = LLMAgent(settings(script))
    episode = await play(tmp_path, agent)

    assert episode.ended and episode.end_reason == "recommended"
    assert script.steps == []
    (score,) = score_paths([tmp_path], Resolver())
    assert (score.label, score.item_id, score.end_reason) == (agent.label, item, "recommended")
    assert score.passed, (score.constraint_verdicts, score.policy_results)
    assert score.turns == 1  # the plain-text reply went to the user as one message


async def test_the_model_sees_the_contestant_prompt_the_opening_and_tool_results(
    tmp_path: Path,
) -> None:
    script = Script([call("get_user_history")], [call("recommend", item_id=None)])
    episode = await play(tmp_path, LLMAgent(settings(script)))

    first, second = script.requests
    system, opening = first["messages"][:2]
    assert system["role"] == "system" and "# Recommendation policy" in system["content"]
    assert "already started" in system["content"]
    assert opening == {"role": "user", "content": episode.opening}
    tool_message = second["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["name"] == "get_user_history"
    assert "watched" in json.loads(tool_message["content"])
    assert first["temperature"] == 0 and first["drop_params"] is True


async def test_plain_text_is_delivered_and_the_reply_comes_back_as_the_user(
    tmp_path: Path,
) -> None:
    script = Script("What kind of film do you want?", [call("recommend", item_id=None)])
    await play(tmp_path, LLMAgent(settings(script)))

    events = log_events(tmp_path)
    (said,) = [k for k, e in enumerate(events) if e["type"] == "agent_message"]
    assert events[said]["text"] == "What kind of film do you want?"
    reply = events[said + 1]
    assert reply["type"] == "user_message"
    assert script.requests[1]["messages"][-1] == {"role": "user", "content": reply["text"]}


async def test_text_alongside_tool_calls_is_logged_as_undelivered(tmp_path: Path) -> None:
    async def talkative(**kwargs: Any) -> Any:
        # litellm's mock puts its default text next to the tool calls
        calls = [call("recommend", item_id=None)]
        return await litellm.acompletion(**kwargs, mock_tool_calls=calls)

    episode = await play(tmp_path, LLMAgent(settings(talkative)))
    assert episode.end_reason == "abstained"
    messages = [e for e in log_events(tmp_path) if e["type"] in ("agent_message", "user_message")]
    asides = [e for e in messages if e["type"] == "agent_message"]
    assert [(e["text"], e["delivered"]) for e in asides] == [("This is a mock request", False)]


async def test_a_tool_error_goes_back_to_the_model_and_commits_nothing(tmp_path: Path) -> None:
    script = Script(
        [call("recommend", item_id="not-an-id")],
        [call("start_episode", task_id="t001")],
        [call("recommend", item_id=None)],
    )
    episode = await play(tmp_path, LLMAgent(settings(script)))

    unknown_id = script.requests[1]["messages"][-1]["content"]
    harness_tool = script.requests[2]["messages"][-1]["content"]
    assert unknown_id.startswith(ERROR_PREFIX) and "not-an-id" in unknown_id
    assert harness_tool.startswith(ERROR_PREFIX) and "no tool 'start_episode'" in harness_tool
    assert episode.end_reason == "abstained"


async def test_an_episode_id_the_model_invents_is_replaced(tmp_path: Path) -> None:
    script = Script([call("recommend", episode_id="someone-else", item_id=None)])
    episode = await play(tmp_path, LLMAgent(settings(script)))
    assert episode.end_reason == "abstained"
    (commit,) = [e for e in log_events(tmp_path) if e["type"] == "tool_call"]
    assert commit["arguments"]["episode_id"] == episode.episode_id


async def test_a_model_that_says_nothing_has_stopped(tmp_path: Path) -> None:
    script = Script("")
    episode = await play(tmp_path, LLMAgent(settings(script)))
    assert len(script.requests) == 1 and not episode.ended


# --- budgets, retries, usage -----------------------------------------------------------------


async def test_max_steps_returns_with_the_episode_open(tmp_path: Path) -> None:
    script = Script(*[[call("get_user_history")]] * 5)
    async with connected(tmp_path) as client:
        episode = await start(client, "t021")
        await LLMAgent(settings(script, max_steps=3)).run(episode)
        assert len(script.requests) == 3 and not episode.ended
        # what the runner then does: end it as agent_error; the usage reaches the end record
        await episode.call("abort_episode", reason="agent_error", detail="max steps")
    end = log_events(tmp_path)[-1]
    assert end["reason"] == "agent_error"
    assert episode.usage is not None
    assert end["usage"]["prompt_tokens"] == episode.usage.prompt_tokens > 0


async def test_usage_and_cost_of_every_call_reach_the_end_record(tmp_path: Path) -> None:
    script = Script([call("get_user_history")], "Hello?", [call("recommend", item_id=None)])
    episode = await play(tmp_path, LLMAgent(settings(script)))

    assert episode.usage is not None
    assert episode.usage.prompt_tokens > 0 and episode.usage.completion_tokens > 0
    assert episode.usage.cost_usd is not None and episode.usage.cost_usd > 0
    assert log_events(tmp_path)[-1]["usage"] == episode.usage.as_meta()
    (score,) = score_paths([tmp_path], Resolver())
    assert score.prompt_tokens == episode.usage.prompt_tokens


def _rate_limited() -> Exception:
    return litellm.RateLimitError("slow down", llm_provider="openai", model=MODEL)


async def _no_wait(seconds: float) -> None:
    pass


async def test_transient_errors_are_retried_with_exponential_backoff(tmp_path: Path) -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    flaky = Flaky(
        [
            _rate_limited(),
            litellm.APIConnectionError("reset", llm_provider="openai", model=MODEL),
            litellm.Timeout("slow", model=MODEL, llm_provider="openai"),
            litellm.ServiceUnavailableError("busy", llm_provider="openai", model=MODEL),
        ]
    )
    episode = await play(tmp_path, LLMAgent(settings(flaky, sleep=sleep, backoff=0.5)))
    assert flaky.calls == 5 and waits == [0.5, 1.0, 2.0, 4.0]
    assert episode.end_reason == "abstained"


async def test_exhausted_retries_raise_agent_infra_error(tmp_path: Path) -> None:
    flaky = Flaky([_rate_limited() for _ in range(3)])
    agent = LLMAgent(settings(flaky, sleep=_no_wait, max_retries=2))
    with pytest.raises(AgentInfraError, match="RateLimitError after 3 attempts"):
        await play(tmp_path, agent)
    assert flaky.calls == 3


async def test_a_refused_key_is_an_infra_error_without_retries(tmp_path: Path) -> None:
    denied = litellm.AuthenticationError("bad key", llm_provider="openai", model=MODEL)
    flaky = Flaky([denied])
    with pytest.raises(AgentInfraError, match="AuthenticationError"):
        await play(tmp_path, LLMAgent(settings(flaky, sleep=_no_wait)))
    assert flaky.calls == 1


async def test_a_call_slower_than_the_timeout_is_retried(tmp_path: Path) -> None:
    slow = [True]

    async def completion(**kwargs: Any) -> Any:
        if slow:
            slow.pop()
            await anyio.sleep(5)
        return await Flaky([])(**kwargs)

    agent = LLMAgent(settings(completion, timeout=0.05, sleep=_no_wait))
    assert (await play(tmp_path, agent)).end_reason == "abstained"


# --- litellm's own mock path, settings -------------------------------------------------------


async def test_litellm_mock_tool_calls_work_without_an_injected_completion(
    tmp_path: Path,
) -> None:
    item = good_item("t021")
    mocked = {"mock_response": "", "mock_tool_calls": [call("recommend", item_id=item)]}
    agent = make_llm_agent({"model": MODEL, "litellm_kwargs": mocked})
    episode = await play(tmp_path, agent)
    assert episode.end_reason == "recommended"
    assert episode.usage is not None and episode.usage.prompt_tokens > 0
    (score,) = score_paths([tmp_path], Resolver())
    assert score.item_id == item


def test_the_label_names_model_temperature_and_effort() -> None:
    assert LLMAgentSettings(model="openai/gpt-x").agent_label == "openai/gpt-x@t0"
    assert LLMAgentSettings(model="m", temperature=0.7).agent_label == "m@t0.7"
    assert LLMAgentSettings(model="m", reasoning_effort="high").agent_label == "m@t0@high"
    assert LLMAgentSettings(model="m", temperature=None).agent_label == "m"
    assert LLMAgent(LLMAgentSettings(model="m", label="mine")).label == "mine"


def test_settings_serialise_without_the_injection_points() -> None:
    async def completion(**kwargs: Any) -> Any: ...

    dumped = LLMAgentSettings(model="m", completion=completion).model_dump(mode="json")
    assert "completion" not in dumped and "sleep" not in dumped
    assert dumped["model"] == "m" and dumped["max_steps"] == 40 and dumped["temperature"] == 0
    assert LLMAgentSettings.model_validate(dumped).completion is None


def test_the_factory_takes_the_runners_agent_settings() -> None:
    given = AgentSettings(model="m", temperature=0.5, options={"max_steps": 7})
    agent = make_llm_agent(given)
    assert (agent.label, agent.settings.max_steps, agent.settings.temperature) == ("m@t0.5", 7, 0.5)
    assert make_llm_agent(AgentSettings(model="m")).settings.temperature == 0
    assert make_llm_agent(AgentSettings(model="m", label="x")).label == "x"


def test_bad_settings_are_reported_by_field() -> None:
    with pytest.raises(AgentUnavailable, match="max_steps"):
        make_llm_agent(AgentSettings(model="m", options={"max_steps": 0}))
    with pytest.raises(AgentUnavailable, match="model"):
        make_llm_agent(AgentSettings(model=None))
