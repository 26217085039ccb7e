"""A model's raw reply as a ranking action, for trainers that drive ranking episodes
without an MCP client (GRPO on AgenticRec tasks). `parse_action` never raises: a reply is
tool calls, a final ranking, or Malformed with a one-line reason.

Formats, looked for in this order:
1. OpenAI tool calls in `message["tool_calls"]`: [{"function": {"name", "arguments"}}],
   the arguments a JSON object's text (or the object itself);
2. Hermes/Qwen `<tool_call>{"name": ..., "arguments": {...}}</tool_call>` blocks in the
   text, one or several (a last block cut at its closing tag, as a stop sequence does, is
   read to the end of the text);
3. AgenticRec's answer `<answer>\\boxed{[i1, i2, ...]}</answer>`, read by `parse_boxed`
   with the LLM agent's rules (the last \\boxed list; ASCII 1-based candidate indices).

A reply holding tool calls is a tool-call turn and any \\boxed in it is ignored, as the
LLM agent does. Each call is checked by the ranking rules (tasks/ranking/rules.py): a call
the episode would refuse uncounted (unknown tool, missing, ill-typed or over-long
argument) makes the turn Malformed but not final; the episode goes on. A reply with no
tool call is the final answer: without a readable \\boxed list it is Malformed and final,
submitted as an empty ranking, which the ranking rules score -1 (the paper's invalid
answer). A reply over MAX_REPLY characters is Malformed and final.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from taurec.clients.agents.ranking.prompt import AnswerError, parse_boxed
from taurec.clients.agents.text_calls import Malformed, ToolCall, tool_calls_in
from taurec.tasks.ranking.rules import (
    MAX_REPLY,
    MAX_TITLE,
    REPLY,
    SUBMIT,
    TOOL_ARGUMENTS,
    TOOL_DOCS,
    call_problem,
    normalised,
)


@dataclass(frozen=True)
class ToolCalls:
    calls: tuple[ToolCall, ...]  # in the order written; each passes the ranking rules


@dataclass(frozen=True)
class FinalRanking:
    indices: tuple[int, ...]  # 1-based candidate indices, as written (length unchecked)
    ids: tuple[str, ...]  # the candidate ids they name


Action = ToolCalls | FinalRanking | Malformed


def parse_action(
    text: str,
    candidates: Sequence[str],
    message: Mapping[str, Any] | None = None,
    top_n: int = 10,
) -> Action:
    """The action of one reply: `text` is the completion, `candidates` the task's ids in the
    order shown, `message` the OpenAI-style assistant message when the model's tool calls
    came apart from the text."""
    if not isinstance(text, str):
        return Malformed(f"reply: expected text, got {type(text).__name__}", final=True)
    if len(text) > MAX_REPLY:
        return Malformed(
            f"reply is {len(text)} characters; at most {MAX_REPLY} are read", final=True
        )
    calls = tool_calls_in(text, message)
    if isinstance(calls, Malformed):
        return calls
    if calls:
        return _checked(calls)
    return _answer(text, candidates, top_n)


def submitted_ranking(action: Action) -> list[str] | None:
    """The ranking the reward path scores for `action` (taurec.tasks.ranking.metrics):
    the ids of a final ranking, [] for a final Malformed reply (scored -1), None when the
    action is not an answer."""
    if isinstance(action, FinalRanking):
        return list(action.ids)
    if isinstance(action, Malformed) and action.final:
        return []
    return None


def env_steps(action: Action, reply: str | None = None) -> list[dict[str, Any]]:
    """What `RankingEnv.step` takes for `action`, in order: one step per tool call; one
    submit_ranking for an answer (see `submitted_ranking`), with `reply` logged beside it
    (cut to MAX_REPLY); nothing for a Malformed tool-call turn (show the model its reason)."""
    if isinstance(action, ToolCalls):
        return [{"name": c.name, "arguments": dict(c.arguments)} for c in action.calls]
    ranking = submitted_ranking(action)
    if ranking is None:
        return []
    arguments: dict[str, Any] = {"ranking": ranking}
    if reply:
        arguments[REPLY] = reply[:MAX_REPLY]
    return [{"name": SUBMIT, "arguments": arguments}]


def ranking_tool_schemas() -> list[dict[str, Any]]:
    """The seven tools as OpenAI-style function tools, in the paper's order, as the MCP
    server offers them to an LLM contestant (without episode_id: the harness adds it);
    built from TOOL_ARGUMENTS, so no MCP import."""
    schemas = []
    for name, arg in TOOL_ARGUMENTS.items():
        parameters: dict[str, Any] = {"type": "object", "properties": {}}
        if arg is not None:
            parameters["properties"][arg] = {
                "description": "An item title, as shown.",
                "maxLength": MAX_TITLE,
                "pattern": r"\S",
                "title": arg.replace("_", " ").title(),
                "type": "string",
            }
            parameters["required"] = [arg]
        parameters["title"] = f"{name}Arguments"
        description = TOOL_DOCS[name] + " Counts against the episode's tool budget."
        function = {"name": name, "description": description, "parameters": parameters}
        schemas.append({"type": "function", "function": function})
    return schemas


def _checked(calls: list[ToolCall | Malformed]) -> ToolCalls | Malformed:
    """The calls as the episode takes them, or the first that it would refuse."""
    out = []
    for n, call in enumerate(calls, 1):
        if isinstance(call, Malformed):
            return call
        arguments = normalised(call.name, call.arguments)
        problem = call_problem(call.name, arguments)
        if problem is not None:
            return Malformed(f"tool call {n}: {problem}", final=False)
        out.append(ToolCall(call.name, arguments))
    return ToolCalls(tuple(out))


def _answer(text: str, candidates: Sequence[str], top_n: int) -> FinalRanking | Malformed:
    """The final answer, read by parse_boxed over the indices 1..len(candidates)."""
    numbers = [str(i) for i in range(1, len(candidates) + 1)]
    try:
        indices = tuple(int(i) for i in parse_boxed(text, numbers, top_n))
    except AnswerError as exc:
        return Malformed(" ".join(str(exc).split()), final=True)
    return FinalRanking(indices, tuple(candidates[i - 1] for i in indices))
