"""litellm, loaded on first use and offline by default.

litellm is slow to import, so the modules that call it load it lazily through here. On
import it would fetch its model price map from the network unless told otherwise; the
benchmark runs offline by default, so the bundled map is used unless the environment
already says otherwise.
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import Final


def load_litellm() -> ModuleType:
    """litellm, quiet: no banners ("Give Feedback / Get Help", provider lists) on stdout,
    no debug prints; its warnings still reach the `LiteLLM` logger."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    litellm.set_verbose = False
    return litellm


def refusal_errors(litellm: ModuleType) -> tuple[type[BaseException], ...]:
    """litellm's errors that no retry mends and that every call would meet again: a bad
    key, no permission, an unknown model. A run meeting one stops."""
    return (litellm.AuthenticationError, litellm.PermissionDeniedError, litellm.NotFoundError)


def transient_errors(litellm: ModuleType) -> tuple[type[BaseException], ...]:
    """litellm's errors worth retrying: rate limits, timeouts, connection and server-side
    failures (as opposed to a bad key, no access or an unknown model)."""
    return (
        litellm.RateLimitError,
        litellm.APIConnectionError,  # includes litellm.Timeout
        litellm.Timeout,
        litellm.ServiceUnavailableError,
        litellm.InternalServerError,
        litellm.BadGatewayError,
    )


#: Providers that run on this machine: litellm lists their base URL as missing, but they
#: work with their default one.
_LOCAL_PROVIDERS: Final = frozenset({"ollama", "ollama_chat", "lm_studio", "llamafile"})
#: Model names that never reach a provider (the LLM agent's `mock`).
_OFFLINE_MODELS: Final = frozenset({"mock"})


def missing_credentials(model: str) -> list[str]:
    """The environment variables litellm needs for `model` and does not find (read after
    `.env` has been loaded); [] when it has them all or cannot tell."""
    if model in _OFFLINE_MODELS:
        return []
    provider = model.split("/", 1)[0] if "/" in model else ""
    litellm = load_litellm()
    try:
        found = litellm.validate_environment(model)
    except Exception:  # a model string litellm cannot place: the first call will say so
        return []
    missing = [str(v) for v in found.get("missing_keys") or []]
    if provider in _LOCAL_PROVIDERS:
        missing = [v for v in missing if not v.endswith(("_API_BASE", "_BASE_URL"))]
    return missing
