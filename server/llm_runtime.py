"""litellm, loaded on first use and offline by default.

litellm is slow to import, so the modules that call it load it lazily through here. On
import it would fetch its model price map from the network unless told otherwise; the
benchmark runs offline by default, so the bundled map is used unless the environment
already says otherwise.
"""

from __future__ import annotations

import os
from types import ModuleType


def load_litellm() -> ModuleType:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    return litellm


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
