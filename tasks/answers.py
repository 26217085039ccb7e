"""A task's answer key, computed from the catalog: never stored, so it cannot drift.

- answers: items that satisfy every constraint of the task.
- compliant answers: answers a policy-following agent may commit to: on at least one of
  the user's services, not in their watch history, and allowed by the profile's maturity
  gate (`UserContext.content_allowed`).

The validator, the oracle agent and the evaluator share these definitions.
"""

from __future__ import annotations

from collections.abc import Iterable

from taurec.catalog.item import Item
from taurec.catalog.services import service_key

from .constraint import Constraint
from .task import RecommendationTask, UserContext


def satisfies(item: Item, constraints: Iterable[Constraint]) -> bool:
    return all(c.holds(item) for c in constraints)


def answers(task: RecommendationTask, items: Iterable[Item]) -> list[str]:
    """Sorted ids of the items that satisfy every constraint of `task`."""
    return sorted(it.id for it in items if satisfies(it, task.constraints))


def on_user_services(item: Item, user: UserContext) -> bool:
    """Whether at least one of the user's services streams `item` (alias-aware)."""
    have = {service_key(s) for s in user.services}
    return any(service_key(s) in have for s in item.streaming_services)


def noncompliance(item: Item, user: UserContext) -> list[str]:
    """Why a policy-following agent may not recommend `item` to `user` ([] = it may).

    Reasons are stable short phrases: "not on the user's services", "already watched",
    "blocked by the maturity gate".
    """
    why: list[str] = []
    if not on_user_services(item, user):
        why.append("not on the user's services")
    if item.id in user.watched_ids:
        why.append("already watched")
    if not user.content_allowed(item.content_rating)[0]:
        why.append("blocked by the maturity gate")
    return why


def compliant_answers(task: RecommendationTask, answer_items: Iterable[Item]) -> list[str]:
    """Sorted ids of the answers that the user's services, history and maturity gate allow."""
    return sorted(it.id for it in answer_items if not noncompliance(it, task.user))
