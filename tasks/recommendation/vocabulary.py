"""The catalog's spellings per field, for spotting constraint values no item has.

A value is known when some item spells it the same up to case (`str.casefold`); an unknown
one gets "did you mean" hints from the closest known spellings. The membership columns
(genres, cast, director, language) settle the common case, a value some item has, without
reading items; a field's full table of spellings is read from the items only when a value
is not found that way (a likely typo, which needs the hints) or the field has no column
(title, keywords). Either way the answer is the one a walk over every item gives.
"""

from __future__ import annotations

import difflib

from taurec.catalog.columns import Membership
from taurec.catalog.item import LIST_FIELDS
from taurec.catalog.services import service_key
from taurec.catalog.store import Catalog
from taurec.tasks.recommendation.constraint import Constraint

#: Fields whose constraint values should be spelled as some item spells them.
VOCABULARY_FIELDS = ("genres", "cast", "keywords", "director", "original_language", "title")
#: The fields a membership column lists every spelling's key of.
_MEMBERSHIPS = {
    "genres": "genres",
    "cast": "cast",
    "director": "director",
    "original_language": "language",
}


class Vocabulary:
    """The catalog's spellings per field (see the module docstring)."""

    def __init__(self, catalog: Catalog) -> None:
        self._catalog = catalog
        self.services = {service_key(s) for s in catalog.services()}
        self._spellings: dict[str, dict[str, str]] = {}

    def _table(self, field: str) -> dict[str, str]:
        """Casefolded spelling -> the first spelling, over every item, in file order."""
        table = self._spellings.get(field)
        if table is None:
            table = self._spellings[field] = {}
            for item in self._catalog.items:
                value = getattr(item, field)
                for v in value if field in LIST_FIELDS else [value]:
                    if v is not None:
                        table.setdefault(v.casefold(), v)
        return table

    def _known_by_column(self, field: str, value: str) -> bool:
        """Whether a column shows some item spelling `value` the same up to case."""
        name = _MEMBERSHIPS.get(field)
        if name is None or field in self._spellings:
            return False
        membership: Membership = self._catalog.columns.members[name]
        if field == "original_language":  # stored as spelled: few, compared one by one
            return any(k.casefold() == value.casefold() for k in membership.keys)
        code = membership.code(value)
        # The label is a spelling some item has; a key match alone may differ in spacing.
        return code is not None and membership.labels[code].casefold() == value.casefold()

    def unknown(self, c: Constraint) -> list[str]:
        """Hints for each value of `c` that no item has, e.g. "'Scifi' (did you mean 'Sci-Fi'?)"."""
        if c.field not in VOCABULARY_FIELDS:
            return []
        values = c.value if isinstance(c.value, list) else [c.value]
        out = []
        for v in values:
            if not isinstance(v, str) or self._known_by_column(c.field, v):
                continue
            table = self._table(c.field)
            if v.casefold() in table:
                continue
            close = difflib.get_close_matches(v.casefold(), list(table), n=3, cutoff=0.6)
            hint = f" (did you mean {', '.join(repr(table[k]) for k in close)}?)" if close else ""
            out.append(f"{v!r}{hint}")
        return out
