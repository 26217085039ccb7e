"""The LLM contestant sends the tool calls of one model reply as one batch: each carries
the reply's batch id, and all are sent even after one of them ended the episode."""

from __future__ import annotations

from pathlib import Path

import pytest

from taurec.clients.agents.base import Episode, EpisodeEndedError
from taurec.clients.agents.llm import LLMAgent

from .test_llm import Script, call, connected, good_item, log_events, play, settings, start


def _calls(tmp_path: Path) -> list[dict]:
    return [e for e in log_events(tmp_path) if e["type"] == "tool_call"]


async def test_the_calls_of_one_reply_share_a_batch_and_the_next_reply_gets_another(
    tmp_path: Path,
) -> None:
    script = Script(
        [call("get_user_history"), call("get_item", item_id=good_item("t021"))],
        [call("recommend", item_id=None)],
    )
    await play(tmp_path, LLMAgent(settings(script)))
    first, second, third = (c["batch"] for c in _calls(tmp_path))
    assert first == second and third != first


async def test_calls_after_the_commit_in_the_same_reply_are_sent_and_logged_refused(
    tmp_path: Path,
) -> None:
    item = good_item("t021")
    script = Script([call("recommend", item_id=item), call("recommend", item_id=None)])
    episode = await play(tmp_path, LLMAgent(settings(script)))
    assert episode.ended and episode.end_reason == "recommended"
    events = log_events(tmp_path)
    calls = [e for e in events if e["type"] == "tool_call"]
    assert [c["arguments"]["item_id"] for c in calls] == [item, None]
    assert calls[0]["batch"] == calls[1]["batch"]
    assert events[-2]["refused"] and (events[-1]["reason"], events[-1]["item_id"]) == (
        "recommended",
        item,
    )
    # the model was not asked again: the episode had ended
    assert script.steps == [] and len(script.requests) == 1


async def test_the_reply_text_goes_with_the_first_call_sent(tmp_path: Path) -> None:
    async def talkative(**kwargs):
        import litellm

        calls = [call("no_such_tool"), call("recommend", item_id=None)]
        return await litellm.acompletion(**kwargs, mock_tool_calls=calls)

    await play(tmp_path, LLMAgent(settings(talkative)))
    events = log_events(tmp_path)
    aside = next(i for i, e in enumerate(events) if e["type"] == "agent_message")
    assert not events[aside]["delivered"]
    # the unknown tool was never sent, so the batch is the recommend call alone
    assert events[aside + 1]["name"] == "recommend" and events[aside + 1]["batch"]


async def test_an_episode_refuses_a_call_after_its_end_outside_a_batch(tmp_path: Path) -> None:
    async with connected(tmp_path) as client:
        episode: Episode = await start(client, "t021")
        await episode.recommend(None)
        with pytest.raises(EpisodeEndedError):
            await episode.call("get_user_history")
        with pytest.raises(ValueError, match="at least one call"):
            episode.begin_batch(0)


async def test_a_batch_continues_after_the_episode_ended(tmp_path: Path) -> None:
    async with connected(tmp_path) as client:
        episode = await start(client, "t021")
        episode.begin_batch(2)
        await episode.recommend(None)
        assert episode.ended
        refused = await episode.call("get_user_history")
        assert refused.is_error and "was not run" in refused.text
    assert log_events(tmp_path)[-1]["type"] == "end"
