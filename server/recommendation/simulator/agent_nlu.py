"""The agent-side NLU: the acts of an agent message, read deterministically.

Over the catalog's titles and the simulator's attribute patterns (nlu.py): a named
title is a `recommend` of its items, unless it is the title under discussion (one the
user has an open question about: naming it answers, it does not propose); a question
about an attribute is an `elicit` of that slot; a message naming the value the user
asked for about an item (an open request) is an `answer` of that slot; any other
question is an `inquire`; the rest is `other`. Pure given the catalog. An LLM NLU
(llm_acts.py) may replace it, under the same rule for titles under discussion.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from taurec.catalog.records import ItemRecords
from taurec.catalog.store import Catalog
from taurec.server.recommendation.simulator.item_facts import answers
from taurec.server.recommendation.simulator.nlu import Attribute, MessageReader
from taurec.tasks.trajectory.dialogue_acts import DialogueAct


class AgentActReader(Protocol):
    """Reads the acts of agent messages for the log (this NLU, or an LLM NLU)."""

    acts_by: str

    def acts(self, text: str, open_requests: Sequence[DialogueAct] = ()) -> list[DialogueAct]: ...


class AgentNLU:
    acts_by = "nlu"

    def __init__(self, catalog: Catalog, reader: MessageReader | None = None) -> None:
        self.catalog = catalog
        self._reader = reader
        self._genres: dict[str, re.Pattern[str]] | None = None

    @property
    def reader(self) -> MessageReader:
        if self._reader is None:  # built on first use: indexing every title takes a while
            self._reader = MessageReader(self.catalog.items)
        return self._reader

    def _genres_in(self, text: str) -> str | None:
        """The catalog genres a question names ("Do you like comedies?"), joined, or None."""
        if self._genres is None:
            items = self.catalog.items
            saved = items.saved_titles if isinstance(items, ItemRecords) else None
            names = set(saved.genres) if saved else {g for it in items for g in it.genres}
            self._genres = {
                g: re.compile(rf"\b{re.escape(g.casefold()[:5])}", re.I) for g in sorted(names)
            }
        named = [g for g, pattern in self._genres.items() if pattern.search(text)]
        return ", ".join(named) or None

    def acts(self, text: str, open_requests: Sequence[DialogueAct] = ()) -> list[DialogueAct]:
        """The acts of `text`; `open_requests` are the user's unanswered `inquire` acts
        (slot and item), which an `answer` act closes."""
        msg = self.reader.read(text)
        if msg.empty:
            return [DialogueAct(intent="other")]
        discussed = under_discussion(open_requests)
        out = [
            DialogueAct(intent="recommend", items=list(ref.item_ids))
            for ref in msg.titles
            if not set(ref.item_ids) <= discussed
        ]
        out += [
            DialogueAct(
                intent="elicit",
                slot=a.value,
                value=self._genres_in(text) if a is Attribute.GENRE else None,
            )
            for a in sorted(msg.asked)
        ]
        for request in open_requests:
            for item_id in request.items:
                item = self.catalog.get(item_id)
                if item is not None and request.slot is not None:
                    term = answers(text, item, request.slot)
                    if term is not None:
                        out.append(
                            DialogueAct(
                                intent="answer", slot=request.slot, value=term, items=[item_id]
                            )
                        )
        if not out and msg.is_question:
            out.append(DialogueAct(intent="inquire"))
        return out or [DialogueAct(intent="other")]


def under_discussion(open_requests: Sequence[DialogueAct]) -> set[str]:
    """The items the user has an open question about: naming one answers, not proposes."""
    return {i for r in open_requests for i in r.items}


def proposals_only(
    acts: list[DialogueAct], open_requests: Sequence[DialogueAct]
) -> list[DialogueAct]:
    """`acts` without the `recommend` acts that only name titles under discussion (the
    rule the deterministic NLU follows, applied to acts another reader gave)."""
    discussed = under_discussion(open_requests)
    kept = [
        a for a in acts if not (a.intent == "recommend" and a.items and set(a.items) <= discussed)
    ]
    return kept or ([DialogueAct(intent="other")] if acts else [])
