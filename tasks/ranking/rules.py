"""What a ranking episode counts, the same on every path: over MCP, in the Python
environment (server/ranking/env.py) and in the evaluator and its RL exports.

Only a call to one of the seven tools with well-formed arguments is a tool call: it
counts against the budget (`RankingTask.tool_budget`; one more ends the episode invalid)
and toward the +0.1 bonus. A call to an unknown tool, or with a missing, ill-typed or
over-long argument (the MAX_ caps below), is refused and not counted, as an MCP server
refuses it before the episode sees it (so it never reaches a log). A call that reaches a
tool counts even when the tool answers with an error (an unknown title). The same goes
for `submit_ranking`: a `ranking` that is not a list of strings (at most MAX_RANKING_IDS,
each at most MAX_ID characters) is refused and the episode goes on; such a list ends it,
scored -1 when it is not 10 distinct candidates (taurec.tasks.ranking.metrics).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

SUBMIT: Final = "submit_ranking"
#: What each tool does, as the server describes it to the agent (and the text-action schemas).
TOOL_DOCS: Final[dict[str, str]] = {
    "get_user_profile": "A summary of the user's preferences from their history.",
    "item_info_search": "Look up an item by its title: categories, facts, rating, popularity.",
    "candidates_analyze": "The candidates grouped by category and by price band.",
    "get_session_behavior": "The user's interests in their two most recent sessions.",
    "get_rating_behavior": "The items the user rated five stars, neutral, and low.",
    "get_similar_items": "Items that users of the given item also took (collaborative filtering).",
    "get_similar_users": "Recent items of users with similar preferences.",
}
#: The seven tools, in the paper's order, and the name of each one's argument (or None).
TOOL_ARGUMENTS: Final[dict[str, str | None]] = {
    "get_user_profile": None,
    "item_info_search": "item_name",
    "candidates_analyze": None,
    "get_session_behavior": None,
    "get_rating_behavior": None,
    "get_similar_items": "item_title",
    "get_similar_users": None,
}
#: submit_ranking's optional arguments, logged with the answer: the reply the ranking was
#: read from, and replies before it that held no readable answer (a harness that retries).
REPLY: Final = "reply"
REJECTED: Final = "rejected_replies"
MAX_REPLY: Final = 50_000  # characters of one logged reply (a harness cuts longer ones)
MAX_REJECTED: Final = 20  # rejected replies one answer may carry
#: Caps of the other string arguments, the same in the MCP schemas and here, so a call
#: one path refuses uncounted is refused uncounted on every path (and a log stays small).
MAX_TITLE: Final = 1_000  # characters of an item_name / item_title
MAX_RANKING_IDS: Final = 100  # ids in a submitted ranking (a task has at most 100 candidates)
MAX_ID: Final = 200  # characters of one id (a ranked id, a task id)


def normalised(name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """`arguments` as an MCP server hands them to its tool: a list argument sent as a
    JSON-encoded string (a shape LLMs often write) is parsed into the list."""
    out = dict(arguments)
    if name == SUBMIT:
        for key in ("ranking", REJECTED):
            value = out.get(key)
            if isinstance(value, str):
                try:
                    parsed = json.loads(value)
                except ValueError:
                    continue
                if isinstance(parsed, list):
                    out[key] = parsed
    return out


def call_problem(name: str, arguments: Mapping[str, Any]) -> str | None:
    """Why the call is refused uncounted (its schema), or None when it is a real call."""
    if name == SUBMIT:
        ranking = arguments.get("ranking")
        if not _texts(ranking, MAX_RANKING_IDS, MAX_ID):
            return (
                "submit_ranking needs ranking: a list of candidate ids (strings; at most "
                f"{MAX_RANKING_IDS} ids of at most {MAX_ID} characters)"
            )
        rejected = arguments.get(REJECTED)
        if rejected is not None and not _texts(rejected, MAX_REJECTED, MAX_REPLY):
            return (
                f"submit_ranking: {REJECTED} must be a list of at most {MAX_REJECTED} strings "
                f"of at most {MAX_REPLY} characters"
            )
        reply = arguments.get(REPLY)
        if reply is not None and not (isinstance(reply, str) and len(reply) <= MAX_REPLY):
            return f"submit_ranking: {REPLY} must be a string of at most {MAX_REPLY} characters"
        return None
    if name not in TOOL_ARGUMENTS:
        known = ", ".join([*TOOL_ARGUMENTS, SUBMIT])
        from taurec.tasks.errors import short_repr  # pydantic: not at import (CLI --help)

        return f"unknown tool {short_repr(name)}; expected one of {known}"
    arg = TOOL_ARGUMENTS[name]
    if arg is not None:
        value = arguments.get(arg)
        if not isinstance(value, str) or not value.strip() or len(value) > MAX_TITLE:
            return f"{name} needs {arg} (a title, as text of at most {MAX_TITLE} characters)"
    return None


def _texts(value: object, most: int, longest: int) -> bool:
    """Whether `value` is a list of at most `most` strings of at most `longest` characters."""
    return (
        isinstance(value, list)
        and len(value) <= most
        and all(isinstance(x, str) and len(x) <= longest for x in value)
    )


def is_tool_call(name: str, arguments: Mapping[str, Any]) -> bool:
    """Whether a call counts against the budget: one of the seven tools, well-formed."""
    return name in TOOL_ARGUMENTS and call_problem(name, arguments) is None
