"""The LLM agent on PPR tasks: one completion of AgenticRec's pair prompt (the episode's
opening), no tools. The last `\\boxed{A}` or `\\boxed{B}` in the reply is submitted with
submit_answer; a reply without one submits an answer that is neither letter, which ends
the episode with reward 0 (so a failure to answer is scored, never dropped)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from taurec.clients.agents.base import AgentSettings, Episode
from taurec.clients.agents.llm import LLMAgent, LLMAgentSettings, _text
from taurec.clients.agents.llm import make_llm_agent as _make_settings
from taurec.tasks.ranking.pair import SUBMIT

SYSTEM_PROMPT: Final = (
    "You are a helpful recommendation assistant. Think step by step about the user's "
    "history, then end your reply with \\boxed{A} or \\boxed{B}."
)
#: What is submitted when the reply holds no boxed letter: not A or B, so it scores 0.
NO_ANSWER: Final = "(no \\boxed{A} or \\boxed{B} in the reply)"
_BOXED = re.compile(r"\\boxed\{\s*([A-Za-z])\s*\}")


def boxed_letter(text: str) -> str | None:
    """The letter of the last \\boxed{A} or \\boxed{B} in `text` (case ignored), or None."""
    letters = [m.upper() for m in _BOXED.findall(text) if m.upper() in ("A", "B")]
    return letters[-1] if letters else None


class PairLLMAgent(LLMAgent):
    async def run(self, episode: Episode) -> None:
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": episode.opening},
        ]
        response = await self._complete(messages, [])
        self.report(episode, response, messages, [])
        letter = boxed_letter(_text(response.choices[0].message))
        await episode.call(SUBMIT, answer=letter or NO_ANSWER)


def make_pair_llm_agent(
    settings: LLMAgentSettings | AgentSettings | Mapping[str, Any],
) -> PairLLMAgent:
    if isinstance(settings, AgentSettings) and not settings.model:
        from taurec.clients.agents.registry import AgentUnavailable

        raise AgentUnavailable("--agent llm needs --model (a litellm model string)")
    return PairLLMAgent(_make_settings(settings).settings)
