"""Calling a model provider as every LLM agent does: transient errors are retried with a
doubling backoff and become AgentInfraError when they persist; a refused key,
permission or model raises ProviderRefused at once (the run stops, no retry helps)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio

from taurec.catalog.llm_runtime import load_litellm, refusal_errors, transient_errors
from taurec.clients.agents.base import AgentInfraError, ProviderRefused

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
