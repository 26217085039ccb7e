"""The read-only tools, as pure functions: (catalog, task, arguments) -> a pydantic result.

The MCP tools call these, and the evaluator's replay calls `replay_call` with the
arguments an episode log recorded: a logged result's `content` is always
`result.model_dump(mode="json")`, so replay compares like with like. Everything here is
deterministic (catalog search and filter break ties by item id) and free of I/O.
Bad arguments raise `ArgumentError` naming the argument and what was expected.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from taurec.catalog.availability import Availability, UnknownItem, streams_on
from taurec.catalog.filter import FilterError, FilterPage, FilterSpec, ItemSummary
from taurec.catalog.item import AGE_RESTRICTED_RATINGS, ContentRating, Item
from taurec.catalog.search import MAX_LIMIT, QueryError
from taurec.catalog.store import Catalog
from taurec.tasks.errors import ArgumentError, from_validation_error, short_repr
from taurec.tasks.recommendation.task import RecommendationTask

DEFAULT_SEARCH_LIMIT: Final = 10
MAX_SEARCH_LIMIT: Final = MAX_LIMIT
#: Arguments every episode tool takes that do not change what a read-only tool returns.
EPISODE_ARGUMENTS: Final = frozenset({"episode_id"})


# --- results ------------------------------------------------------------------------------


class ScoredItem(ItemSummary):
    """A search hit: the item's listing fields and its relevance."""

    score: float = Field(description="Relevance; higher is better. Exact title matches rank first.")


class SearchResults(BaseModel):
    """Ranked free-text search results."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    query: str = Field(description="The query as searched.")
    hits: list[ScoredItem] = Field(description="Best first; ties broken by item id.")


class WatchedItem(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    item_id: str
    title: str | None = Field(description="Catalog title; null if the id is not in this catalog.")
    year: int | None = None
    rating: float | None = Field(description="The user's own 0-10 rating, if they gave one.")


class UserHistory(BaseModel):
    """What this episode's user has already watched."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    user_id: str
    watched: list[WatchedItem] = Field(
        description="Watched titles, in the order the profile lists."
    )


