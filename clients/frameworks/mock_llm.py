"""`taurec mock-llm`: an OpenAI-compatible chat-completions server whose model plays
taurec's scripted policy (clients/envs/scripted.py) over the conversation it is sent, so
any framework that talks to an OpenAI endpoint (vf-eval, Inspect's `openai-api/...`
models, the SDK examples, a TRL `generate`) can be tried offline, no key, no network.

The model name picks the player: `scripted` plays the kind the request's tools show
(ranking, dialogue, stream); `scripted-<kind>` names it (`scripted-ranking`,
`scripted-recommendation`, `scripted-stream`); `malformed` answers every request with
text that is neither a tool call nor an answer. It holds no state between requests, so
any number of conversations may run at once; each answer reports 10 prompt and 5
completion tokens. `GET /v1/models` lists the models. It is a stand-in that proves a
route works, never a model to score.
"""

from __future__ import annotations

import itertools
from typing import Any, Final

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from taurec.clients.envs.scripted import kind_of_tools, scripted_reply

SCRIPTED: Final = "scripted"
MALFORMED: Final = "malformed"
#: What the `malformed` model says.
MALFORMED_TEXT: Final = "I would go with the first few candidates, I think."
KINDS: Final = ("ranking", "recommendation", "stream")
MODELS: Final = (SCRIPTED, *(f"{SCRIPTED}-{kind}" for kind in KINDS), MALFORMED)


class UnknownModel(ValueError):
    """A model name the stand-in does not play, or a request whose kind it cannot tell."""


def reply_of(model: str, messages: list[dict[str, Any]], tools: Any = None) -> dict[str, Any]:
    """The assistant message the stand-in model `model` answers `messages` with."""
    if model == MALFORMED:
        return {"role": "assistant", "content": MALFORMED_TEXT}
    if model == SCRIPTED:
        kind = kind_of_tools(tools if isinstance(tools, list) else None)
        if kind is None:
            raise UnknownModel(
                "model 'scripted' plays the kind the request's tools show, and these show "
                f"none; name it: one of {', '.join(MODELS[1:-1])}"
            )
        return scripted_reply(kind, messages)
    check_model(model)
    return scripted_reply(model.removeprefix(f"{SCRIPTED}-"), messages)


def check_model(model: str) -> None:
    """UnknownModel, in one line naming the models, unless the stand-in plays `model`."""
    if model not in MODELS:
        raise UnknownModel(
            f"model {model!r} is not served here; expected one of {', '.join(MODELS)}"
        )


def _error(status: int, message: str) -> JSONResponse:
    """An error in the OpenAI shape, which every client reads."""
    return JSONResponse({"error": {"message": message, "type": "invalid_request_error"}}, status)


def chat_app() -> Starlette:
    """The stand-in; `app.state.requests` holds every request body, in order."""
    ids = itertools.count(1)

    async def completions(request: Request) -> JSONResponse:
        try:
            body = await request.json()
            messages = body["messages"]
            model = str(body["model"])
        except (ValueError, KeyError, TypeError):
            return _error(400, "expected a JSON body with 'model' and 'messages'")
        app.state.requests.append(body)
        try:
            message = reply_of(model, messages, body.get("tools"))
        except UnknownModel as exc:
            return _error(404, str(exc))
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        return JSONResponse(
            {
                "id": f"chatcmpl-{next(ids)}",
                "object": "chat.completion",
                "created": 0,
                "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            }
        )

    async def models(request: Request) -> JSONResponse:
        listed = [{"id": m, "object": "model", "created": 0, "owned_by": "taurec"} for m in MODELS]
        return JSONResponse({"object": "list", "data": listed})

    app = Starlette(
        routes=[
            Route("/v1/chat/completions", completions, methods=["POST"]),
            Route("/v1/models", models, methods=["GET"]),
        ]
    )
    app.state.requests = []
    return app
