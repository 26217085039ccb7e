"""Typed constraints: a predicate over one item field, tagged with how the user reveals it.

Semantics (the evaluator, the simulated user, the validator and the generator all use
`Constraint.holds`, so there is exactly one definition):

- Strings compare case-insensitively; streaming services compare through the catalog's
  service-name normalisation ("Prime Video" == "Amazon Prime Video").
- `<=`, `>=` and `between` (inclusive `[lo, hi]`) apply to ordered fields: runtime,
  rating, vote_count, release_date (ISO date, or a bare year meaning Jan 1 / Dec 31).
- `contains`, `contains_any` and `not_contains` apply to list fields (genres, cast,
  streaming_services, keywords).
- `==`, `!=` and `in` apply to scalar fields.
- A missing value (e.g. no director) satisfies no positive predicate; `!=` and
  `not_contains` hold for it.
"""

from __future__ import annotations

from datetime import date
from enum import StrEnum
from functools import cached_property
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from taurec.catalog.item import (
    ITEM_FIELDS,
    LIST_FIELDS,
    ORDERED_FIELDS,
    ContentRating,
    Item,
)
from taurec.catalog.services import service_key


class Op(StrEnum):
    LE = "<="
    GE = ">="
    EQ = "=="
    NE = "!="
    CONTAINS = "contains"
    CONTAINS_ANY = "contains_any"
    NOT_CONTAINS = "not_contains"
    IN = "in"
    BETWEEN = "between"


class Reveal(StrEnum):
    """When the simulated user states a constraint."""

    VOLUNTEER = "volunteer"  # in the opening request
    ON_ASK = "on_ask"  # only when the agent asks about that attribute
    HIDDEN = "hidden"  # never; violating candidates are rejected with a hint


LIST_OPS = frozenset({Op.CONTAINS, Op.CONTAINS_ANY, Op.NOT_CONTAINS})
ORDER_OPS = frozenset({Op.LE, Op.GE, Op.BETWEEN})
SCALAR_OPS = frozenset({Op.EQ, Op.NE, Op.IN})
NUMERIC_FIELDS = frozenset({"runtime", "rating", "vote_count"})
BOOL_FIELDS = frozenset({"sponsored"})
#: Fields a constraint may name (ids and free text are not preferences).
CONSTRAINABLE_FIELDS = ITEM_FIELDS - {"id", "overview"}


def _allowed_ops(field: str) -> frozenset[Op]:
    if field in LIST_FIELDS:
        return LIST_OPS
    if field in ORDERED_FIELDS:
        return ORDER_OPS | SCALAR_OPS
    if field in BOOL_FIELDS:
        return frozenset({Op.EQ, Op.NE})
    return SCALAR_OPS


def _as_date(v: Any, *, upper: bool) -> date:
    if isinstance(v, date):
        return v
    if isinstance(v, int) and not isinstance(v, bool) and 1800 <= v <= 2200:
        return date(v, 12, 31) if upper else date(v, 1, 1)
    if isinstance(v, str):
        try:
            return date.fromisoformat(v)
        except ValueError:
            pass
    raise ValueError(f"an ISO date such as '2019-05-01' or a year, got {v!r}")


def _norm_scalar(field: str, v: Any) -> Any:
    """Coerce one scalar to the field's type, raising ValueError with what was expected."""
    if field in NUMERIC_FIELDS:
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise ValueError(f"a number for '{field}', got {v!r}")
        return v
    if field == "release_date":
        return _as_date(v, upper=False)
    if field in BOOL_FIELDS:
        if not isinstance(v, bool):
            raise ValueError(f"true or false for '{field}', got {v!r}")
        return v
    if not isinstance(v, str) or not v.strip():
        raise ValueError(f"a non-empty string for '{field}', got {v!r}")
    if field == "content_rating":
        valid = [r.value for r in ContentRating]
        if v not in valid:
            raise ValueError(f"one of {', '.join(valid)} for 'content_rating', got {v!r}")
    return v


def _key(field: str, v: Any) -> Any:
    """Comparison key for one value of `field`."""
    if isinstance(v, str):
        # whitespace collapsed as the catalog's name index does, so filter and predicate agree
        return service_key(v) if field == "streaming_services" else " ".join(v.split()).casefold()
    return v


#: (Constraint.text, a field value) -> whether the value satisfies the constraint. The
#: text names the field, operator and operand (their repr), so equal texts judge alike.
_VERDICTS: dict[tuple[str, Any], bool] = {}
_VERDICTS_MAX = 1 << 16


