"""The LLM stream agent with litellm mocked: questions, recommendations, forced picks,
and the record of earlier episodes it carries in its prompt."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from support.streams import make_stream

from taurec.clients.agents.stream.llm import LLMStreamPolicy
from taurec.clients.agents.stream.play import LocalStreamPort, play_stream
from taurec.tasks.stream.session import StreamSession
from taurec.tasks.stream.task import StreamTask

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
import litellm


def scripted(replies: list[str], prompts: list[str]) -> Any:
    async def complete(**kwargs: Any) -> Any:
        prompts.append(kwargs["messages"][-1]["content"])
        text = replies.pop(0) if replies else "RECOMMEND: nothing-valid"
        return await litellm.acompletion(
            model=kwargs["model"], messages=kwargs["messages"], mock_response=text
        )

    return complete


def run(task: StreamTask, replies: list[str]) -> tuple[StreamSession, list[str]]:
    prompts: list[str] = []
    session = StreamSession(task, seed=0)
    policy = LLMStreamPolicy("openai/mock", completion=scripted(replies, prompts))
    asyncio.run(
        play_stream(LocalStreamPort(session), session.view().model_dump(mode="json"), policy)
    )
    return session, prompts


def test_it_asks_then_recommends_the_item_it_names() -> None:
    task = make_stream(episodes=1)
    target = task.episodes[0].item_ids[5]
    session, prompts = run(task, ["QUESTION: Do you like comedy?", f"RECOMMEND: {target}"])
    assert session.chosen == [target]
    assert "Q: Do you like comedy?" in prompts[1]


def test_an_unknown_id_counts_as_a_question() -> None:
    task = make_stream(episodes=1)
    target = task.episodes[0].item_ids[2]
    session, prompts = run(task, ["RECOMMEND: not-an-item", f"RECOMMEND: {target}"])
    assert session.chosen == [target]
    assert "Questions left: 9." in prompts[1]


def test_at_the_budget_it_must_recommend_and_falls_back_to_the_first_item() -> None:
    task = make_stream(episodes=1).model_copy(update={"question_budget": 1})
    session, prompts = run(task, ["QUESTION: Anything?", "I cannot decide."])
    assert session.chosen == [task.episodes[0].item_ids[0]]
    assert "you must reply RECOMMEND" in prompts[-1]


def test_later_prompts_carry_the_earlier_episodes_and_their_feedback() -> None:
    task = make_stream(episodes=2)
    first = task.episodes[0].item_ids[0]
    second = task.episodes[1].item_ids[0]
    _, prompts = run(task, [f"RECOMMEND: {first}", f"RECOMMEND: {second}"])
    assert "Earlier episodes:" in prompts[1]
    assert f"Recommended {first}" in prompts[1] and "Chosen score:" in prompts[1]


def test_a_refused_key_is_not_retried_and_stops_the_run() -> None:
    import pytest

    from taurec.clients.agents.base import ProviderRefused

    calls: list[int] = []

    async def refusing(**kwargs: Any) -> Any:
        calls.append(1)
        raise litellm.AuthenticationError("invalid api key", llm_provider="openai", model="m")

    policy = LLMStreamPolicy("openai/gpt-4o-mini", completion=refusing)
    with pytest.raises(ProviderRefused, match="AuthenticationError"):
        asyncio.run(policy._complete([{"role": "user", "content": "hi"}]))
    assert calls == [1]
