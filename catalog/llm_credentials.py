"""The API key a model needs, told from its name alone, without importing litellm.

litellm takes seconds to import, and a missing key is the commonest first mistake: a
command given `openai/gpt-4o` without OPENAI_API_KEY should say so at once. For the
providers below the provider is known from the model name (litellm's `provider/model`
prefix), and the variables are the ones litellm's `validate_environment` checks for it
(a test compares the two). Any other model, a bare name such as `gpt-4o` included (litellm
places those by its own model list), is left to litellm
(`llm_runtime.missing_credentials`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class ProviderKeys:
    accepted: tuple[str, ...]  # any one of these set is enough
    named: tuple[str, ...]  # what litellm names as missing when none is set


def _one(name: str) -> ProviderKeys:
    return ProviderKeys((name,), (name,))


#: litellm provider prefix -> the variables its validate_environment looks for.
PROVIDER_KEYS: Final[dict[str, ProviderKeys]] = {
    "openai": _one("OPENAI_API_KEY"),
    "anthropic": ProviderKeys(
        ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"), ("ANTHROPIC_API_KEY",)
    ),
    "gemini": ProviderKeys(
        ("GOOGLE_API_KEY", "GEMINI_API_KEY"), ("GOOGLE_API_KEY", "GEMINI_API_KEY")
    ),
    "groq": _one("GROQ_API_KEY"),
    "mistral": _one("MISTRAL_API_KEY"),
    "deepseek": _one("DEEPSEEK_API_KEY"),
    "openrouter": _one("OPENROUTER_API_KEY"),
    "together_ai": _one("TOGETHERAI_API_KEY"),
    "xai": _one("XAI_API_KEY"),
    "cohere": _one("COHERE_API_KEY"),
    "perplexity": _one("PERPLEXITYAI_API_KEY"),
    "deepinfra": _one("DEEPINFRA_API_KEY"),
    "cerebras": _one("CEREBRAS_API_KEY"),
    "fireworks_ai": ProviderKeys(
        ("FIREWORKS_AI_API_KEY", "FIREWORKS_API_KEY", "FIREWORKSAI_API_KEY", "FIREWORKS_AI_TOKEN"),
        ("FIREWORKS_AI_API_KEY",),
    ),
}
#: Providers that run on this machine: litellm lists their base URL as missing, but they
#: work with their default one.
LOCAL_PROVIDERS: Final = frozenset({"ollama", "ollama_chat", "lm_studio", "llamafile"})


def provider_of(model: str) -> str | None:
    """The provider prefix of `model` (`openai/gpt-4o` -> `openai`); None without one."""
    return model.split("/", 1)[0] if "/" in model else None


def known_missing(model: str) -> list[str] | None:
    """The variables `model` needs and the environment lacks ([] when it has them), for a
    provider in PROVIDER_KEYS or LOCAL_PROVIDERS; None when only litellm can tell."""
    provider = provider_of(model)
    if provider in LOCAL_PROVIDERS:
        return []
    keys = PROVIDER_KEYS.get(provider or "")
    if keys is None:
        return None
    return [] if any(name in os.environ for name in keys.accepted) else list(keys.named)
