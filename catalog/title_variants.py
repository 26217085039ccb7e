"""The reading forms of a saved title index: which keys name which saved titles.

A title's other reading forms (catalog/title_forms.py: "The Usual Suspects" for "Usual
Suspects, The (1995)") are keys of their own beside the exact ones. A catalog folder
saves them as a table (`titles/variants.*`, title index version 2): the keys sorted,
each with its spelling and the positions of the exact keys it names. An index saved
before the table existed (version 1) has them computed from its saved titles on first
use: the same table, and not one item read.

Keys are title tokens joined by the index's separator (`taurec.catalog.title_index.SEP`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from taurec.catalog.strings import StringColumn, save_strings
from taurec.catalog.title_forms import reading_keys

#: Each variant key: its spelling and the positions of the exact keys it names.
Variant = tuple[str, list[int]]

VARIANT_COLUMNS = ("variants.keys", "variants.spellings")
VARIANT_ARRAYS = ("variants.targets.npy", "variants.starts.npy")


class VariantsBuilder:
    """Collects each reading form's first spelling and the exact keys it names, in row
    order, while the title index is built."""

    def __init__(self, sep: str) -> None:
        self._sep = sep
        self._forms: dict[str, tuple[str, dict[str, None]]] = {}

    def add(self, title: str, exact_key: str) -> None:
        for form, spelling in reading_keys(title):
            self._forms.setdefault(self._sep.join(form), (spelling, {}))[1][exact_key] = None

    def keys(self) -> list[str]:
        return sorted(self._forms)

    def save(self, folder: Path, exact_keys: Sequence[str]) -> None:
        """Write the table; `exact_keys`: the saved exact keys, in their saved order."""
        position = {k: i for i, k in enumerate(exact_keys)}
        keys = self.keys()
        targets = [[position[k] for k in self._forms[v][1]] for v in keys]
        save_strings(folder, "variants.keys", keys)
        save_strings(folder, "variants.spellings", (self._forms[v][0] for v in keys))
        flat = np.fromiter(itertools.chain.from_iterable(targets), dtype=np.int64)
        np.save(folder / "variants.targets.npy", flat)
        starts = np.zeros(len(targets) + 1, dtype=np.int64)
        np.cumsum([len(t) for t in targets], out=starts[1:])
        np.save(folder / "variants.starts.npy", starts)


class SavedVariants:
    """A saved variants table, opened memory-mapped (ValueError when damaged)."""

    def __init__(self, folder: Path) -> None:
        self.keys = StringColumn(folder, "variants.keys")
        self._spellings = StringColumn(folder, "variants.spellings")
        self._targets: npt.NDArray[np.int64] = np.load(
            folder / "variants.targets.npy", mmap_mode="r"
        )
        self._starts: npt.NDArray[np.int64] = np.load(folder / "variants.starts.npy", mmap_mode="r")
        n = len(self.keys)
        if (
            len(self._spellings) != n
            or self._starts.shape != (n + 1,)
            or self._targets.ndim != 1
            or not np.issubdtype(self._targets.dtype, np.integer)
            or not np.issubdtype(self._starts.dtype, np.integer)
            or (n and int(self._starts[-1]) != len(self._targets))
        ):
            raise ValueError("the variants table's keys, spellings and targets do not fit together")

    def get(self, key: str) -> Variant | None:
        at = self.keys.position(key)
        if at is None:
            return None
        targets = self._targets[int(self._starts[at]) : int(self._starts[at + 1])]
        return self._spellings[at], targets.tolist()


def computed_variants(
    titles: Sequence[str], first_row: Callable[[int], int], sep: str
) -> dict[str, Variant]:
    """The table a version-1 index lacks, from its exact keys' titles (`titles[p]` is the
    spelling of exact key `p`, `first_row(p)` the first row holding it): each form's
    spelling is the one of the title whose first item comes first, as when saved."""
    found: dict[str, tuple[int, str, list[int]]] = {}
    for at, title in enumerate(titles):
        for form, spelling in reading_keys(title):
            key, row = sep.join(form), first_row(at)
            known = found.get(key)
            if known is None:
                found[key] = (row, spelling, [at])
                continue
            known[2].append(at)
            if row < known[0]:
                found[key] = (row, spelling, known[2])
    return {k: (spelling, ats) for k, (_, spelling, ats) in found.items()}
