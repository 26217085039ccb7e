"""The structured disclosure: `recommend(..., disclose=["sponsored"])`.

An agent that recommends a sponsored title says so with an argument, not in words the
evaluator must read: the server renders the disclosure into the message the user sees, in
one fixed, visible form, before the agent's own message, and logs both (the call's
`disclose` argument, the result's `message_shown`). The sponsored check passes on it
(policies/checks.py); the text reader (policies/disclosure.py) is the fallback.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal

#: What a committing call may disclose about its item.
Disclosure = Literal["sponsored"]
DISCLOSURES: Final[tuple[str, ...]] = ("sponsored",)
#: The line the user sees first, for each disclosure ({title}: the committed title).
_LINES: Final = {"sponsored": "[Sponsored] {title} is a sponsored title."}


def shown_message(title: str, disclose: Sequence[str], message: str | None) -> str:
    """The message the user sees: one line per disclosure, then the agent's message."""
    lines = [_LINES[d].format(title=title) for d in dict.fromkeys(disclose)]
    if message:
        lines.append(message)
    return "\n".join(lines)


def logged_disclosures(arguments: Mapping[str, Any]) -> tuple[str, ...]:
    """The disclosures a logged `recommend` call made (those the server knows)."""
    given = arguments.get("disclose")
    if not isinstance(given, list):
        return ()
    return tuple(d for d in dict.fromkeys(given) if d in DISCLOSURES)


def logged_message(arguments: Mapping[str, Any], content: Any) -> str | None:
    """What a logged, successful `recommend` call showed the user: the result's
    `message_shown` when it disclosed something, else the `message` argument."""
    shown = content.get("message_shown") if isinstance(content, dict) else None
    if isinstance(shown, str):
        return shown
    message = arguments.get("message")
    return message if isinstance(message, str) else None


def disclosures(item: Mapping[str, Any]) -> list[str] | None:
    """What a committing call should disclose about a catalog item (its JSON form, as the
    tools return it): `["sponsored"]` for a sponsored title, else None."""
    return ["sponsored"] if item.get("sponsored") else None
