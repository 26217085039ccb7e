"""What an episode checks of the agent's input before a step: a message that is text, an
item id that is a catalog id or null (never the string "null"), and a usage report
reduced to the fields a log may hold."""

from __future__ import annotations

from typing import Any, Final

from taurec.catalog.store import Catalog
from taurec.tasks.errors import ArgumentError, short_repr
from taurec.tasks.trajectory.format import Usage

#: Strings an agent sends meaning "abstain": refused, since abstaining is JSON null.
NULL_SPELLINGS: Final = frozenset({"", "null", "none", "nil", "undefined"})


def committable(item_id: str | None, catalog: Catalog) -> str | None:
    """The title of the item to commit (None to abstain); ArgumentError if it is neither."""
    if item_id is None:
        return None
    item = catalog.get(item_id)
    if item is not None:
        return item.title
    if item_id.strip().casefold() in NULL_SPELLINGS:
        raise ArgumentError(
            "item_id",
            f"{short_repr(item_id)} is a string, not an item id; to abstain, pass JSON null "
            "(no quotes); to recommend, pass a catalog id. Nothing was committed.",
        )
    raise ArgumentError(
        "item_id",
        f"{short_repr(item_id)} is not a catalog id; expected an id from search_catalog or "
        "filter_catalog results, or null to abstain. Nothing was committed.",
    )


def text_problem(text: object, argument: str) -> ArgumentError | None:
    if not isinstance(text, str) or not text.strip():
        return ArgumentError(argument, f"expected a non-empty message, got {short_repr(text)}")
    return None


def usage_of(reported: Any) -> Usage:
    """The agent's usage report (a request's `_meta`) as a Usage of only the three known
    fields, so a report cannot put anything else in the log; ValidationError if malformed."""
    given = Usage.model_validate(reported)
    return Usage(
        prompt_tokens=given.prompt_tokens,
        completion_tokens=given.completion_tokens,
        cost_usd=given.cost_usd,
    )
