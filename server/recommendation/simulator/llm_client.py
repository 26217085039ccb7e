"""Calling the LLM behind a simulated user: settings, the reply cache, retries, and the
token and cost tally.

litellm is imported on the first real call, not with this module: importing it is slow
and, unless LITELLM_LOCAL_MODEL_COST_MAP=True, fetches a price list over the network,
which a server that only runs the rule-based user should not do.
"""

from __future__ import annotations

import logging
import re
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from taurec.catalog.llm_runtime import load_litellm, transient_errors
from taurec.server.model_call_log import emit_model_call
from taurec.server.recommendation.simulator.reply_cache import ReplyCache, cache_key
from taurec.tasks.trajectory.model_calls import call_settings, response_fields

log = logging.getLogger(__name__)

Message = dict[str, str]  # {"role": "system" | "user" | "assistant", "content": ...}

# litellm keyword arguments that never change a reply: left out of cache keys and records
_SECRET = re.compile(r"key|token|secret|password|credential|authorization", re.I)
_NO_EFFECT = frozenset({"timeout", "num_retries", "max_retries", "metadata"})


class SimulatorUnavailable(RuntimeError):
    """The LLM could not be reached (retries exhausted, or a configuration the provider
    refuses). The episode cannot go on: the server logs it as an infrastructure error."""


