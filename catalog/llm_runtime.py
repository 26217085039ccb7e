"""litellm, loaded on first use and offline by default.

litellm is slow to import, so the modules that call it load it lazily through here. On
import it would fetch its model price map from the network unless told otherwise; the
benchmark runs offline by default, so the bundled map is used unless the environment
already says otherwise.

Every litellm path of the project (the LLM agent, the simulated user and its NLU/NLG, the
stream customer, the judge, utility scoring) loads it through `load_litellm`, which makes
it quiet: no banners, no debug prints, its own log handler at ERROR unless LITELLM_LOG
asks for more.
"""

from __future__ import annotations

import logging
import os
from types import ModuleType
from typing import Final

from taurec.catalog.llm_credentials import LOCAL_PROVIDERS, known_missing, provider_of

#: litellm's loggers (its handler writes to stdout and stderr from them).
LITELLM_LOGGERS: Final = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")


def load_litellm() -> ModuleType:
    """litellm, quiet: no banners ("Give Feedback / Get Help", provider lists) on stdout,
    no debug prints, and its loggers at ERROR (what goes wrong in a call is reported by
    the caller, in one line) unless LITELLM_LOG names a level."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    asked = os.environ.get("LITELLM_LOG")
    os.environ.setdefault("LITELLM_LOG", "ERROR")  # read once, by litellm's import
    import litellm

    litellm.suppress_debug_info = True
    litellm.set_verbose = False
    if not asked:
        for name in LITELLM_LOGGERS:
            logging.getLogger(name).setLevel(logging.ERROR)
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


#: Model names that never reach a provider (the LLM agent's and the judge's `mock`).
_OFFLINE_MODELS: Final = frozenset({"mock"})


def missing_credentials(model: str) -> list[str]:
    """The environment variables litellm needs for `model` and does not find (read after
    `.env` has been loaded); [] when it has them all or cannot tell. A model whose provider
    its name tells (`openai/...`) is answered without importing litellm."""
    if model in _OFFLINE_MODELS:
        return []
    known = known_missing(model)
    if known is not None:
        return known
    provider = provider_of(model) or ""
    litellm = load_litellm()
    try:
        found = litellm.validate_environment(model)
    except Exception:  # a model string litellm cannot place: the first call will say so
        return []
    missing = [str(v) for v in found.get("missing_keys") or []]
    if provider in LOCAL_PROVIDERS:
        missing = [v for v in missing if not v.endswith(("_API_BASE", "_BASE_URL"))]
    return missing
