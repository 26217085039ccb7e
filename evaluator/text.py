"""Text from logs (labels, task ids, paths, problems) printed as data, never as markup.

Agent labels, task ids and paths come from files anyone can write. Printed raw, `[/bold]`
crashes a rich table, `[conceal]` hides text, ANSI escapes drive the terminal, and `|` or
a newline forges a Markdown row. Everything printed from a log goes through one of these.
"""

from __future__ import annotations

import re

from rich.markup import escape

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def plain(text: object) -> str:
    """`text` with control characters (ANSI escapes, newlines, tabs, ...) shown as escapes."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), str(text))


def markup(text: object) -> str:
    """`text` for a rich console: control characters escaped, then rich markup escaped."""
    return escape(plain(text))


def md_cell(text: object) -> str:
    """`text` for one Markdown table cell: control characters and | escaped."""
    return plain(text).replace("\\", "\\\\").replace("|", "\\|")


def plural(n: int, word: str, words: str | None = None) -> str:
    """`n` and the noun in the right number: "1 episode", "2 episodes", "0 episodes"."""
    return f"{n} {word if n == 1 else (words or word + 's')}"
