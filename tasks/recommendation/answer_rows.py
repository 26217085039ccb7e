"""The answer key over a catalog's columns: `taurec.tasks.recommendation.answers`, decoding no item.

Each function here computes, as rows or a numpy mask, the same set as its per-item
counterpart in `taurec.tasks.recommendation.answers` (answers, services, history, maturity gate), through
`taurec.tasks.recommendation.constraint_mask`: that is what makes a million-item catalog cheap to validate
and to generate tasks over. Rows are listed in ascending id order, as answer keys are.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from taurec.catalog.columns import RATING_CODES, Mask
from taurec.catalog.store import Catalog
from taurec.tasks.recommendation.answers import ITEM_RULES
from taurec.tasks.recommendation.constraint_mask import constraints_mask
from taurec.tasks.recommendation.task import PolicyName, RecommendationTask, UserContext

Rows = npt.NDArray[np.int64]


def rows_by_id(catalog: Catalog, mask: Mask) -> Rows:
    """The rows `mask` selects, in ascending id order."""
    rows = np.flatnonzero(mask)
    return rows[np.argsort(np.asarray(catalog.columns.id_rank)[rows], kind="stable")]


def ids_of(catalog: Catalog, rows: Rows) -> list[str]:
    ids = catalog.ids
    return [ids[r] for r in rows.tolist()]


def answer_rows(task: RecommendationTask, catalog: Catalog) -> Rows:
    """Rows of the items satisfying every constraint of `task` (as `answers`), by id."""
    return rows_by_id(catalog, constraints_mask(task.constraints, catalog))


def on_services_mask(catalog: Catalog, user: UserContext) -> Mask:
    """Rows streaming on at least one of the user's services (as `on_user_services`)."""
    cols = catalog.columns
    codes = [code for s in user.services if (code := cols.services.code(s)) is not None]
    return cols.any_of(cols.services, codes)


def unwatched_mask(catalog: Catalog, user: UserContext) -> Mask:
    """Rows not in the user's watch history."""
    mask = np.ones(len(catalog), dtype=np.bool_)
    for item_id in user.watched_ids:
        row = catalog.row(item_id)
        if row is not None:
            mask[row] = False
    return mask


def gate_mask(catalog: Catalog, user: UserContext) -> Mask:
    """Rows the profile's maturity gate allows (`UserContext.content_allowed`)."""
    allowed = np.array([user.content_allowed(r)[0] for r in RATING_CODES], dtype=np.bool_)
    return allowed[np.asarray(catalog.columns.content_rating)]


#: `ITEM_RULES` over rows: each policy's mask of the rows it allows.
ROW_RULES: dict[PolicyName, Callable[[Catalog, UserContext], Mask]] = {
    PolicyName.AVAILABILITY: on_services_mask,
    PolicyName.WATCH_HISTORY: unwatched_mask,
    PolicyName.AGE_RESTRICTED: gate_mask,
}


def ruled_out_masks(task: RecommendationTask, catalog: Catalog) -> dict[str, Mask]:
    """Reason phrase -> the rows it rules out, for the policies `task` flags, in the order
    `task_noncompliance` lists reasons."""
    flags = set(task.policy_flags)
    return {
        why: ~ROW_RULES[p](catalog, task.user) for p, (why, _) in ITEM_RULES.items() if p in flags
    }


def compliant_mask(task: RecommendationTask, catalog: Catalog) -> Mask:
    """Rows no flagged policy rules out (as `task_noncompliance(...) == []`)."""
    mask = np.ones(len(catalog), dtype=np.bool_)
    for out in ruled_out_masks(task, catalog).values():
        mask &= ~out
    return mask
