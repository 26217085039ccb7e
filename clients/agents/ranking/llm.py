"""The LLM agent on ranking tasks: AgenticRec's prompt (App. A), the seven tools offered
as function tools, and the answer either as a submit_ranking call or as
`<answer>\\boxed{[...]}</answer>` with 1-based candidate indices, which is turned into the
submit_ranking call (so every answer reaches the log the same way, with the reply it was
read from). A final reply with no readable answer (no tool call and no \\boxed list of
candidate indices) is the paper's malformed answer: it is submitted as an empty ranking,
which scores -1. With `answer_retries` N (`taurec run --answer-retries N`), up to N such
replies get a note saying what is expected instead; the rejected replies are logged with
the answer (`rejected_replies`) and reported as answer retries."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from taurec.clients.agents.base import AgentSettings, Episode
from taurec.clients.agents.llm import (
    LLMAgent,
    LLMAgentSettings,
    _assistant_message,
    _execute,
    _text,
)
from taurec.clients.agents.llm import make_llm_agent as _make_settings
from taurec.clients.agents.ranking.prompt import AnswerError, parse_boxed, read_opening
from taurec.clients.agents.tool_schema import function_tools
from taurec.tasks.ranking.rules import MAX_REPLY

log = logging.getLogger(__name__)

SYSTEM_PROMPT = (
    "You are an helpful recommendation system assistant equipped with external tools. "
    "Think step by step: reason about the user, call tools when they help (each call is "
    "one of a budget of 10; an 11th makes your answer invalid), then rank.\n\n"
    "You may call one or more functions to assist with the user query. You are provided "
    "with function signatures within <tools></tools> XML tags:\n<tools>{tools_schema}</tools>\n\n"
    "Finish with submit_ranking, or with <answer>\\boxed{{[i1, i2, ..., i10]}}</answer>: "
    "exactly 10 unique 1-based candidate indices, most likely first."
)


class RankingLLMAgent(LLMAgent):
    answer_retries: int = 0

    async def run(self, episode: Episode) -> None:
        tools = episode.tools or (await episode.client.list_tools()).tools
        offered = function_tools(tools)
        names = frozenset(t["function"]["name"] for t in offered)
        ids = [cid for cid, _ in read_opening(episode.opening).candidates]
        rejected: list[str] = []
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": SYSTEM_PROMPT.format(tools_schema=json.dumps(offered))},
            {"role": "user", "content": episode.opening},
        ]
        for _ in range(self.settings.max_steps):
            if episode.ended:
                return
            response = await self._complete(messages, offered)
            self.report(episode, response, messages, offered)
            message = response.choices[0].message
            messages.append(_assistant_message(message))
            calls = list(getattr(message, "tool_calls", None) or [])
            if calls:
                for call in calls:
                    messages.append(await _execute(episode, call, names))
                    if episode.ended:
                        return
                continue
            text = _text(message)
            try:
                ranking = parse_boxed(text, ids)
            except AnswerError as exc:
                if len(rejected) < self.answer_retries:
                    rejected.append(text)
                    messages.append({"role": "user", "content": f"[harness] {exc}"})
                    continue
                ranking = []  # malformed: scored -1, with the reply logged beside it
            retried = {"rejected_replies": [r[:MAX_REPLY] for r in rejected]} if rejected else {}
            await episode.call("submit_ranking", ranking=ranking, reply=text[:MAX_REPLY], **retried)
            return
        log.info(
            "episode %s: %s steps without an answer",
            episode.episode_id[:8],
            self.settings.max_steps,
        )


def make_ranking_llm_agent(
    settings: LLMAgentSettings | AgentSettings | Mapping[str, Any],
) -> RankingLLMAgent:
    if isinstance(settings, AgentSettings) and not settings.model:
        from taurec.clients.agents.registry import AgentUnavailable

        raise AgentUnavailable("--agent llm needs --model (a litellm model string)")
    if not isinstance(settings, AgentSettings):
        return RankingLLMAgent(_make_settings(settings).settings)
    from dataclasses import replace

    from taurec.clients.agents.registry import default_label

    options = dict(settings.options)
    retries = int(options.pop("answer_retries", None) or 0)
    agent = RankingLLMAgent(_make_settings(replace(settings, options=options)).settings)
    agent.answer_retries = retries
    agent.label = default_label("llm", settings)  # names the retries, so runs never pool
    return agent
