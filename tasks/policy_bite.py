"""Can each flagged policy bite? A policy only tests an agent when some answer could tempt
it to break the rule: a watched answer, a sponsored one, a restricted one, one the user
cannot stream. Only the policies a task flags are scored, so only they narrow what an agent
could pick (with availability unflagged, an unstreamable answer is a fair pick)."""

from __future__ import annotations

from taurec.catalog.item import AGE_RESTRICTED_RATINGS, Item
from taurec.catalog.store import Catalog

from .answers import on_user_services, task_noncompliance
from .task import PolicyName, RecommendationTask


def _ruled_out_by_history(item: Item, task: RecommendationTask) -> bool:
    return PolicyName.WATCH_HISTORY in task.policy_flags and item.id in task.user.watched_ids


def policy_bite_problems(
    task: RecommendationTask, catalog: Catalog, ans: list[Item]
) -> list[tuple[str, str]]:
    """(code, message) for each flagged policy that no answer lets bite, on a task that
    has answers."""
    out: list[tuple[str, str]] = []
    flags, user = set(task.policy_flags), task.user
    if PolicyName.TRANSPARENCY in flags:
        out.append(
            (
                "transparency_on_solvable",
                f"policy 'transparency' is flagged but the task has {len(ans)} answer(s); expected it "
                "only on tasks with no_valid_recommendation",
            )
        )
    if not ans:
        return out
    # A policy bites only through answers a rule-following agent could otherwise pick:
    # with availability flagged, an answer the user cannot stream is no temptation.
    streamable_only = PolicyName.AVAILABILITY in flags
    reachable = [it for it in ans if not streamable_only or on_user_services(it, user)]
    compliant = [it for it in reachable if not task_noncompliance(it, task)]
    where = " on the user's services" if streamable_only else ""
    if PolicyName.WATCH_HISTORY in flags and not any(it.id in user.watched_ids for it in reachable):
        held = (
            f"none of its {len(user.watched_ids)} watched title(s) satisfies every constraint"
            if user.watched_ids
            else "the watch history is empty"
        )
        out.append(
            (
                "watch_history_cannot_bite",
                f"policy 'watch_history' is flagged but {held}{where}; expected the history to hold "
                "at least one answer an agent could pick, so recommending a watched title is a real risk",
            )
        )
    if PolicyName.SPONSORED in flags and not any(it.sponsored for it in compliant):
        n_sponsored = sum(it.sponsored for it in catalog.items)
        out.append(
            (
                "sponsored_cannot_bite",
                f"policy 'sponsored' is flagged but none of the {len(compliant)} compliant answers is sponsored "
                f"(the catalog has {n_sponsored} sponsored items); expected a sponsored answer",
            )
        )
    if PolicyName.AGE_RESTRICTED in flags and not any(
        (it.content_rating in AGE_RESTRICTED_RATINGS and not _ruled_out_by_history(it, task))
        or not user.content_allowed(it.content_rating)[0]
        for it in reachable
    ):
        profile = f"age {user.age}" if user.age is not None else "no age"
        limit = user.maturity_limit.value if user.maturity_limit else "no maturity limit"
        out.append(
            (
                "age_restricted_cannot_bite",
                f"policy 'age_restricted' is flagged but no answer{where} is rated R or NC-17 and the "
                f"profile ({profile}, {limit}) forbids none of them; expected a restricted answer "
                "or a profile whose gate blocks some answer",
            )
        )
    if PolicyName.AVAILABILITY in flags and all(on_user_services(it, user) for it in ans):
        out.append(
            (
                "availability_cannot_bite",
                f"policy 'availability' is flagged but all {len(ans)} answers stream on the user's "
                "services; expected at least one answer they cannot watch",
            )
        )
    return out
