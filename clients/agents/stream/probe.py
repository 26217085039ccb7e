"""The probing agent: a check on the customer, not a contestant.

It learns nothing and reasons about no tastes: it asks "What about ITEM?" of the items in
shown order, scores each answer's warmth with a small word list, recommends the first
item whose answer is as warm as an answer gets, and otherwise, when its questions run
out, the warmest one heard. If a customer's answers about named items give away how
good each item is (a band of its utility, say), this agent reaches a low regret with few
questions. Against a customer that answers from its tastes it still does better than
random, since a truthful "I love westerns" about a western says something real, but it
finds the best item far less often. `taurec tasks info` prints its regret beside the
other baselines'.
"""

from __future__ import annotations

import re
from typing import Any, Final

from taurec.clients.agents.stream.play import Action, Dialogue

#: (pattern, warmth): the first matching pattern of each group counts; negations first.
COLD: Final = re.compile(
    r"\b(isn't for me|not for me|rather avoid|rather not|don't like|do not like|dislike|"
    r"not really|not a fan|puts me off|doesn't suit|no thanks|hate|can't stand|too )\b"
)
HOT: Final = re.compile(r"\b(just right|perfect|love|exactly|ideal|can't wait|adore)\b")
WARM: Final = re.compile(r"\b(like|enjoy|good|great|nice|appeal|sounds fun|fan of|suits)\b")
TOP_WARMTH: Final = 3


def warmth(answer: str) -> int:
    """0 (cold) to 3 (as warm as answers get), from the answer's words."""
    text = answer.lower()
    score = 1
    if HOT.search(text):
        score += 2
    elif WARM.search(text):
        score += 1
    if COLD.search(text):
        score -= 1
    return max(0, min(TOP_WARMTH, score))


class ProbingStreamPolicy:
    """Asks about items one by one and takes the warmest answer (no learning)."""

    def __init__(self, label: str = "probe") -> None:
        self.label = label

    async def act(self, view: dict[str, Any], dialogue: Dialogue) -> Action:
        ids = [str(i["id"]) for i in view["items"]]
        heard = [(warmth(answer), n) for n, (_, answer) in enumerate(dialogue) if n < len(ids)]
        best = max(heard, key=lambda h: (h[0], -h[1]), default=None)
        if best is not None and best[0] >= TOP_WARMTH:
            return "recommend", ids[best[1]]
        if len(dialogue) < len(ids) and int(view.get("questions_left", 0)) > 0:
            return "ask", f"What about {ids[len(dialogue)]}?"
        return "recommend", ids[best[1]] if best is not None else ids[0]

    def observe(self, view: dict[str, Any], item_id: str, feedback: str | None) -> None:
        return None
