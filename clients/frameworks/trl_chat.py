"""A `generate` for `make_rollout_func` that asks an OpenAI-compatible chat endpoint (a
vLLM server, `taurec mock-llm` offline) instead of a local model:

    with make_rollout_func(ChatGenerate("http://127.0.0.1:8001/v1", "scripted-ranking"),
                           tokenizer=tokenizer, suite="ranking:builtin") as rollout:
        out = rollout(["rank_000"])

It is sent the rollout's conversation as chat messages (system, the opening, the model's
turns, the environment's replies as user messages) and answers with the reply's text,
its tool calls written after it as Hermes `<tool_call>{...}</tool_call>` blocks, which
the environment reads as it reads a local model's. A chat endpoint gives no token ids
or logprobs, so the rollout's logprobs are None: good for trying the loop, not for
training on.
"""

from __future__ import annotations

import json
from typing import Any


class ChatGenerate:
    """`generate(messages) -> text` over an OpenAI-compatible chat endpoint at `base_url`,
    with `model`; other keywords go to each `chat.completions.create`."""

    #: make_rollout_func passes this generate the conversation, not the rendered text.
    takes_messages = True

    def __init__(self, base_url: str, model: str, api_key: str = "none", **create: Any) -> None:
        from openai import OpenAI

        self.client = OpenAI(base_url=base_url, api_key=api_key)
        self.model, self.create = model, create

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        sent: Any = messages  # plain role/content dicts, as the endpoint reads them
        reply = self.client.chat.completions.create(model=self.model, messages=sent, **self.create)
        message = reply.choices[0].message
        text = message.content or ""
        for call in message.tool_calls or []:
            function = getattr(call, "function", None)
            if function is None:
                continue
            named = {"name": function.name, "arguments": json.loads(function.arguments or "{}")}
            text += f"<tool_call>{json.dumps(named)}</tool_call>"
        return text
