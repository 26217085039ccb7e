"""Telling an outage from an agent's failure, whatever framework raised it.

An outage is a failure of the model's provider or of the connection to it (no network,
a refused key, a rate limit, a timeout, a server error), never the model's own answer
nor the agent's code: an episode it stops is ended as infra_error with its cause, kept
apart from the agent's errors, as `taurec run` ends one whose provider failed
(provider_calls.py). Frameworks wrap the provider's exception in their own (verifiers'
ModelError, pydantic-ai's ModelAPIError), so the whole chain of causes is read.
"""

from __future__ import annotations

from typing import Final

#: Where a model provider's exceptions, and those of the HTTP clients under them, come from.
PROVIDER_MODULES: Final = frozenset(
    {"openai", "litellm", "anthropic", "google", "groq", "mistralai", "cohere", "httpx", "httpcore"}
)
#: Provider answers about the request itself (a prompt too long, a bad argument): the
#: agent's conversation, not an outage.
REQUEST_STATUSES: Final = frozenset({400, 413, 422})
#: How many causes are followed, at most.
MAX_CHAIN: Final = 8
#: The longest cause told (abort_episode keeps 2,000 characters of a detail).
MAX_CAUSE_CHARS: Final = 1500


def causes(exc: BaseException) -> list[BaseException]:
    """`exc`, then what caused it, and so on (an exception group by its first member)."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain and len(chain) < MAX_CHAIN:
        if isinstance(current, BaseExceptionGroup) and current.exceptions:
            current = current.exceptions[0]
            continue
        chain.append(current)
        suppressed = current.__suppress_context__
        current = current.__cause__ or (None if suppressed else current.__context__)
    return chain


def is_outage(exc: BaseException) -> bool:
    """Whether `exc` itself is a provider's or a connection's failure."""
    if isinstance(exc, ConnectionError):
        return True
    status = getattr(exc, "status_code", None)
    if isinstance(status, int) and status in REQUEST_STATUSES:
        return False
    return any(cls.__module__.split(".")[0] in PROVIDER_MODULES for cls in type(exc).__mro__)


def said(exc: BaseException) -> str:
    """An exception in one line: its type and its message's first line."""
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


def outage_cause(exc: BaseException) -> str | None:
    """The chain of causes in one line when an outage is among them (outermost first,
    joined by ' <- '), else None: then the failure is the agent's."""
    chain = causes(exc)
    if not any(is_outage(link) for link in chain):
        return None
    return " <- ".join(said(link) for link in chain)[:MAX_CAUSE_CHARS]


def outage_detail(cause: str) -> str:
    """An infra_error end's detail for an outage whose cause is `cause`."""
    return f"the model's provider or the connection to it failed: {cause}"
