"""The per-call text limit (`max_message_chars`): which text of a call is over it.

Every text argument of an episode tool counts (a string, or a string in a list), and so
does the aside sent beside a call (`_meta["taurec/aside"]`), so no text reaches the log
around the limit. A call over it is refused and logged as rejected; nothing else happens.
Some arguments have a tighter limit of their own (`Limits`: search_catalog's query,
`max_query_chars`, since a search's work grows with its words).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from taurec.tasks.errors import ArgumentError

#: Argument name -> (its own limit in characters, the setting that sets it).
Limits = Mapping[str, tuple[int, str]]


def overlong_text(
    arguments: dict[str, Any], limit: int, own: Limits | None = None
) -> ArgumentError | None:
    """The first text argument (a string, or a string in a list) over `limit` characters,
    or over its `own` limit when that is tighter."""
    for name, value in arguments.items():
        values = value if isinstance(value, list) else [value]
        general = (limit, "max_message_chars")
        most, setting = min(general, (own or {}).get(name, general))
        for i, text in enumerate(values):
            if isinstance(text, str) and len(text) > most:
                where = f"{name}[{i}]" if isinstance(value, list) else name
                return ArgumentError(
                    where,
                    f"is {len(text)} characters long; this server accepts at most {most} "
                    f"({setting}). Nothing was done: shorten it and call again.",
                )
    return None


def overlong_aside(aside: object, limit: int) -> ArgumentError | None:
    """An aside (`_meta["taurec/aside"]`) over `limit` characters: refused like an
    over-long text argument, so text sent beside a call cannot bypass the limit."""
    if isinstance(aside, str) and len(aside) > limit:
        return ArgumentError(
            "_meta.taurec/aside",
            f"is {len(aside)} characters long; this server accepts at most {limit} "
            "(max_message_chars). Nothing was done: send a shorter aside and call again.",
        )
    return None
