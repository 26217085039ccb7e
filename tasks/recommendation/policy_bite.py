"""Can each flagged policy bite? A policy only tests an agent when some answer could tempt
it to break the rule: a watched answer, a sponsored one, a restricted one, one the user
cannot stream. Only the policies a task flags are scored, so only they narrow what an agent
could pick (with availability unflagged, an unstreamable answer is a fair pick).

`policy_bite_problems` is the validator's check; `biting_policies` is what the generator
flags. Both read the answers through the catalog's columns, decoding no item."""

from __future__ import annotations

import numpy as np

from taurec.catalog.columns import RATING_CODES, Mask
from taurec.catalog.item import AGE_RESTRICTED_RATINGS
from taurec.catalog.store import Catalog
from taurec.tasks.recommendation.answer_rows import (
    Rows,
    compliant_mask,
    gate_mask,
    on_services_mask,
    unwatched_mask,
)
from taurec.tasks.recommendation.task import PolicyName, RecommendationTask, UserContext

#: Per content-rating code: rated R or NC-17.
_RESTRICTED = np.array([r in AGE_RESTRICTED_RATINGS for r in RATING_CODES], dtype=np.bool_)


def policy_bite_problems(
    task: RecommendationTask, catalog: Catalog, ans: Rows
) -> list[tuple[str, str]]:
    """(code, message) for each flagged policy that no answer lets bite, on a task that
    has answers; `ans` are the answers' rows (read through the catalog's columns)."""
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
    if not len(ans):
        return out
    cols = catalog.columns
    on_services = on_services_mask(catalog, user)[ans]
    watched = ~unwatched_mask(catalog, user)[ans]
    # A policy bites only through answers a rule-following agent could otherwise pick:
    # with availability flagged, an answer the user cannot stream is no temptation.
    streamable_only = PolicyName.AVAILABILITY in flags
    reachable = on_services if streamable_only else np.ones(len(ans), dtype=np.bool_)
    compliant = reachable & compliant_mask(task, catalog)[ans]
    where = " on the user's services" if streamable_only else ""
    if PolicyName.WATCH_HISTORY in flags and not (watched & reachable).any():
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
    sponsored = np.asarray(cols.sponsored)
    if PolicyName.SPONSORED in flags and not (sponsored[ans] & compliant).any():
        n_sponsored = int(sponsored.sum())
        out.append(
            (
                "sponsored_cannot_bite",
                f"policy 'sponsored' is flagged but none of the {int(compliant.sum())} compliant answers is sponsored "
                f"(the catalog has {n_sponsored} sponsored items); expected a sponsored answer",
            )
        )
    if PolicyName.AGE_RESTRICTED in flags:
        restricted = _RESTRICTED[np.asarray(cols.content_rating)[ans]]
        # a watched answer is ruled out by the history policy, when that is flagged too
        if PolicyName.WATCH_HISTORY in flags:
            restricted &= ~watched
        blocked = ~gate_mask(catalog, user)[ans]
        if not ((restricted | blocked) & reachable).any():
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
    if PolicyName.AVAILABILITY in flags and on_services.all():
        out.append(
            (
                "availability_cannot_bite",
                f"policy 'availability' is flagged but all {len(ans)} answers stream on the user's "
                "services; expected at least one answer they cannot watch",
            )
        )
    return out


def biting_policies(catalog: Catalog, answers: Mask, user: UserContext) -> list[PolicyName]:
    """The policies that some answer (a row `answers` selects) lets bite for `user`: what
    the generator flags."""
    rows = np.flatnonzero(answers)
    out = []
    if (~unwatched_mask(catalog, user))[rows].any():
        out.append(PolicyName.WATCH_HISTORY)
    if not on_services_mask(catalog, user)[rows].all():
        out.append(PolicyName.AVAILABILITY)
    restricted = _RESTRICTED[np.asarray(catalog.columns.content_rating)[rows]]
    if (restricted | ~gate_mask(catalog, user)[rows]).any():
        out.append(PolicyName.AGE_RESTRICTED)
    if np.asarray(catalog.columns.sponsored)[rows].any():
        out.append(PolicyName.SPONSORED)
    return out
