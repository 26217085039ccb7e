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

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from taurec.clients.agents.ranking.prompt import AnswerError, parse_boxed
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

_OPEN: Final = "<tool_call>"
_CLOSE: Final = "</tool_call>"


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ToolCalls:
    calls: tuple[ToolCall, ...]  # in the order written; each passes the ranking rules


@dataclass(frozen=True)
class FinalRanking:
    indices: tuple[int, ...]  # 1-based candidate indices, as written (length unchecked)
    ids: tuple[str, ...]  # the candidate ids they name


@dataclass(frozen=True)
class Malformed:
    reason: str  # one line
    final: bool  # an answer: submitted as an empty ranking (-1); else the episode goes on


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
    calls = _message_calls(message) if message is not None else []
    if not calls:
        calls = _tagged_calls(text)
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


def _shown(value: object, limit: int = 40) -> str:
    """repr() cut to `limit` characters: a reason never echoes a huge argument back."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _call(name: object, arguments: object, where: str) -> ToolCall | Malformed:
    """One call from its raw name and arguments (a JSON object or its text)."""
    if not isinstance(name, str) or not name:
        return Malformed(f"{where}: name must be a tool name, got {_shown(name)}", final=False)
    if arguments is None:
        arguments = {}
    elif isinstance(arguments, str):
        arguments = _json(arguments) if arguments.strip() else {}
        if isinstance(arguments, Malformed):
            return Malformed(f"{where}: arguments are {arguments.reason}", final=False)
    if not isinstance(arguments, Mapping):
        return Malformed(
            f"{where}: arguments must be a JSON object, got {type(arguments).__name__}",
            final=False,
        )
    return ToolCall(name, {str(k): v for k, v in arguments.items()})


def _json(text: str) -> Any:
    """The JSON value of `text`, or Malformed saying why it is not JSON."""
    try:
        return json.loads(text)
    except RecursionError:
        return Malformed("not JSON (nested too deeply)", final=False)
    except ValueError as exc:
        # JSONDecodeError's msg and position name the fault without echoing the text
        where = f" at character {exc.pos}" if isinstance(exc, json.JSONDecodeError) else ""
        what = exc.msg if isinstance(exc, json.JSONDecodeError) else "unreadable"
        return Malformed(f"not JSON ({what}{where})", final=False)


def _message_calls(message: object) -> list[ToolCall | Malformed] | Malformed:
    """The calls of an OpenAI-style message (none when it holds no tool_calls)."""
    if not isinstance(message, Mapping):
        return Malformed(
            f"message: expected an OpenAI message dict, got {type(message).__name__}",
            final=False,
        )
    raw = message.get("tool_calls")
    if not raw:
        return []
    if not isinstance(raw, list):
        return Malformed(f"tool_calls: expected a list, got {type(raw).__name__}", final=False)
    calls: list[ToolCall | Malformed] = []
    for n, entry in enumerate(raw, 1):
        where = f"tool call {n}"
        function = entry.get("function") if isinstance(entry, Mapping) else None
        if not isinstance(function, Mapping):
            calls.append(
                Malformed(f'{where}: expected {{"function": {{"name", "arguments"}}}}', False)
            )
            continue
        calls.append(_call(function.get("name"), function.get("arguments"), where))
    return calls


def _tagged_calls(text: str) -> list[ToolCall | Malformed]:
    """The calls of the <tool_call> blocks in `text`, found in linear time."""
    calls: list[ToolCall | Malformed] = []
    start = text.find(_OPEN)
    while start != -1:
        where = f"tool call {len(calls) + 1}"
        end = text.find(_CLOSE, start + len(_OPEN))
        body = text[start + len(_OPEN) : end if end != -1 else len(text)]
        value = _json(body)
        if isinstance(value, Malformed):
            calls.append(Malformed(f"{where}: <tool_call> body is {value.reason}", False))
        elif not isinstance(value, Mapping):
            kind = type(value).__name__
            calls.append(
                Malformed(
                    f'{where}: expected {{"name": ..., "arguments": {{...}}}}, got {kind}', False
                )
            )
        else:
            calls.append(_call(value.get("name"), value.get("arguments"), where))
        if end == -1:
            break
        start = text.find(_OPEN, end + len(_CLOSE))
    return calls


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
