"""IndexedSequence: the indexing rules its lazy sequences share."""

from __future__ import annotations

import pytest

from taurec.catalog.indexed import IndexedSequence


class Squares(IndexedSequence[int]):
    element, elements = "square", "squares"

    def __len__(self) -> int:
        return 4

    def _at(self, i: int) -> int:
        return i * i


def test_an_index_counts_from_the_start_and_a_negative_one_from_the_end():
    assert (Squares()[1], Squares()[-1]) == (1, 9)


def test_a_slice_is_a_list():
    assert Squares()[1:3] == [1, 4] and Squares()[::-2] == [9, 1]


@pytest.mark.parametrize("index", [4, -5])
def test_an_index_out_of_range_names_the_element_and_the_length(index):
    with pytest.raises(IndexError, match=rf"square {index} out of range for 4 squares"):
        Squares()[index]


def test_the_sequence_protocol_comes_with_it():
    assert list(Squares()) == [0, 1, 4, 9] and 4 in Squares() and Squares().index(9) == 3
