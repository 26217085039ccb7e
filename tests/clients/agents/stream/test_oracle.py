"""BIEL's LLM oracle on streams (model mocked): it sees the persona and every product,
replies with a 0-based index, asks nothing; without --model it is unavailable."""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest
from support.streams import make_stream

from taurec.clients.agents.base import AgentSettings
from taurec.clients.agents.registry import AgentUnavailable, make_agent
from taurec.clients.agents.stream.llm_client import LLMClient
from taurec.clients.agents.stream.oracle import LLMOracleStreamPolicy
from taurec.clients.agents.stream.play import LocalStreamPort, play_stream
from taurec.tasks.stream.session import StreamSession
from taurec.tasks.stream.task import StreamSetting, StreamTask

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
import litellm


def oracle(task: StreamTask, reply: str) -> tuple[StreamSession, list[tuple[str, float]]]:
    calls: list[tuple[str, float]] = []

    async def complete(**kwargs: Any) -> Any:
        calls.append((kwargs["messages"][-1]["content"], kwargs["temperature"]))
        return await litellm.acompletion(
            model="openai/mock", messages=kwargs["messages"], mock_response=reply
        )

    session = StreamSession(task, seed=0)
    policy = LLMOracleStreamPolicy(task, LLMClient("openai/m", completion=complete), "0:t:0")
    view = session.view().model_dump(mode="json")
    asyncio.run(play_stream(LocalStreamPort(session), view, policy))
    return session, calls


def test_the_oracles_prompt_holds_the_persona_and_every_product() -> None:
    task = make_stream(StreamSetting.VARIABLE_PERSONA, episodes=2)
    _, calls = oracle(task, "RECOMMEND: 0")
    for (prompt, temperature), spec in zip(calls, task.episodes, strict=True):
        assert task.persona_index[spec.persona_id].description in prompt
        for n, item_id in enumerate(spec.item_ids):
            item = task.item_index[item_id]
            assert f"Product {n}:\n  ID: {item_id}\n  Title: {item.title}\n" in prompt
        assert f"RECOMMEND: <array_index_0_to_{len(spec.item_ids) - 1}>" in prompt
        assert temperature == 0.1


def test_its_index_reply_maps_to_that_item_and_it_asks_nothing() -> None:
    task = make_stream(episodes=2)
    session, _ = oracle(task, "RECOMMEND: 3")
    assert session.chosen == [e.item_ids[3] for e in task.episodes]
    assert session.asked == [0, 0]


def test_an_unreadable_reply_gives_a_seeded_random_item() -> None:
    task = make_stream(episodes=2)
    first, _ = oracle(task, "The fourth one.")
    again, _ = oracle(task, "The fourth one.")
    assert first.chosen == again.chosen
    assert all(c in e.item_ids for c, e in zip(first.chosen, task.episodes, strict=True))


def test_without_a_model_the_stream_oracle_is_unavailable() -> None:
    with pytest.raises(AgentUnavailable, match="needs --model"):
        make_agent("oracle", AgentSettings(suite="stream:builtin"), "stream")
