"""Splitting interactions into train, valid and test, by one of two named schemes.

- `global` (the default; AgenticRec's): every record sorted by time, the first 80% train,
  the next 10% valid, the last 10% test. The parts are cut at two times (the times of the
  records at positions floor(0.8 n) and floor(0.9 n)), so records of the same second are
  never split apart and "train" is exactly "before `valid_from`".
- `per-user`: each user's records in time order, the first floor(0.8 n) train, up to
  floor(0.9 n) valid, the rest test; users with fewer than 3 records are all train
  (`Interactions.parts`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

import numpy as np

from taurec.catalog.errors import DataError
from taurec.catalog.interactions import Interactions, Part

Scheme = Literal["global", "per-user"]
SCHEMES: Final[tuple[Scheme, ...]] = ("global", "per-user")
PARTS: Final = {"train": Part.TRAIN, "valid": Part.VALID, "test": Part.TEST}
TRAIN_SHARE: Final = 0.8
VALID_SHARE: Final = 0.1


def scheme_of(value: object, source: str = "split") -> Scheme:
    for scheme in SCHEMES:
        if value == scheme:
            return scheme
    raise DataError(
        f"unknown split scheme {value!r}; expected one of {', '.join(SCHEMES)}", source=source
    )


def part_of(value: object, source: str = "part") -> Part:
    part = PARTS.get(str(value))
    if part is None:
        raise DataError(
            f"unknown split part {value!r}; expected one of {', '.join(PARTS)}", source=source
        )
    return part


@dataclass(frozen=True)
class GlobalBounds:
    """The global split's two cut times: train < valid_from <= valid < test_from <= test."""

    valid_from: int
    test_from: int


def global_bounds(data: Interactions) -> GlobalBounds:
    if not len(data):
        raise DataError("has no records to split", source=data.source)
    times = np.sort(data.time)
    n = len(times)
    return GlobalBounds(
        int(times[min(n - 1, int(np.floor(TRAIN_SHARE * n)))]),
        int(times[min(n - 1, int(np.floor((TRAIN_SHARE + VALID_SHARE) * n)))]),
    )


def split_parts(data: Interactions, scheme: Scheme) -> np.ndarray:
    """The part (a `Part` value, int8) of every record, in the data's record order."""
    if scheme == "per-user":
        return data.parts
    b = global_bounds(data)
    out = np.full(len(data), Part.TRAIN, dtype=np.int8)
    out[data.time >= b.valid_from] = Part.VALID
    out[data.time >= b.test_from] = Part.TEST
    return out


def train_end(data: Interactions, scheme: Scheme) -> int | None:
    """The time before which every record is train (the global split's `valid_from`);
    None for the per-user split, whose train records reach to the data's end."""
    return global_bounds(data).valid_from if scheme == "global" and len(data) else None