class ContentPreference(BaseModel):
    """Whether this episode's user profile allows a title (or a maturity rating)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    item_id: str | None = Field(description="The title asked about, if one was given.")
    content_rating: ContentRating = Field(description="The rating that was checked.")
    allowed: bool = Field(description="False when the profile (age, maturity limit) blocks it.")
    age_restricted: bool = Field(description="True for R and NC-17.")
    reason: str = Field(description="Why, in one line.")


# --- the tools ----------------------------------------------------------------------------


def _item(catalog: Catalog, item_id: object) -> Item:
    if not isinstance(item_id, str) or not item_id.strip():
        raise ArgumentError(
            "item_id", f"expected a catalog item id such as 'syn_000042', got {short_repr(item_id)}"
        )
    item = catalog.get(item_id)
    if item is None:
        raise ArgumentError(
            "item_id",
            f"{short_repr(item_id)} is not a catalog id; expected an id from "
            "search_catalog or filter_catalog results",
        )
    return item


def search_catalog(
    catalog: Catalog, query: str, limit: int = DEFAULT_SEARCH_LIMIT
) -> SearchResults:
    """BM25 search over titles, overviews, genres, people and keywords."""
    if not isinstance(limit, int) or isinstance(limit, bool):
        raise ArgumentError("limit", f"expected a whole number, got {short_repr(limit)}")
    try:
        hits = catalog.search(query, limit=limit)
    except QueryError as exc:
        argument = "limit" if str(exc).startswith("limit") else "query"
        raise ArgumentError(argument, str(exc).removeprefix(f"{argument} ")) from None
    scored = []
    for hit in hits:
        item = catalog.get(hit.item_id)
        assert item is not None  # hits come from the catalog
        summary = ItemSummary.of(item)
        scored.append(ScoredItem.model_construct(**dict(summary), score=hit.score))
    return SearchResults(query=query, hits=scored)


def filter_catalog(catalog: Catalog, spec: FilterSpec) -> FilterPage:
    """One page of items matching every predicate in `spec`."""
    try:
        return catalog.filter(spec)
    except FilterError as exc:
        raise ArgumentError("cursor", str(exc)) from None


def get_item(catalog: Catalog, item_id: str) -> Item:
    """Every metadata field of one item."""
    return _item(catalog, item_id)


def check_availability(
    catalog: Catalog, item_id: str, services: list[str], asked: list[str] | None = None
) -> Availability:
    """Whether the item streams on any of `services` (the episode user's subscriptions);
    with `asked` (services the caller named), also whether it streams on each of those."""
    item = _item(catalog, item_id)
    try:
        result = catalog.availability(item.id, services)
    except UnknownItem as exc:  # pragma: no cover - _item already checked
        raise ArgumentError("item_id", str(exc)) from None
    if asked is None:
        return result
    return result.model_copy(update={"asked": streams_on(item, asked)})


def get_user_history(catalog: Catalog, task: RecommendationTask) -> UserHistory:
    """The episode user's watch history, with catalog titles."""
    watched = []
    for entry in task.user.watch_history:
        item = catalog.get(entry.item_id)
        watched.append(
            WatchedItem(
                item_id=entry.item_id,
                title=item.title if item else None,
                year=item.year if item else None,
                rating=entry.rating,
            )
        )
    return UserHistory(user_id=task.user.user_id, watched=watched)


def check_content_preference(
    catalog: Catalog,
    task: RecommendationTask,
    item_id: str | None = None,
    content_rating: ContentRating | str | None = None,
) -> ContentPreference:
    """The maturity gate for one title or one rating: exactly one of the two."""
    if (item_id is None) == (content_rating is None):
        raise ArgumentError(
            "item_id",
            "expected exactly one of item_id (a catalog id) or content_rating "
            "(G, PG, PG-13, R, NC-17 or NR)",
        )
    if item_id is not None:
        item = _item(catalog, item_id)
        rating = item.content_rating
    else:
        assert content_rating is not None  # exactly one of the two, checked above
        try:
            rating = ContentRating(content_rating)
        except ValueError:
            valid = ", ".join(r.value for r in ContentRating)
            raise ArgumentError(
                "content_rating", f"expected one of {valid}, got {short_repr(content_rating)}"
            ) from None
    allowed, reason = task.user.content_allowed(rating)
    return ContentPreference(
        item_id=item_id,
        content_rating=rating,
        allowed=allowed,
        age_restricted=rating in AGE_RESTRICTED_RATINGS,
        reason=reason,
    )


# --- replay -------------------------------------------------------------------------------


def filter_spec(arguments: Mapping[str, Any]) -> FilterSpec:
    """The FilterSpec a filter_catalog call's arguments describe (episode arguments aside)."""
    fields = {k: v for k, v in arguments.items() if k not in EPISODE_ARGUMENTS}
    try:
        return FilterSpec.model_validate(fields)
    except ValidationError as exc:
        raise from_validation_error(exc) from None


def _only(arguments: Mapping[str, Any], *allowed: str) -> dict[str, Any]:
    extra = sorted(set(arguments) - set(allowed) - EPISODE_ARGUMENTS)
    if extra:
        raise ArgumentError(extra[0], "is not an argument of this tool")
    return {k: v for k, v in arguments.items() if k in allowed}


def _text(arguments: Mapping[str, Any], name: str) -> str:
    value = arguments.get(name)
    if not isinstance(value, str):
        raise ArgumentError(name, f"expected a string, got {short_repr(value)}")
    return value


def _replay_search(catalog: Catalog, task: RecommendationTask, a: Mapping[str, Any]) -> BaseModel:
    args = _only(a, "query", "limit")
    limit = args.get("limit", DEFAULT_SEARCH_LIMIT)
    return search_catalog(catalog, _text(args, "query"), limit)


def _replay_filter(catalog: Catalog, task: RecommendationTask, a: Mapping[str, Any]) -> BaseModel:
    return filter_catalog(catalog, filter_spec(a))


def _replay_item(catalog: Catalog, task: RecommendationTask, a: Mapping[str, Any]) -> BaseModel:
    return get_item(catalog, _text(_only(a, "item_id"), "item_id"))


def _replay_availability(
    catalog: Catalog, task: RecommendationTask, a: Mapping[str, Any]
) -> BaseModel:
    args = _only(a, "item_id", "services")
    asked = args.get("services")
    if asked is not None and not (
        isinstance(asked, list) and all(isinstance(s, str) for s in asked)
    ):
        raise ArgumentError(
            "services", f"expected a list of service names, got {short_repr(asked)}"
        )
    return check_availability(catalog, _text(args, "item_id"), list(task.user.services), asked)


def _replay_history(catalog: Catalog, task: RecommendationTask, a: Mapping[str, Any]) -> BaseModel:
    _only(a)
    return get_user_history(catalog, task)


def _replay_content(catalog: Catalog, task: RecommendationTask, a: Mapping[str, Any]) -> BaseModel:
    args = _only(a, "item_id", "content_rating")
    return check_content_preference(catalog, task, args.get("item_id"), args.get("content_rating"))


Replayer = Callable[[Catalog, RecommendationTask, Mapping[str, Any]], BaseModel]

REPLAYERS: Final[Mapping[str, Replayer]] = MappingProxyType(
    {
        "search_catalog": _replay_search,
        "filter_catalog": _replay_filter,
        "get_item": _replay_item,
        "check_availability": _replay_availability,
        "get_user_history": _replay_history,
        "check_content_preference": _replay_content,
    }
)
#: Tools whose results depend only on (catalog, task, arguments).
READ_ONLY_TOOLS: Final = frozenset(REPLAYERS)


def replay_call(
    catalog: Catalog, task: RecommendationTask, name: str, arguments: Mapping[str, Any]
) -> dict[str, Any] | None:
    """Re-run a logged read-only call: the `content` its tool_result should hold.

    None for tools that are not replayable (send_message, recommend, start_episode, ...).
    Raises ArgumentError when the arguments are bad, as the original call did.
    """
    replayer = REPLAYERS.get(name)
    if replayer is None:
        return None
    return replayer(catalog, task, arguments).model_dump(mode="json")
