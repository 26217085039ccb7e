"""The agenda user's information need (UserSimCRS `InformationNeed`), built from a task.

Constraints are the task's, each with its reveal tag. Requests are slots the user wants
answered about a title before accepting it (who directs it, how long it is...): the
task's own (`requests`, e.g. what a human seeker asked in a dialogue the task comes
from), else 1 or 2 drawn per episode seed from the requestable slots *minus* the
constrained fields (UserSimCRS takes the symmetric difference, a defect). A request is asked per item, and
stays open until the agent's message names the item's value for that slot.
"""

from __future__ import annotations

import random

from taurec.catalog.item import Item
from taurec.server.recommendation.simulator.item_facts import REQUESTABLE, answerable
from taurec.tasks.recommendation.task import RecommendationTask


class InformationNeed:
    def __init__(self, task: RecommendationTask, seed: int) -> None:
        self.constraints = list(task.constraints)
        constrained = {c.field for c in task.constraints}
        pool = [s for s in REQUESTABLE if s not in constrained]
        rng = random.Random(f"requests:{seed}")
        drawn = rng.sample(pool, k=min(len(pool), rng.randint(1, 2)))
        self.requests: list[str] = list(task.requests) or drawn
        self.answered: dict[tuple[str, str], str] = {}  # (slot, item id) -> the answer

    def open_requests(self, item: Item) -> list[str]:
        """Requests about `item` not answered yet (slots the catalog has no value for
        cannot be answered, so they are not asked)."""
        return [
            s for s in self.requests if answerable(item, s) and (s, item.id) not in self.answered
        ]

    def answer(self, slot: str, item_id: str, value: str) -> None:
        self.answered[(slot, item_id)] = value
