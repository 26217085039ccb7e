"""What an item's category list means in each interaction source: a root-to-leaf path
(Amazon Reviews 2023: ["CDs & Vinyl", "Rock", "Classic Rock"]) or flat labels
(MovieLens genres; the synthetic data, whose categories are the built-in catalog's
genres). The source is named by the prefix of `Interactions.source` ("amazon:...",
"movielens:...", "synthetic:..."); a source this module does not know is read as flat
labels, which never invents a hierarchy.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class CategoryShape(StrEnum):
    PATH = "path"  # one root-to-leaf path per item
    LABELS = "labels"  # independent labels (genres), in no order that means anything


#: Source-name prefix (the part before the first ":") -> what its categories are.
SHAPES: Final[dict[str, CategoryShape]] = {
    "amazon": CategoryShape.PATH,
    "movielens": CategoryShape.LABELS,
    "movielens-catalog": CategoryShape.LABELS,
    "synthetic": CategoryShape.LABELS,
}


def category_shape(source: str) -> CategoryShape:
    """The shape of the categories of interaction data named `source`."""
    return SHAPES.get(source.partition(":")[0].strip(), CategoryShape.LABELS)
