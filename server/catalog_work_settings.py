"""How the server runs catalog work (searches and filters) off its event loop: the length
of a query, the worker threads, one client's share of them, the work budget of one call
and the stall guard. Part of `ServerSettings`; see server/recommendation/catalog_workers.py."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class CatalogWorkSettings(BaseModel):
    """The catalog-work fields every `ServerSettings` carries."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_query_chars: int = Field(
        default=500,
        ge=1,
        le=100_000,
        description="Longest search_catalog query, in characters (a search's work grows with "
        "its words); a longer one is refused like an over-long text argument.",
    )
    catalog_workers: int | None = Field(
        default=None,
        ge=1,
        le=1024,
        description="Threads that run catalog searches and filters off the event loop "
        "(default: the cores this process may use).",
    )
    catalog_workers_per_client: int | None = Field(
        default=None,
        ge=1,
        le=1024,
        description="Of those threads, how many one client's calls may hold at once; its "
        "further calls wait for one of its own (default: half, at least one).",
    )
    catalog_call_seconds: float = Field(
        default=5.0,
        gt=0,
        le=3600,
        description="Work budget of one search or filter call: CPU time in its thread (wall "
        "time where threads have no clock of their own), its wait for a thread not counted; "
        "past it the call ends with an error (its result, if it comes, dropped).",
    )
    catalog_call_stall_seconds: float = Field(
        default=120.0,
        gt=0,
        le=86_400,
        description="Wall time one search or filter call may go unanswered, waiting and "
        "working; past it the machine or the server is at fault, not the agent, and the "
        "episode ends as infra_error.",
    )
