"""Tool calls in a model's raw reply, in the common formats, for code that drives
episodes from model text (clients/envs, the ranking text actions). Nothing here raises:
a call that cannot be read is Malformed with a one-line reason.

- OpenAI tool calls in `message["tool_calls"]`: [{"function": {"name", "arguments"}}],
  the arguments a JSON object's text (or the object itself);
- Hermes/Qwen `<tool_call>{"name": ..., "arguments": {...}}</tool_call>` blocks in the
  text, one or several (a last block cut at its closing tag, as a stop sequence does, is
  read to the end of the text).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

_OPEN: Final = "<tool_call>"
_CLOSE: Final = "</tool_call>"


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Malformed:
    reason: str  # one line
    final: bool  # an answer: submitted as an empty ranking (-1); else the episode goes on


def tool_calls_in(
    text: str, message: Mapping[str, Any] | None = None
) -> list[ToolCall | Malformed] | Malformed:
    """The calls of one reply, in the order written: `message`'s OpenAI tool calls when it
    has any, else the <tool_call> blocks of `text`; [] when there are none."""
    calls = _message_calls(message) if message is not None else []
    return calls or _tagged_calls(text)


def shown(value: object, limit: int = 40) -> str:
    """repr() cut to `limit` characters: a reason never echoes a huge argument back."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _call(name: object, arguments: object, where: str) -> ToolCall | Malformed:
    """One call from its raw name and arguments (a JSON object or its text)."""
    if not isinstance(name, str) or not name:
        return Malformed(f"{where}: name must be a tool name, got {shown(name)}", final=False)
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
