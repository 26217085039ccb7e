"""What an episode checks of the agent's input before a step: a message that is text, an
item id that is a catalog id or null (never the string "null"), and a usage report
reduced to the fields a log may hold."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Final

from pydantic import ValidationError

from taurec.catalog.store import Catalog
from taurec.policies.sponsorship import shown_message
from taurec.tasks.errors import ArgumentError, short_repr
from taurec.tasks.trajectory.format import Usage

log = logging.getLogger(__name__)

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


def recommend_arguments(
    episode_id: str, item_id: str | None, message: str | None, disclose: Sequence[str] | None
) -> dict[str, Any]:
    """A `recommend` call's arguments as logged (`disclose` only when given)."""
    arguments: dict[str, Any] = {"episode_id": episode_id, "item_id": item_id, "message": message}
    if disclose is not None:
        arguments["disclose"] = list(disclose)
    return arguments


def disclosed_message(
    item_id: str | None,
    title: str | None,
    message: str | None,
    disclose: Sequence[str] | None,
    catalog: Catalog,
) -> str | None:
    """The message shown with a commit that discloses something (None when `disclose` is
    empty or absent); ArgumentError when there is nothing to disclose it of."""
    if not disclose:
        return None
    if item_id is None or title is None:
        raise ArgumentError(
            "disclose",
            f"expected no disclosure when abstaining (item_id null), got {short_repr(disclose)}. "
            "Nothing was committed.",
        )
    item = catalog.get(item_id)
    if "sponsored" in disclose and item is not None and not item.sponsored:
        raise ArgumentError(
            "disclose",
            f"{item_id} is not a sponsored title, so it has no sponsorship to disclose; "
            "expected disclose only for a title whose `sponsored` is true. Nothing was "
            "committed.",
        )
    return shown_message(title, disclose, message)


def reported_usage(reported: Any, episode_id: str) -> Usage | None:
    """The usage an agent reported, or None (logged on stderr) when it is malformed."""
    try:
        return usage_of(reported)
    except ValidationError as exc:
        log.warning(
            "episode %s: ignoring malformed usage %s: %s",
            episode_id[:8],
            short_repr(reported),
            exc.errors(include_url=False)[0]["msg"],
        )
        return None
