"""Reading the model's replies to BIEL's prompts (prompts.py), as BIEL reads them.

Before reading, a reasoning block (`<think>...</think>`) and markdown emphasis are
removed (BIEL's decision parser does the same; here every reader does).

- decision: `RECOMMEND: <id>` first (the id as written, in the choice set or not: under
  BIEL's rules the server counts an unknown one as a question), then `QUESTION: ...`,
  then BIEL's fuzzy rule (a "?" or the words "ask", "could you", "what is" make the
  reply a question); anything else is None (the caller recommends the first item);
- forced: the first id of the choice set after the last `RECOMMEND:`, else the first
  item (BIEL: the first number there, else product 0);
- confidence: `RECOMMEND:` names an id of the set (or, as BIEL's prompt asks, a 0-based
  index into it); each confidence line a number, clipped to its range as BIEL clips it;
  a line missing or unreadable is left out (BIEL records 0.0);
- oracle: `RECOMMEND: <0-based index>` on a line of its own.
"""

from __future__ import annotations

import math
import re
from typing import Final, Literal

from taurec.clients.agents.stream.prompts import CONFIDENCE_LINES

_THINK = re.compile(r"<think>.*?</think>", re.S)
_TOKEN: Final = r"[A-Za-z0-9_.:-]+"
_RECOMMEND = re.compile(rf"RECOMMEND:\s*\[?#?\s*({_TOKEN})", re.I)
_RECOMMEND_BARE = re.compile(rf"RECOMMEND\s+\[?#?\s*({_TOKEN})", re.I)
_QUESTION = re.compile(r"QUESTION:", re.I)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
FUZZY_QUESTION: Final = ("ask", "could you", "what is")
#: Longest question sent (the server takes up to 2000 characters).
MAX_QUESTION_CHARS: Final = 1000
#: The largest value each confidence field takes (the smallest is 0).
_RANGE: Final = {
    field: 100.0 if field == "predicted_regret" else 1.0 for field, _ in CONFIDENCE_LINES.values()
}

Decision = tuple[Literal["ask", "recommend"], str]


def clean(text: str) -> str:
    """The reply without its reasoning block and markdown emphasis; the whole reply when
    the answer sits inside an unclosed or only block."""
    raw = text.strip()
    cleaned = _THINK.sub("", raw).strip()
    if not cleaned or ("<think>" in raw and "</think>" not in raw):
        cleaned = raw
    return cleaned.replace("**", "").replace("__", "")


def _id(token: str) -> str:
    return token.rstrip(".:")


def as_question(text: str) -> str:
    """The question to send: the text after `QUESTION:` (else all of it), one line, ending
    with "?" as BIEL's environment makes it."""
    if m := _QUESTION.search(text):
        text = text[m.end() :]
    question = " ".join(text.split())[:MAX_QUESTION_CHARS]
    if not question:
        return "What matters most to you here?"
    return question if question.endswith("?") else question + "?"


def read_decision(text: str, ids: list[str]) -> Decision | None:
    """("recommend", id as written) or ("ask", question); None when it is neither."""
    reply = clean(text)
    if m := _RECOMMEND.search(reply):
        return "recommend", _id(m.group(1))
    if (m := _RECOMMEND_BARE.search(reply)) and _id(m.group(1)) in ids:
        return "recommend", _id(m.group(1))
    if _QUESTION.search(reply):
        return "ask", as_question(reply)
    if "?" in reply or any(w in reply.lower() for w in FUZZY_QUESTION):
        return "ask", as_question(reply)
    return None


def read_forced(text: str, ids: list[str]) -> str:
    """The id recommended at the budget; the first item when none of the set is named."""
    reply = clean(text)
    at = reply.upper().rfind("RECOMMEND:")
    if at >= 0:
        for token in re.findall(_TOKEN, reply[at + len("RECOMMEND:") :]):
            if _id(token) in ids:
                return _id(token)
    return ids[0]


def _number(value: str) -> float | None:
    m = _NUMBER.search(value)
    if m is None:
        return None
    number = float(m.group())
    if value[m.end() : m.end() + 1] == "%":
        number /= 100
    return number if math.isfinite(number) else None


def read_confidence(text: str, ids: list[str]) -> tuple[str | None, dict[str, float]]:
    """(the id picked, None when the reply names none of the set; the stated fields)."""
    picked: str | None = None
    stated: dict[str, float] = {}
    for line in clean(text).splitlines():
        key, _, value = line.strip().partition(":")
        key = key.strip().upper()
        if key == "RECOMMEND" and picked is None:
            token = next(iter(re.findall(_TOKEN, value)), "")
            if _id(token) in ids:
                picked = _id(token)
            elif token.isdigit() and int(token) < len(ids):
                picked = ids[int(token)]
        elif key in CONFIDENCE_LINES and (number := _number(value)) is not None:
            field = CONFIDENCE_LINES[key][0]
            stated[field] = max(0.0, min(_RANGE[field], number))
    return picked, stated


def read_oracle(text: str, n: int) -> int | None:
    """The 0-based index the oracle names; None when no line names one in range."""
    for line in clean(text).splitlines():
        key, _, value = line.strip().partition(":")
        if key.strip().upper() == "RECOMMEND" and value.strip().isdigit():
            index = int(value.strip())
            if index < n:
                return index
    return None
