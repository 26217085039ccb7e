"""An OpenAI-compatible chat-completions stand-in for tests of framework adapters: a
Starlette app whose model plays taurec's scripted policy (clients/envs/scripted.py) over
the conversation it is sent, so that any number of conversations can run at once.

The model name picks the player: `scripted-<kind>` (ranking, recommendation, stream)
replays the conversation's observations through a fresh ScriptedPolicy and answers with
its action (a tool call as an OpenAI tool call, text as content); `malformed` answers
every request with text that is neither a tool call nor an answer.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from taurec.clients.envs.scripted import ScriptedPolicy

MALFORMED = "malformed"
#: What the `malformed` model says.
MALFORMED_TEXT = "I would go with the first few candidates, I think."


def observations(messages: list[dict[str, Any]]) -> list[str]:
    """The environment's observations in a conversation: the first user message, then,
    after each assistant message, the tool results (joined as TaurecEnv joins them) or
    the user message that answered it."""
    seen: list[str] = []
    for message in messages:
        role, content = message.get("role"), message.get("content") or ""
        if role == "system":
            continue
        if role == "assistant":
            seen.append("")
        elif role in ("user", "tool"):
            if not seen:
                seen.append("")
            seen[-1] = f"{seen[-1]}\n\n{content}" if seen[-1] else str(content)
    return seen


def reply_of(model: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The assistant message the stand-in model answers `messages` with."""
    if model == MALFORMED:
        return {"role": "assistant", "content": MALFORMED_TEXT}
    policy = ScriptedPolicy(model.removeprefix("scripted-"))
    action: Any = None
    for observation in observations(messages):
        action = policy.act(observation)
    if isinstance(action, str):
        return {"role": "assistant", "content": action}
    call = {
        "id": f"call_{len(messages)}",
        "type": "function",
        "function": {"name": action["name"], "arguments": json.dumps(action["arguments"])},
    }
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def chat_app() -> Starlette:
    """The stand-in; `app.state.requests` holds every request body, in order."""
    ids = itertools.count(1)

    async def completions(request: Request) -> JSONResponse:
        body = await request.json()
        app.state.requests.append(body)
        message = reply_of(str(body["model"]), body["messages"])
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        return JSONResponse(
            {
                "id": f"chatcmpl-{next(ids)}",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            }
        )

    app = Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])
    app.state.requests = []
    return app