class LLMUserSettings(BaseModel):
    """How an LLM-simulated user calls its model. `record()` is what an episode header logs."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    model: str = Field(min_length=1, description="Any litellm model string, e.g. 'openai/gpt-4o'.")
    variant: Literal["single", "dual"] = Field(
        default="single",
        description="single: one call writes the reply and may leave; dual: a first call "
        "decides CONTINUE or STOP, a second writes the reply (UserSimCRS v2).",
    )
    temperature: float = Field(default=1.0, ge=0, le=2)
    max_tokens: int = Field(default=300, ge=1, description="Per call.")
    timeout: float = Field(default=60.0, gt=0, description="Seconds per call.")
    max_regenerations: int = Field(
        default=2, ge=0, description="Rewrites of a leaking reply before the rule-based fallback."
    )
    max_retries: int = Field(default=4, ge=0, description="Retries of a transient LLM error.")
    backoff_seconds: float = Field(
        default=1.0, ge=0, description="Wait before the first retry; doubles each time."
    )
    backoff_max_seconds: float = Field(default=30.0, ge=0)
    cache_dir: Path | None = Field(
        default=Path(".taurec-cache/llm-user"), description="Reply cache folder; None: no cache."
    )
    patience: int | None = Field(
        default=None,
        ge=1,
        description="Fruitless turns (as the rule-based user counts them) after which the "
        "user leaves whatever the model wants; None: the model alone decides.",
    )
    acts: Literal["structured", "classifier"] = Field(
        default="structured",
        description="How the user's dialogue acts are logged: 'structured' (the model ends "
        "each reply with an ACTS: line; acts_by 'llm') or 'classifier' (one more call per "
        "reply classifies it; acts_by 'llm-classifier').",
    )
    litellm_kwargs: dict[str, Any] = Field(
        default_factory=dict,
        description="Extra keyword arguments for every completion call (api_base, "
        "mock_response, ...); they override the ones above.",
    )
    completion: Callable[..., Any] | None = Field(
        default=None,
        exclude=True,
        description="Replaces litellm.completion (tests); same signature. None: litellm's.",
    )
    sleep: Callable[[float], None] | None = Field(
        default=None, exclude=True, description="Replaces time.sleep between retries (tests)."
    )

    def record(self) -> dict[str, Any]:
        """The settings as JSON for a log header, with secret-looking kwargs redacted."""
        out = self.model_dump(mode="json")
        out["litellm_kwargs"] = {
            k: "<redacted>" if _SECRET.search(k) else v for k, v in self.litellm_kwargs.items()
        }
        return out

    def output_kwargs(self) -> dict[str, Any]:
        """litellm kwargs that can change a reply (for cache keys), secrets left out."""
        return {
            k: v
            for k, v in sorted(self.litellm_kwargs.items())
            if not _SECRET.search(k) and k not in _NO_EFFECT
        }


@dataclass
class CallStats:
    """What calling the model cost one episode."""

    llm_calls: int = 0  # completions that reached the model (cache misses)
    cache_hits: int = 0
    retries: int = 0  # transient errors retried
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0  # over priced calls only
    unpriced_calls: int = 0  # calls litellm has no price for (local or mocked models)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _error_kind(exc: Exception) -> str | None:
    """ "transient" (worth retrying), "provider" (litellm refused: key, model, request) or
    None (not litellm's: a bug to surface as it is)."""
    litellm = sys.modules.get("litellm")  # not imported: the error cannot be litellm's
    if litellm is None:
        return None
    if isinstance(exc, transient_errors(litellm)):
        return "transient"
    # litellm's exceptions derive from its own and from openai's classes
    owners = {c.__module__.split(".")[0] for c in type(exc).__mro__}
    return "provider" if owners & {"litellm", "openai"} else None


def _said(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def _content(response: Any) -> str:
    try:
        text = response.choices[0].message.content
    except (AttributeError, IndexError, KeyError, TypeError):
        return ""
    return text if isinstance(text, str) else ""


class LLMClient:
    """Completions for one episode: cached, retried, and tallied in `stats`."""

    def __init__(self, settings: LLMUserSettings, seed: int, caller: str = "user") -> None:
        """`caller` names whose calls these are in the log: the user's, or the "nlu"'s."""
        self.settings = settings
        self.seed = seed
        self.caller = caller
        self.stats = CallStats()
        self.cache = ReplyCache(settings.cache_dir) if settings.cache_dir is not None else None

    def complete(self, messages: list[Message], purpose: str) -> str:
        """The model's text for `messages` ("" when it sent none). `purpose` names the
        call ("reply", "decide", "reply:regen1", ...) and keeps cache entries apart.
        Raises SimulatorUnavailable."""
        s = self.settings
        key = cache_key(
            model=s.model,
            variant=s.variant,
            temperature=s.temperature,
            max_tokens=s.max_tokens,
            seed=self.seed,  # trials of one task are distinct samples, not one cached reply
            purpose=purpose,
            messages=messages,
            kwargs=s.output_kwargs(),
        )
        if self.cache is not None and (hit := self.cache.get(key)) is not None:
            self.stats.cache_hits += 1
            self._log(messages, purpose, {"output": _said(hit), "cache_hit": True})
            return hit
        response = self._call(messages)
        text = _content(response)
        self._tally(response)
        fields = {**response_fields(response), "output": _said(text), "cache_hit": False}
        cost = _cost(response)
        if cost is not None:
            fields["usage"] = {**fields.get("usage", {}), "cost_usd": cost}
        self._log(messages, purpose, fields)
        if self.cache is not None:
            self.cache.put(key, text, model=s.model, purpose=purpose, seed=self.seed)
        return text

    def _log(self, messages: list[Message], purpose: str, fields: dict[str, Any]) -> None:
        """The call in the running episode's log (see model_call_log.emit_model_call)."""
        s = self.settings
        settings = {"temperature": s.temperature, "max_tokens": s.max_tokens, "seed": self.seed}
        settings.update(call_settings(s.litellm_kwargs))
        emit_model_call(
            self.caller, s.model, messages, purpose=purpose, settings=settings, **fields
        )

    def _call(self, messages: list[Message]) -> Any:
        s = self.settings
        completion = s.completion
        if completion is None:
            litellm = load_litellm()

            completion = litellm.completion
        kwargs: dict[str, Any] = {
            "model": s.model,
            "messages": messages,
            "temperature": s.temperature,
            "max_tokens": s.max_tokens,
            "timeout": s.timeout,
            "seed": self.seed,
            "drop_params": True,  # providers without `seed` ignore it instead of failing
            **s.litellm_kwargs,
        }
        sleep = s.sleep or time.sleep
        for attempt in range(s.max_retries + 1):
            try:
                return completion(**kwargs)
            except Exception as exc:
                kind = _error_kind(exc)
                if kind is None:
                    raise
                if kind == "provider":  # authentication, bad request, unknown model, ...
                    raise SimulatorUnavailable(f"{s.model}: {type(exc).__name__}: {exc}") from exc
                if attempt == s.max_retries:
                    raise SimulatorUnavailable(
                        f"{s.model}: {type(exc).__name__} after {attempt + 1} attempts: {exc}"
                    ) from exc
                self.stats.retries += 1
                wait = min(s.backoff_max_seconds, s.backoff_seconds * 2**attempt)
                log.warning("%s: %s; retrying in %.1fs", s.model, type(exc).__name__, wait)
                sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover

    def _tally(self, response: Any) -> None:
        st = self.stats
        st.llm_calls += 1
        usage = getattr(response, "usage", None)
        st.prompt_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
        st.completion_tokens += int(getattr(usage, "completion_tokens", 0) or 0)
        cost = _cost(response)
        if cost is None:
            st.unpriced_calls += 1
        else:
            st.cost_usd += cost


def _cost(response: Any) -> float | None:
    """litellm's price of one response; None when it has none (unknown or mocked model,
    or a response that did not come from litellm)."""
    litellm = sys.modules.get("litellm")
    if litellm is None:
        return None
    try:
        cost = litellm.completion_cost(completion_response=response)
    except Exception:  # litellm raises many kinds for "no price for this model"
        return None
    return float(cost) if isinstance(cost, int | float) else None