class Constraint(BaseModel):
    """One hard requirement of the user over one item field."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    field: str = Field(description="An item field, e.g. 'genres', 'runtime', 'content_rating'.")
    op: Op = Field(description="Comparison operator.")
    value: Any = Field(description="Operand: a scalar, a list (in, contains_any) or [lo, hi].")
    reveal: Reveal = Field(default=Reveal.VOLUNTEER, description="When the user states it.")

    @model_validator(mode="after")
    def _check(self) -> Constraint:
        f, op, v = self.field, self.op, self.value
        if f not in CONSTRAINABLE_FIELDS:
            raise ValueError(
                "a constrainable field (one of "
                f"{', '.join(sorted(CONSTRAINABLE_FIELDS))}), got {f!r}"
            )
        allowed = _allowed_ops(f)
        if op not in allowed:
            raise ValueError(
                f"an operator that applies to field {f!r} (one of "
                f"{', '.join(sorted(o.value for o in allowed))}), got {op.value!r}"
            )
        if op in (Op.IN, Op.CONTAINS_ANY):
            if not isinstance(v, list) or not v:
                raise ValueError(f"a non-empty list as the value of {op.value!r}, got {v!r}")
            for x in v:
                _norm_scalar(f if f not in LIST_FIELDS else "_text", x)
        elif op is Op.BETWEEN:
            if not isinstance(v, list) or len(v) != 2:
                raise ValueError(f"[lo, hi] as the value of 'between', got {v!r}")
            lo = _norm_scalar(f, v[0]) if f != "release_date" else _as_date(v[0], upper=False)
            hi = _norm_scalar(f, v[1]) if f != "release_date" else _as_date(v[1], upper=True)
            if lo > hi:
                raise ValueError(f"lo <= hi in 'between', got {v!r}")
        elif f in LIST_FIELDS:
            _norm_scalar("_text", v)
        else:
            _norm_scalar(f, v)
        return self

    # --- evaluation -------------------------------------------------------------------

    def holds(self, item: Item) -> bool:
        """Whether `item` satisfies this constraint (see the module docstring). Remembered
        per (constraint, value of the field): the same catalog values recur in every
        episode."""
        actual = getattr(item, self.field)
        try:
            key = (self.text, tuple(actual) if type(actual) is list else actual)
            verdict = _VERDICTS.get(key)
        except TypeError:  # an unhashable value: nothing to remember it by
            return self.holds_for(actual)
        if verdict is None:
            verdict = self.holds_for(actual)
            if len(_VERDICTS) >= _VERDICTS_MAX:
                _VERDICTS.clear()
            _VERDICTS[key] = verdict
        return verdict

    def holds_for(self, actual: Any) -> bool:
        f, op, v = self.field, self.op, self.value
        if actual is None:
            return op in (Op.NE, Op.NOT_CONTAINS)
        if f in LIST_FIELDS:
            have = {_key(f, a) for a in actual}
            if op is Op.CONTAINS:
                return _key(f, v) in have
            if op is Op.NOT_CONTAINS:
                return _key(f, v) not in have
            return any(_key(f, x) in have for x in v)  # contains_any
        if f == "release_date":
            if op is Op.BETWEEN:
                return _as_date(v[0], upper=False) <= actual <= _as_date(v[1], upper=True)
            if op is Op.LE:
                return bool(actual <= _as_date(v, upper=True))
            if op is Op.GE:
                return bool(actual >= _as_date(v, upper=False))
            if op is Op.IN:
                return actual in {_as_date(x, upper=False) for x in v}
            eq = actual == _as_date(v, upper=False)
            return eq if op is Op.EQ else not eq
        a = _key(f, actual.value if isinstance(actual, ContentRating) else actual)
        if op is Op.LE:
            return bool(a <= v)
        if op is Op.GE:
            return bool(a >= v)
        if op is Op.BETWEEN:
            return bool(v[0] <= a <= v[1])
        if op is Op.IN:
            return a in {_key(f, x) for x in v}
        eq = a == _key(f, v)
        return eq if op is Op.EQ else not eq

    @cached_property
    def text(self) -> str:
        """e.g. "runtime <= 100" (kept: reports print it once per scored episode)."""
        return f"{self.field} {self.op.value} {self.value!r}"

    def __str__(self) -> str:
        return self.text
