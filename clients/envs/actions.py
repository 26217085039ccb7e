"""What an environment action means: `action_of` turns what a trainer passes to `step`
into tool calls, a message to the user, or an Unreadable reply (never an exception).

- a dict `{"name": ..., "arguments": {...}}`: one tool call;
- a list of such dicts: the calls of one model response (one batch in the log);
- text: the model's reply. Tool calls written in it (OpenAI `message["tool_calls"]` or
  Hermes/Qwen `<tool_call>` blocks; clients/agents/text_calls.py) are the action. Without
  any, a ranking reply is its final answer (`<answer>\\boxed{[...]}</answer>`, read by the
  ranking text actions; an unreadable answer is submitted as an empty ranking, which
  scores -1), and a dialogue reply is a message to the user (send_message). A stream
  reply without a call is Unreadable: a stream has no one to say it to.

`episode_id` is never taken from the action: the environment sets it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from taurec.clients.agents.ranking.text_actions import env_steps, parse_action
from taurec.clients.agents.text_calls import Malformed, ToolCall, tool_calls_in
from taurec.clients.agents.tool_schema import HARNESS_TOOLS

#: The longest text reply read (a longer one is Unreadable).
MAX_TEXT = 100_000


@dataclass(frozen=True)
class Calls:
    calls: tuple[tuple[str, dict[str, Any]], ...]  # (name, arguments), in order


@dataclass(frozen=True)
class Say:
    text: str  # sent to the simulated user with send_message


@dataclass(frozen=True)
class Unreadable:
    reason: str  # one line: shown to the model as the step's observation


Parsed = Calls | Say | Unreadable


def action_of(
    action: Any, kind: str, task: Any, message: Mapping[str, Any] | None = None
) -> Parsed:
    """The meaning of `action` in an episode of `kind` on `task` (see the module doc)."""
    parsed = _parsed(action, kind, task, message)
    if isinstance(parsed, Calls):
        for name, _ in parsed.calls:
            if name in HARNESS_TOOLS:
                return Unreadable(f"{name} belongs to the environment, not to the episode")
    return parsed


def _parsed(action: Any, kind: str, task: Any, message: Mapping[str, Any] | None = None) -> Parsed:
    if isinstance(action, Mapping):
        return _calls([action])
    if isinstance(action, list | tuple):
        if not action:
            return Unreadable("an empty list of tool calls")
        return _calls(list(action))
    if not isinstance(action, str):
        return Unreadable(
            f"action: expected a tool call dict, a list of them, or text; got {type(action).__name__}"
        )
    if len(action) > MAX_TEXT:
        return Unreadable(f"reply is {len(action)} characters; at most {MAX_TEXT} are read")
    if kind == "ranking":
        reply = parse_action(action, task.candidates, message, task.top_n)
        steps = env_steps(reply, action)
        if not steps:
            assert isinstance(reply, Malformed)
            return Unreadable(reply.reason)
        return Calls(tuple((s["name"], s["arguments"]) for s in steps))
    found = tool_calls_in(action, message)
    if isinstance(found, Malformed):
        return Unreadable(found.reason)
    if found:
        calls = []
        for call in found:
            if isinstance(call, Malformed):
                return Unreadable(call.reason)
            calls.append((call.name, _without_id(call.arguments)))
        return Calls(tuple(calls))
    if kind == "recommendation":
        if not action.strip():
            return Unreadable("an empty reply: write a message to the user or call a tool")
        return Say(action)
    return Unreadable("no tool call in the reply: act with the stream's tools")


def _calls(raw: list[Any]) -> Parsed:
    calls = []
    for n, entry in enumerate(raw, 1):
        if not isinstance(entry, Mapping):
            return Unreadable(f'tool call {n}: expected {{"name": str, "arguments": dict}}')
        name, arguments = entry.get("name"), entry.get("arguments", {})
        if arguments is None:
            arguments = {}
        if not isinstance(name, str) or not name or not isinstance(arguments, Mapping):
            return Unreadable(f'tool call {n}: expected {{"name": str, "arguments": dict}}')
        calls.append(ToolCall(name, dict(arguments)))
    return Calls(tuple((c.name, _without_id(c.arguments)) for c in calls))


def _without_id(arguments: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in arguments.items() if k != "episode_id"}
