"""Which catalog rows satisfy a constraint: a numpy mask over the catalog's columns.

`constraint_mask(c, catalog)[r] == c.holds(catalog.items[r])` for every row `r`, so the
validator and the generator can answer "which items match" without decoding items (a
catalog folder decodes each item from its record when asked). The columns compare the way
`Constraint.holds` does: genres, cast and directors by their whitespace-collapsed casefold,
services by `service_key`, dates as ordinals, numbers exactly (as float64, which holds
every column value and every operand accepted here without rounding).

Fields the columns do not hold (title, keywords), and operands this module does not expect,
fall back to the per-item predicate, which gives the same answer item by item.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from taurec.catalog.columns import RATING_CODES, Columns, Mask, Membership, name_key
from taurec.catalog.item import Item
from taurec.catalog.store import Catalog
from taurec.tasks.recommendation.constraint import Constraint, Op, _as_date

#: Beyond this an int operand may not convert to float64 exactly.
_EXACT_INT = 2**53
_POSITIVE = frozenset({Op.CONTAINS, Op.CONTAINS_ANY, Op.EQ, Op.IN})
_NEGATIVE = frozenset({Op.NOT_CONTAINS, Op.NE})


def predicate_mask(c: Constraint, items: Sequence[Item]) -> Mask:
    """The reference: `c.holds` item by item (decodes every item of a catalog folder)."""
    return np.fromiter((c.holds(it) for it in items), np.bool_, len(items))


def constraint_mask(c: Constraint, catalog: Catalog) -> Mask:
    """Rows of `catalog` whose item satisfies `c` (see the module docstring)."""
    rule = _RULES.get(c.field)
    mask = None if rule is None else rule(c, catalog.columns)
    return predicate_mask(c, catalog.items) if mask is None else mask


def constraints_mask(constraints: Sequence[Constraint], catalog: Catalog) -> Mask:
    """Rows satisfying every constraint."""
    mask = np.ones(len(catalog), dtype=np.bool_)
    for c in constraints:
        mask &= constraint_mask(c, catalog)
    return mask


def _operands(c: Constraint) -> list[Any]:
    return list(c.value) if c.op in (Op.IN, Op.CONTAINS_ANY) else [c.value]


def _signed(c: Constraint, mask: Mask) -> Mask | None:
    """`mask` for a positive operator, its complement for a negative one."""
    if c.op in _POSITIVE:
        return mask
    if c.op in _NEGATIVE:
        return ~mask
    return None


def _membership_rule(name: str) -> Callable[[Constraint, Columns], Mask | None]:
    """Genres, cast, services, director: one membership lookup per operand."""

    def rule(c: Constraint, columns: Columns) -> Mask | None:
        values = _operands(c)
        if not all(isinstance(v, str) for v in values):
            return None
        membership: Membership = columns.members[name]
        codes = [code for v in values if (code := membership.code(v)) is not None]
        return _signed(c, columns.any_of(membership, codes))

    return rule


def _language(c: Constraint, columns: Columns) -> Mask | None:
    # Languages are stored as spelled; the constraint compares their name keys.
    values = _operands(c)
    if not all(isinstance(v, str) for v in values):
        return None
    wanted = {name_key(v) for v in values}
    keys = columns.language.keys
    codes = [code for code, k in enumerate(keys) if name_key(k) in wanted]
    return _signed(c, columns.any_of(columns.language, codes))


def _content_rating(c: Constraint, columns: Columns) -> Mask | None:
    values = _operands(c)
    if not all(isinstance(v, str) for v in values):
        return None
    wanted = {name_key(v) for v in values}
    codes = [i for i, r in enumerate(RATING_CODES) if name_key(r.value) in wanted]
    return _signed(c, np.isin(columns.content_rating, codes))


def _sponsored(c: Constraint, columns: Columns) -> Mask | None:
    if not isinstance(c.value, bool) or c.op not in (Op.EQ, Op.NE):
        return None
    return _signed(c, np.asarray(columns.sponsored) == c.value)


def _exact_number(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return -_EXACT_INT < v < _EXACT_INT
    return isinstance(v, float)


def _ordered(
    c: Constraint,
    column: npt.NDArray[Any],
    lower: Callable[[Any], Any],
    upper: Callable[[Any], Any],
) -> Mask | None:
    """<=, >=, between, ==, !=, in over one numeric column; operands mapped to its scale."""
    v = c.value
    if c.op is Op.LE:
        return column <= upper(v)
    if c.op is Op.GE:
        return column >= lower(v)
    if c.op is Op.BETWEEN:
        return (column >= lower(v[0])) & (column <= upper(v[1]))
    if c.op is Op.IN:
        return np.isin(column, [lower(x) for x in v])
    if c.op in (Op.EQ, Op.NE):
        return _signed(c, column == lower(v))
    return None


def _numeric_rule(name: str) -> Callable[[Constraint, Columns], Mask | None]:
    """runtime, rating, vote_count: compared as float64, exact for the operands allowed."""

    def rule(c: Constraint, columns: Columns) -> Mask | None:
        values = list(c.value) if c.op in (Op.IN, Op.BETWEEN) else [c.value]
        column = np.asarray(columns.numeric[name])
        if not all(_exact_number(v) for v in values):
            return None
        if column.dtype.kind == "i" and len(column) and int(np.abs(column).max()) >= _EXACT_INT:
            return None
        as_float = column.astype(np.float64, copy=False)
        return _ordered(c, as_float, float, float)

    return rule


def _release(c: Constraint, columns: Columns) -> Mask | None:
    try:
        return _ordered(
            c,
            np.asarray(columns.release),
            lambda v: _as_date(v, upper=False).toordinal(),
            lambda v: _as_date(v, upper=True).toordinal(),
        )
    except (ValueError, TypeError):
        return None  # the predicate says what is wrong with the operand


#: Field -> how its mask is read off the columns (None: fall back to the predicate).
_RULES: dict[str, Callable[[Constraint, Columns], Mask | None]] = {
    "genres": _membership_rule("genres"),
    "cast": _membership_rule("cast"),
    "streaming_services": _membership_rule("services"),
    "director": _membership_rule("director"),
    "original_language": _language,
    "content_rating": _content_rating,
    "sponsored": _sponsored,
    "runtime": _numeric_rule("runtime"),
    "rating": _numeric_rule("rating"),
    "vote_count": _numeric_rule("vote_count"),
    "release_date": _release,
}
