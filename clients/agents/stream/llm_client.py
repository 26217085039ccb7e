"""One litellm model as the stream agents call it: a prompt in, the reply's text out.

BIEL sends each prompt as a single user message, at a temperature set per prompt; a
temperature the user gave (`--temperature`) replaces every one of them. Transient
provider errors are retried with backoff and raise AgentInfraError when they persist; a
refused key, permission or model raises ProviderRefused at once (the run stops); a call
taking over two minutes counts as transient. Tokens and cost are added to the episode,
so they reach the log's end record, and each call is logged (model_calls.py). The model `mock`
answers through litellm's `mock_response` with the stand-in replies of mock.py.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Final

from taurec.catalog.llm_runtime import load_litellm
from taurec.clients.agents.base import Episode
from taurec.clients.agents.llm_mock import MOCK_MODEL, is_mock
from taurec.clients.agents.provider_calls import report_call, with_retries
from taurec.clients.agents.stream.mock import mock_stream_reply

#: Seconds one call may take before it counts as a transient error (as the LLM agent's).
CALL_TIMEOUT: Final = 120.0
#: litellm's `acompletion` or a stand-in with its keyword arguments (tests).
Completion = Callable[..., Any]


class LLMClient:
    """Calls `model` (a litellm model string) for one stream's agent."""

    def __init__(
        self,
        model: str,
        episode: Episode | None = None,
        *,
        temperature: float | None = None,
        reasoning_effort: str | None = None,
        completion: Completion | None = None,
        max_retries: int = 4,
        timeout: float = CALL_TIMEOUT,
    ) -> None:
        self.model = model
        self.temperature = temperature  # the user's; None: each prompt's own
        self.reasoning_effort = reasoning_effort
        self._episode = episode
        self._completion = completion
        self._max_retries = max_retries
        self._timeout = timeout

    async def reply(self, prompt: str, temperature: float) -> str:
        """The model's reply to `prompt`, sent at `temperature` unless the user set one."""
        litellm = load_litellm()
        completion = self._completion or litellm.acompletion
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": temperature if self.temperature is None else self.temperature,
            "drop_params": True,  # a model that takes no temperature gets none
        }
        if self.reasoning_effort is not None:
            kwargs["reasoning_effort"] = self.reasoning_effort
        if is_mock(self.model):  # litellm answers with the stand-in reply; no provider
            kwargs.update(model=f"openai/{MOCK_MODEL}", mock_response=mock_stream_reply(prompt))

        async def call() -> Any:
            result = completion(**kwargs)
            return await result if inspect.isawaitable(result) else result

        reply = await with_retries(
            call,
            self.model,
            max_retries=self._max_retries,
            timeout=self._timeout,
            other_errors_are_infra=True,
        )
        if self._episode is not None:
            report_call(self._episode, reply, self.model, kwargs["messages"], kwargs)
        return str(reply.choices[0].message.content or "")
