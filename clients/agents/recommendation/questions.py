"""Answering a user's question about a pitched title from its catalog record: who directs
it, how long it is, when it came out, who is in it, how it is rated, its age rating,
where it streams, its language. Used by the scripted agent."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from taurec.server.recommendation.simulator.phrasing import language_name


def _list(values: list[str] | None) -> str:
    return ", ".join(values or []) or "nothing listed"


#: (pattern on the user's reply, how to answer from the item record)
_ANSWERS: Final[list[tuple[re.Pattern[str], Callable[[dict[str, Any]], str]]]] = [
    (re.compile(r"\bwho (?:directed|directs|made)\b", re.I),
     lambda it: f"It was directed by {it.get('director') or 'an unlisted director'}."),
    (re.compile(r"\bhow long\b|\bruntime\b", re.I),
     lambda it: f"It runs {it.get('runtime')} minutes."),
    (re.compile(r"\bwhen did\b.*\bcome out\b|\bwhat year\b", re.I),
     lambda it: f"It came out in {it.get('year') or str(it.get('release_date', ''))[:4]}."),
    (re.compile(r"\bwho(?:'s| is) in\b|\bwho stars\b", re.I),
     lambda it: f"It stars {_list((it.get('cast') or [])[:3])}."),
    (re.compile(r"\bage-wise\b|\bage rating\b|\bcontent rating\b", re.I),
     lambda it: f"It is rated {it.get('content_rating')}."),
    (re.compile(r"\bhow well\b.*\brated\b|\breviews?\b", re.I),
     lambda it: f"Audiences rate it {it.get('rating')} out of 10."),
    (re.compile(r"\bwhere can i (?:stream|watch)\b", re.I),
     lambda it: f"It streams on {_list(it.get('streaming_services'))}."),
    (re.compile(r"\bwhat language\b", re.I),
     lambda it: f"It is in {language_name(str(it.get('original_language', 'en')))}."),
]  # fmt: skip


def answer_question(reply: str, item: dict[str, Any]) -> str | None:
    """The answer to a question in `reply` about `item`, or None if it asks none."""
    if "?" not in reply:
        return None
    for pattern, answer in _ANSWERS:
        if pattern.search(reply):
            return f"{item.get('title')}: {answer(item)}"
    return None
