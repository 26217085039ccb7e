"""`inspect eval ... --model taurec/scripted`: the stand-in model of `taurec mock-llm`
(taurec's scripted policy over the conversation, clients/frameworks/mock_llm.py) as an
Inspect model provider, so Inspect's command line can be tried offline.

Inspect's own OpenAI-compatible providers (`openai/...`, `openai-api/...`) need openai
3.4 or later, which the litellm taurec pins (below 1.108) does not install beside it, so
Inspect cannot reach `taurec mock-llm` over HTTP in taurec's environment; this provider
plays the same model in process. Model names as the stand-in's: `taurec/scripted` (the
kind the sample's tools show), `taurec/scripted-<kind>`, `taurec/malformed`. Each reply
reports 10 input and 5 output tokens, so Inspect counts no tokens itself (that would
download a tokenizer).
"""

from __future__ import annotations

import json
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from taurec.clients.frameworks.mock_llm import check_model, reply_of


class ScriptedModel(ModelAPI):
    """The stand-in model, named by `model_name` (scripted, scripted-<kind>, malformed)."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),  # noqa: B008 (Inspect's own signature)
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        check_model(model_name)  # an unknown name is refused here, in one line

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        messages = [{"role": m.role, "content": m.text} for m in input]
        offered = [{"type": "function", "function": {"name": t.name}} for t in tools]
        reply = reply_of(self.model_name, messages, offered)
        calls = reply.get("tool_calls")
        if calls:
            function = calls[0]["function"]
            name, arguments = function["name"], json.loads(function["arguments"])
            output = ModelOutput.for_tool_call(self.model_name, name, arguments)
        else:
            output = ModelOutput.from_content(self.model_name, str(reply["content"]))
        output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return output


@modelapi(name="taurec")
def taurec_models() -> type[ModelAPI]:
    """The `taurec/...` model provider (Inspect registers providers as such functions)."""
    return ScriptedModel
