"""Facts about one item a user may ask for (UserSimCRS "requests"), and how to tell that
a message answered one: it names the item's value for that slot."""

from __future__ import annotations

import re
from typing import Final, get_args

from taurec.catalog.item import Item
from taurec.server.recommendation.simulator.phrasing import language_name
from taurec.tasks.recommendation.task import RequestSlot

#: Slots a user may request about a recommended item, in a stable order.
REQUESTABLE: Final = get_args(RequestSlot)


def answer_terms(item: Item, slot: str) -> list[str]:
    """Words any one of which answers `slot` about `item` (lower case); [] when the
    catalog has no value to give (e.g. no director known)."""
    match slot:
        case "director":
            return (
                [item.director.casefold(), item.director.split()[-1].casefold()]
                if item.director
                else []
            )
        case "runtime":
            return [str(item.runtime)] if item.runtime else []
        case "release_date":
            return [str(item.year)]
        case "cast":
            return [n.casefold() for n in item.cast] + [n.split()[-1].casefold() for n in item.cast]
        case "rating":
            return [f"{item.rating:g}", f"{item.rating:.1f}"]
        case "content_rating":
            return [item.content_rating.value.casefold()]
        case "streaming_services":
            return [s.casefold() for s in item.streaming_services]
        case "original_language":
            return [language_name(item.original_language).casefold()]
    return []


def answers(text: str, item: Item, slot: str) -> str | None:
    """The term in `text` that answers `slot` about `item`, or None."""
    low = text.casefold()
    for term in answer_terms(item, slot):
        if re.search(rf"(?<![\w.]){re.escape(term)}(?![\w]|\.\d)", low):
            return term
    return None


def answerable(item: Item, slot: str) -> bool:
    return bool(answer_terms(item, slot))


#: How a user asks for each requestable slot of a title ({t}: its title).
QUESTIONS: Final = {
    "director": "Who directed {t}?",
    "runtime": "How long is {t}?",
    "release_date": "When did {t} come out?",
    "cast": "Who is in {t}?",
    "rating": "How well is {t} rated?",
    "content_rating": "What is {t} rated, age-wise?",
    "streaming_services": "Where can I stream {t}?",
    "original_language": "What language is {t} in?",
}

#: Each requestable slot as a user names it ("make sure to learn its director").
REQUEST_NAMES: Final = {
    "director": "director",
    "runtime": "running time",
    "release_date": "release year",
    "cast": "cast",
    "rating": "audience rating",
    "content_rating": "age rating",
    "streaming_services": "streaming services",
    "original_language": "language",
}
