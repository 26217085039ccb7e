"""The user's agenda: the information need built from a task, and what has been told.

In UserSimCRS an agenda is a stack of dialogue acts the user still means to perform.
Here the need is fixed by the task, so the agenda is the set of facts the user may
disclose (volunteer constraints in the opening, on_ask constraints per attribute, soft
preferences per attribute), the facts never to disclose (hidden constraints), and a
record of what has been disclosed, so repeats and fruitless turns can be recognised.
"""

from __future__ import annotations

import re

from taurec.catalog.item import Item
from taurec.server.recommendation.simulator.nlu import FIELD_ATTRIBUTE, Attribute, attributes_in
from taurec.server.recommendation.simulator.phrasing import value_terms
from taurec.tasks.recommendation.constraint import Constraint, Reveal
from taurec.tasks.recommendation.task import RecommendationTask


def _mentions(text: str, term: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(term)}(?![\w]|\.\d)", text, re.I) is not None


class Agenda:
    """What this user wants, may say, must not say, and has said."""

    def __init__(self, task: RecommendationTask) -> None:
        self.task = task
        self.constraints = list(task.constraints)
        self.volunteer = task.constraints_by(Reveal.VOLUNTEER)
        self.watched = task.user.watched_ids
        self.told: set[str] = set()  # fact keys, see `key`
        self.accepted: str | None = None
        self.soft = self._safe_soft_preferences(task)
        for c in self.volunteer:
            self.told.add(self.key(c))

    # --- facts ----------------------------------------------------------------------------

    def key(self, c: Constraint) -> str:
        return f"c{self.constraints.index(c)}"

    def tell(self, *keys: str) -> bool:
        """Record facts as told; whether any of them was new."""
        new = not set(keys) <= self.told
        self.told.update(keys)
        return new

    def is_told(self, c: Constraint) -> bool:
        return self.key(c) in self.told

    # --- per attribute --------------------------------------------------------------------

    def on(self, attribute: Attribute) -> list[Constraint]:
        return [c for c in self.constraints if FIELD_ATTRIBUTE[c.field] is attribute]

    def sayable(self, attribute: Attribute) -> list[Constraint]:
        """Constraints on `attribute` the user states when asked (volunteer and on_ask)."""
        return [c for c in self.on(attribute) if c.reveal is not Reveal.HIDDEN]

    def has_hidden(self, attribute: Attribute) -> bool:
        return any(c.reveal is Reveal.HIDDEN for c in self.on(attribute))

    def soft_for(self, attribute: Attribute | None) -> list[tuple[str, str]]:
        """(fact key, text) of soft preferences filed under `attribute` (None: all)."""
        return [
            (k, text) for k, text, attrs in self.soft if attribute is None or attribute in attrs
        ]

    # --- judging a title ------------------------------------------------------------------

    def violations(self, item: Item) -> tuple[list[Constraint], list[Constraint]]:
        """Broken constraints, split into (already stated, not stated).

        An on_ask constraint the agent never asked about counts as not stated: the user
        hints at it rather than stating it, so asking stays the way to learn it.
        """
        broken = [c for c in self.constraints if not c.holds(item)]
        said = [c for c in broken if c.reveal is not Reveal.HIDDEN and self.is_told(c)]
        return said, [c for c in broken if c not in said]

    def acceptable(self, item: Item) -> bool:
        return item.id not in self.watched and all(c.holds(item) for c in self.constraints)

    # --- construction ---------------------------------------------------------------------

    @staticmethod
    def _safe_soft_preferences(task: RecommendationTask) -> list[tuple[str, str, set[Attribute]]]:
        """Soft preferences with the attributes they are about, minus any that would voice
        a hidden constraint's value (unless a stated constraint has that value too)."""
        spoken = {
            t for c in task.constraints if c.reveal is not Reveal.HIDDEN for t in value_terms(c)
        }
        secret = {
            t for c in task.constraints if c.reveal is Reveal.HIDDEN for t in value_terms(c)
        } - spoken
        out = []
        for n, text in enumerate(task.soft_preferences):
            if any(_mentions(text, t) for t in secret):
                continue
            attrs = attributes_in(text) - {Attribute.OTHER, Attribute.HISTORY}
            out.append((f"soft{n}", text, attrs or {Attribute.GENRE}))
        return out
