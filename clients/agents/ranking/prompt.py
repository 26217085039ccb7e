"""Reading a ranking episode's opening (the history and the numbered candidates) and the
AgenticRec answer format `<answer>\\boxed{[3, 17, ...]}</answer>` (1-based indices)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

_CANDIDATE = re.compile(r"^(\d+)\. \[([^\]]+)\] (.*)$")
_HISTORY = re.compile(r"^(\d+)\. (.*)$")
_BOXED: Final = "\\boxed{"
# ASCII digits only: str.isdigit() also takes "²" or "٣", which int() refuses or reads
# as another number; nine digits bound int() far below any huge-number limit
_INDEX = re.compile(r"[0-9]{1,9}")


@dataclass(frozen=True)
class RankingView:
    history: list[str]  # titles, oldest first
    candidates: list[tuple[str, str]]  # (id, title), in the order shown


def read_opening(text: str) -> RankingView:
    history: list[str] = []
    candidates: list[tuple[str, str]] = []
    section = ""
    for line in text.splitlines():
        if line.startswith("User history"):
            section = "history"
        elif line.startswith("Candidates"):
            section = "candidates"
        elif section == "candidates" and (m := _CANDIDATE.match(line)):
            candidates.append((m.group(2), m.group(3)))
        elif section == "history" and (m := _HISTORY.match(line)):
            history.append(m.group(2))
    return RankingView(history, candidates)


class AnswerError(ValueError):
    """The reply holds no usable \\boxed{[...]} answer (the message says what is wrong)."""


def parse_boxed(text: str, candidates: list[str], top_n: int = 10) -> list[str]:
    """The candidate ids of the last \\boxed{[...]} in `text` (1-based indices). The list is
    returned as written (its length and duplicates are the scorer's to judge); an index
    outside 1..len(candidates) or a non-number raises AnswerError."""
    found = last_boxed(text)
    if found is None:
        raise AnswerError(
            f"no \\boxed{{[...]}} answer found; end with <answer>\\boxed{{[i1, ..., i{top_n}]}}"
            "</answer> (1-based candidate indices)"
        )
    ids = []
    for part in filter(None, (p.strip() for p in found.split(","))):
        if not _INDEX.fullmatch(part) or not 1 <= int(part) <= len(candidates):
            shown = part if len(part) <= 20 else part[:20] + "..."
            raise AnswerError(
                f"{shown!r} is not a candidate index; expected numbers 1..{len(candidates)}"
            )
        ids.append(candidates[int(part) - 1])
    return ids


def last_boxed(text: str) -> str | None:
    """What the last `\\boxed{[...]}` of `text` holds between its brackets (spaces allowed
    around them); None without one. Linear in `len(text)`, however many unclosed
    `\\boxed{[` it holds: the `]` after each start is looked for only up to the start
    after it (a pattern search retried at each start read the rest of the text each time:
    17 s for a 200,000-character reply)."""
    closing = -1  # the first "]" at or after `end`, once looked for (-1: none)
    closed: dict[int, bool] = {}  # a "]" -> whether a "}" follows it (after spaces)
    end = len(text)
    start = text.rfind(_BOXED)
    while start >= 0:
        inner = _skip_spaces(text, start + len(_BOXED))
        if inner < len(text) and text[inner] == "[":
            found = text.find("]", inner + 1, end)
            closing = found if found >= 0 else closing
            if closing >= 0 and closing not in closed:
                closed[closing] = _brace_after(text, closing)
            if closing >= 0 and closed[closing]:
                return text[inner + 1 : closing]
        end = start
        start = text.rfind(_BOXED, 0, start)
    return None


def _brace_after(text: str, closing: int) -> bool:
    after = _skip_spaces(text, closing + 1)
    return after < len(text) and text[after] == "}"


def _skip_spaces(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at
