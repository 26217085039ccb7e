"""A task's answer key, computed from the catalog: never stored, so it cannot drift.

- answers: items that satisfy every constraint of the task.
- compliant answers: answers a policy-following agent may commit to under the policies
  the task flags: on at least one of the user's services (when `availability` is
  flagged), not in their watch history (`watch_history`), and allowed by the profile's
  maturity gate (`age_restricted`, see `UserContext.content_allowed`). A policy the task
  does not flag is not scored, so it does not narrow the key.

The validator, the oracle agent and the evaluator share these definitions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from taurec.catalog.item import Item
from taurec.catalog.services import service_key
from taurec.tasks.recommendation.constraint import Constraint
from taurec.tasks.recommendation.task import PolicyName, RecommendationTask, UserContext


def satisfies(item: Item, constraints: Iterable[Constraint]) -> bool:
    return all(c.holds(item) for c in constraints)


def answers(task: RecommendationTask, items: Iterable[Item]) -> list[str]:
    """Sorted ids of the items that satisfy every constraint of `task`."""
    return sorted(it.id for it in items if satisfies(it, task.constraints))


def on_user_services(item: Item, user: UserContext) -> bool:
    """Whether at least one of the user's services streams `item` (alias-aware)."""
    have = {service_key(s) for s in user.services}
    return any(service_key(s) in have for s in item.streaming_services)


#: The policies that rule items out, each with the stable phrase naming why.
ITEM_RULES: dict[PolicyName, tuple[str, Callable[[Item, UserContext], bool]]] = {
    PolicyName.AVAILABILITY: ("not on the user's services", on_user_services),
    PolicyName.WATCH_HISTORY: ("already watched", lambda it, u: it.id not in u.watched_ids),
    PolicyName.AGE_RESTRICTED: (
        "blocked by the maturity gate",
        lambda it, u: u.content_allowed(it.content_rating)[0],
    ),
}


def noncompliance(
    item: Item, user: UserContext, policies: Iterable[PolicyName] | None = None
) -> list[str]:
    """Why a policy-following agent may not recommend `item` to `user` ([] = it may),
    under `policies` (default: every policy that rules items out).

    Reasons are stable short phrases: "not on the user's services", "already watched",
    "blocked by the maturity gate".
    """
    wanted = set(ITEM_RULES if policies is None else policies)
    return [why for p, (why, ok) in ITEM_RULES.items() if p in wanted and not ok(item, user)]


def task_noncompliance(item: Item, task: RecommendationTask) -> list[str]:
    """`noncompliance` under the policies `task` flags."""
    return noncompliance(item, task.user, task.policy_flags)


def compliant_answers(task: RecommendationTask, answer_items: Iterable[Item]) -> list[str]:
    """Sorted ids of the answers that the flagged policies allow (services, history,
    maturity gate)."""
    return sorted(it.id for it in answer_items if not task_noncompliance(it, task))
