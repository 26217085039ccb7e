"""`taurec run --dry-run`: what a run would cost, without running it.

Episode and tool-call counts come from the plan and each agent's measured profile
(registry.py); LLM calls and cost from assumed tokens per call priced with litellm's
model cost map, read offline (LITELLM_LOCAL_MODEL_COST_MAP=True). Rough by design: the
point is the order of magnitude before spending money.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from taurec.clients.agents.registry import AgentProfile

#: Assumed tokens per LLM call: (prompt, completion).
AGENT_TOKENS: Final = (5_500, 150)  # system prompt, policy, tool schemas and a growing history
USER_TOKENS: Final = (1_200, 60)  # the simulated user's persona, notes and the conversation


@dataclass(frozen=True)
class Estimate:
    episodes: int
    tool_calls: int
    messages: int
    agent_llm_calls: int = 0
    user_llm_calls: int = 0
    agent_cost_usd: float | None = None
    user_cost_usd: float | None = None
    notes: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        out = [
            f"episodes:      {self.episodes}",
            f"tool calls:    ~{self.tool_calls} (plus {self.messages} messages to the user)",
        ]
        if self.agent_llm_calls:
            out.append(
                f"agent LLM calls:  ~{self.agent_llm_calls}  cost ~{_usd(self.agent_cost_usd)}"
            )
        if self.user_llm_calls:
            out.append(
                f"user LLM calls:   ~{self.user_llm_calls}  cost ~{_usd(self.user_cost_usd)}"
            )
        return out + [f"note: {n}" for n in self.notes]


def _usd(cost: float | None) -> str:
    return "unknown (model not in litellm's cost map)" if cost is None else f"${cost:,.2f}"


def price(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """USD for these tokens on `model` from litellm's bundled cost map; None if unknown."""
    from taurec.catalog.llm_runtime import load_litellm

    litellm = load_litellm()  # quiet: no provider lists printed for an unknown model
    try:
        p, c = litellm.cost_per_token(
            model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
        )
    except Exception:
        return None
    return float(p) + float(c)


def estimate(
    profile: AgentProfile,
    episodes: int,
    *,
    agent_model: str | None = None,
    user_model: str | None = None,
) -> Estimate:
    messages = round(profile.messages * episodes)
    agent_calls = round(profile.llm_calls * episodes) if agent_model else 0
    # the LLM user answers the opening and each message
    user_calls = (messages + episodes) if user_model else 0
    notes = []
    agent_cost = user_cost = None
    if agent_calls and agent_model:
        agent_cost = price(
            agent_model, agent_calls * AGENT_TOKENS[0], agent_calls * AGENT_TOKENS[1]
        )
        notes.append(
            f"agent calls assume ~{AGENT_TOKENS[0]:,} prompt + {AGENT_TOKENS[1]} completion tokens"
        )
    if user_calls and user_model:
        user_cost = price(user_model, user_calls * USER_TOKENS[0], user_calls * USER_TOKENS[1])
        notes.append(
            f"user calls assume ~{USER_TOKENS[0]:,} prompt + {USER_TOKENS[1]} completion tokens; "
            "cached replies cost nothing"
        )
    return Estimate(
        episodes=episodes,
        tool_calls=round(profile.tool_calls * episodes),
        messages=messages,
        agent_llm_calls=agent_calls,
        user_llm_calls=user_calls,
        agent_cost_usd=agent_cost,
        user_cost_usd=user_cost,
        notes=tuple(notes),
    )
