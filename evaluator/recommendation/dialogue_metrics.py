"""UserSimCRS's success-oriented dialogue metrics, from dialogue acts alone.

A dialogue is a list of utterances, each a speaker ("user" or "agent") with its acts in
order: an intent and the catalog items it names. Definitions (docs/usersimcrs.md):

- rounds: a round starts at each agent utterance with a `recommend` intent and runs to
  the next one; its titles are the items that utterance recommends. The stretch before
  the first recommendation is no round (the paper's definition);
- a round is accepted when some user utterance in it accepts a title recommended in it
  or in an earlier round (as UserSimCRS's code counts an acceptance wherever it falls;
  `earlier_titles=False`: a title of that round only) and no later utterance in the round
  rejects that same title. Within one utterance the rejections are read before the
  acceptances (an utterance accepting one title and rejecting another accepts); an
  accept or reject naming no item is about the round's titles;
- SR: 1 when some round is accepted, else 0;
- SRRR: accepted rounds / rounds, 0 with no round;
- `srrr_usersimcrs`: SRRR as UserSimCRS's code computes it: a new round at each
  utterance with a `recommend` intent, the stretch before the first one a round too, and
  a round accepted when its last user utterance with an accept or a reject accepts;
- RDL: user utterances with an acceptance / all utterances (both sides). A user's
  reaction to a commit of a title it has already accepted in the round (`reaction_to`)
  is not a second acceptance;
- utterances: all utterances; turn_pairs: DialogueKit's turns, the number of times the
  speaker changes, halved (its `avg_turns` is their mean over dialogues).

Pure, and one pass over the utterances.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, NamedTuple

USER = "user"
AGENT = "agent"
#: The titles of a round whose recommendation named no catalog item.
ANY: Final = "*"
#: The per-dialogue metrics, in the order reports show them.
KEYS: Final = ("sr", "srrr", "srrr_usersimcrs", "rdl", "utterances", "turn_pairs")


class Act(NamedTuple):
    intent: str
    items: tuple[str, ...] = ()


class Utterance(NamedTuple):  # a tuple: thousands are made per second while scoring
    speaker: str  # USER or AGENT
    intents: tuple[str, ...]
    acts: tuple[Act, ...] = ()  # the acts with their items; () reads `intents` as acts naming none
    reaction_to: str | None = None  # a user's reaction to the commit of this item
    source: Mapping[str, Any] | None = None  # what it was read from: its text and full acts

    def verdicts(self) -> tuple[Act, ...]:
        return self.acts or tuple(Act(i) for i in self.intents)


_VERDICTS: Final = frozenset({"accept", "reject"})


def _items(act: Act, titles: set[str]) -> set[str]:
    """What an accept or reject is about: the items it names, else the round's titles."""
    return set(act.items) if act.items else set(titles or {ANY})


class _Round:
    __slots__ = ("accepted", "earlier", "titles")

    def __init__(self, titles: set[str], earlier: frozenset[str] = frozenset()) -> None:
        self.titles = titles or {ANY}
        self.earlier = earlier  # titles earlier rounds recommended, which it may accept too
        self.accepted: set[str] = set()

    def hear(self, u: Utterance) -> bool:
        """Apply a user utterance's verdicts; True when it accepts a title not yet accepted
        in this round (a first acceptance)."""
        acts = u.verdicts()
        for act in acts:
            if act.intent == "reject":
                gone = _items(act, self.titles)
                self.accepted -= gone
                if ANY not in self.titles and gone & self.titles:
                    self.accepted.discard(ANY)
        fresh = False
        for act in acts:
            if act.intent == "accept":
                taken = _items(act, self.titles)
                if ANY not in self.titles:
                    taken &= self.titles | self.earlier
                fresh |= bool(taken - self.accepted)
                self.accepted |= taken
        return fresh


def dialogue_metrics(
    utterances: Iterable[Utterance], *, earlier_titles: bool = True
) -> dict[str, float]:
    """The metrics of KEYS of one dialogue (`earlier_titles`: see the module docstring)."""
    rounds = accepted_rounds = acceptances = n = changes = 0
    current: _Round | None = None
    recommended: set[str] = set()
    previous: str | None = None
    # UserSimCRS's reading: a round at every recommendation, the opening stretch one too
    u_rounds = u_accepted = 0
    u_open = u_verdict = False
    for u in utterances:
        speaker, intents, acts, reaction_to, _ = u
        n += 1
        if speaker != previous:
            changes += previous is not None
            previous = speaker
        recommends = "recommend" in intents
        if recommends:
            if u_open:
                u_rounds += 1
                u_accepted += u_verdict
            u_verdict = False
        u_open = True
        if speaker == AGENT:
            if recommends:
                accepted_rounds += current is not None and bool(current.accepted)
                rounds += 1
                # utterances without acts name no items: their verdicts name none either
                titles = {i for a in acts if a[0] == "recommend" for i in a[1]}
                current = _Round(titles, frozenset(recommended) if earlier_titles else frozenset())
                recommended |= titles
            continue
        accepts = "accept" in intents
        if accepts:
            u_verdict = True
        elif "reject" in intents:
            u_verdict = False
        else:  # no verdict among its intents: only acts naming one can change the round
            if current is not None:
                for a in acts:
                    if a[0] in _VERDICTS:
                        current.hear(u)
                        break
            continue
        if current is None:
            acceptances += accepts
            continue
        already = reaction_to in current.accepted
        fresh = current.hear(u)
        if accepts and not (already and not fresh):
            acceptances += 1
    accepted_rounds += current is not None and bool(current.accepted)
    if u_open:
        u_rounds += 1
        u_accepted += u_verdict
    return {
        "sr": 1.0 if accepted_rounds else 0.0,
        "srrr": accepted_rounds / rounds if rounds else 0.0,
        "srrr_usersimcrs": u_accepted / u_rounds if u_rounds else 0.0,
        "rdl": acceptances / n if n else 0.0,
        "utterances": float(n),
        "turn_pairs": changes / 2,
    }


def mean_metrics(per_dialogue: Sequence[dict[str, float]]) -> dict[str, float | None]:
    """The metrics averaged over dialogues (SR becomes the share of successful ones,
    turn_pairs DialogueKit's `avg_turns`)."""
    n = len(per_dialogue)
    means = {k: (sum(m.get(k, 0.0) for m in per_dialogue) / n if n else None) for k in KEYS}
    means["avg_turns"] = means.pop("turn_pairs")
    return means
