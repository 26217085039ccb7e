"""Calling a model provider as every LLM agent does: transient errors are retried with a
doubling backoff and become AgentInfraError when they persist; a refused key,
permission or model raises ProviderRefused at once (the run stops, no retry helps). A
reply's tokens and cost are added to the episode, so they reach the log's end record,
and the call itself is logged (`report_call`)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

import anyio

from taurec.catalog.llm_runtime import load_litellm, refusal_errors, transient_errors
from taurec.clients.agents.base import AgentInfraError, Episode, ProviderRefused
from taurec.tasks.trajectory.model_calls import call_settings, response_fields

log = logging.getLogger(__name__)
T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]


async def with_retries(
    call: Callable[[], Awaitable[T]],
    model: str,
    *,
    max_retries: int,
    backoff: float = 1.0,
    max_backoff: float = 30.0,
    timeout: float | None = None,
    sleep: Sleep | None = None,
    other_errors_are_infra: bool = False,
) -> T:
    """`call()`'s result. With `timeout`, a call that takes longer counts as a transient
    error. `other_errors_are_infra`: any other exception becomes AgentInfraError (else it
    propagates as it is)."""
    litellm = load_litellm()
    fatal = refusal_errors(litellm)
    retried = transient_errors(litellm) + ((TimeoutError,) if timeout is not None else ())
    for attempt in range(max_retries + 1):
        try:
            if timeout is None:
                return await call()
            with anyio.fail_after(timeout):
                return await call()
        except fatal as exc:
            raise ProviderRefused(f"{model}: {type(exc).__name__}: {exc}") from exc
        except retried as exc:
            if attempt == max_retries:
                raise AgentInfraError(
                    f"{model}: {type(exc).__name__} after {attempt + 1} attempts: {exc}"
                ) from exc
            wait = min(backoff * 2**attempt, max_backoff)
            log.warning("%s: %s; retrying in %.1fs", model, type(exc).__name__, wait)
            await (sleep or anyio.sleep)(wait)
        except Exception as exc:
            if not other_errors_are_infra:
                raise
            raise AgentInfraError(f"{model}: {type(exc).__name__}: {exc}") from exc
    raise AssertionError("unreachable")  # the loop returns or raises


def report_call(
    episode: Episode,
    response: Any,
    model: str,
    messages: Sequence[Mapping[str, Any]],
    kwargs: Mapping[str, Any] | None = None,
) -> None:
    """Add a reply's prompt and completion tokens, and its cost, to the episode, and log
    the call that got it (`model`, the `messages` sent, settings and tools from the call's
    litellm `kwargs`) with the episode's next tool call (model_calls.py)."""
    cost = _cost(response)
    fields = response_fields(response)
    usage = fields.get("usage")
    if usage is not None:
        episode.add_usage(usage["prompt_tokens"], usage["completion_tokens"], cost)
        if cost is not None:
            usage["cost_usd"] = cost
    kwargs = kwargs or {}
    episode.log_model_call(
        model=model,
        messages=messages,
        settings=call_settings(dict(kwargs)),
        tools=kwargs.get("tools") or None,
        **fields,
    )


def _cost(response: Any) -> float | None:
    """The call's cost in USD by litellm's price map; None when it has no price."""
    try:
        litellm = load_litellm()

        cost = litellm.completion_cost(completion_response=response)
    except Exception:  # unknown model or a response litellm cannot price
        return None
    return float(cost) if cost is not None else None
