"""UserSimCRS's success-oriented dialogue metrics, from dialogue acts alone.

A dialogue is a list of utterances, each a speaker ("user" or "agent") and its intents
in order. Definitions (docs/usersimcrs.md):

- rounds: a round starts at each agent utterance with a `recommend` intent and runs to
  the next one; the stretch before the first recommendation is no round (UserSimCRS
  counts it as one, a defect);
- a round is accepted when, scanning its user intents in order, the last `accept` or
  `reject` is an `accept`;
- SR: 1 when some round is accepted, else 0;
- SRRR: accepted rounds / rounds, 0 with no round;
- RDL: user utterances with an `accept` / all utterances (both sides);
- utterances: all utterances (the per-dialogue "turns" UserSimCRS averages).

Pure, and one pass over the utterances.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

USER = "user"
AGENT = "agent"


class Utterance(NamedTuple):  # a tuple: thousands are made per second while scoring
    speaker: str  # USER or AGENT
    intents: tuple[str, ...]


def dialogue_metrics(utterances: Iterable[Utterance]) -> dict[str, float]:
    """sr, srrr, rdl and utterances of one dialogue."""
    rounds = accepted_rounds = acceptances = n = 0
    verdict: bool | None = None  # of the current round; None before any accept/reject
    for u in utterances:
        n += 1
        if u.speaker == AGENT:
            if "recommend" in u.intents:
                accepted_rounds += verdict is True
                rounds += 1
                verdict = None
            continue
        acceptances += "accept" in u.intents
        if rounds:  # user verdicts before the first recommendation belong to no round
            for intent in u.intents:
                if intent == "accept":
                    verdict = True
                elif intent == "reject":
                    verdict = False
    accepted_rounds += verdict is True
    return {
        "sr": 1.0 if accepted_rounds else 0.0,
        "srrr": accepted_rounds / rounds if rounds else 0.0,
        "rdl": acceptances / n if n else 0.0,
        "utterances": float(n),
    }


def mean_metrics(per_dialogue: Sequence[dict[str, float]]) -> dict[str, float | None]:
    """The metrics averaged over dialogues (SR becomes the share of successful ones)."""
    keys = ("sr", "srrr", "rdl", "utterances")
    n = len(per_dialogue)
    return {k: (sum(m[k] for m in per_dialogue) / n if n else None) for k in keys}
