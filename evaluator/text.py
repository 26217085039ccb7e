"""Text from logs (labels, task ids, paths, problems) printed as data, never as markup.

Agent labels, task ids and paths come from files anyone can write. Printed raw, `[/bold]`
crashes a rich table, `[conceal]` hides text, ANSI escapes drive the terminal, `|` or a
newline forges a Markdown row, `<script>` runs in a rendered Markdown page, and a CSV cell
starting with `=` runs as a spreadsheet formula. Everything printed from a log goes through
one of these.
"""

from __future__ import annotations

import re

from rich.markup import escape

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_MD_ACTIVE = re.compile(r"[\\`*_\[\]~|]")
#: What makes a spreadsheet read a cell as a formula (tab and CR are escaped before).
_FORMULA_START = ("=", "+", "-", "@")


def plain(text: object) -> str:
    """`text` with control characters (ANSI escapes, newlines, tabs, ...) shown as escapes."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), str(text))


def markup(text: object) -> str:
    """`text` for a rich console: control characters escaped, then rich markup escaped."""
    return escape(plain(text))


def md_cell(text: object) -> str:
    """`text` for one Markdown table cell, shown literally: control characters escaped,
    HTML (`<`, `>`, `&`) as entities, so no renderer runs a tag a label carries, and the
    characters that make emphasis, code, links or a cell border (\\ ` * _ [ ] ~ |)
    backslash-escaped."""
    shown = plain(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_ACTIVE.sub(r"\\\g<0>", shown)


def csv_cell(text: object) -> str:
    """`text` for one CSV cell that a spreadsheet shows and never runs: control characters
    escaped, and a cell starting (after spaces) with = + - @ given a leading ' (OWASP's
    rule against formula injection). Only for text: numbers are written as they are."""
    shown = plain(text)
    return f"'{shown}" if shown.lstrip(" ").startswith(_FORMULA_START) else shown


def percent(v: float | None) -> str:
    """A rate (0.01667) as every table of the evaluator shows it: "1.7%"; "-" for none."""
    return "-" if v is None or v != v else f"{100 * v:.1f}%"


def plural(n: int, word: str, words: str | None = None) -> str:
    """`n` and the noun in the right number: "1 episode", "2 episodes", "0 episodes"."""
    return f"{n} {word if n == 1 else (words or word + 's')}"
