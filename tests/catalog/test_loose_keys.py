"""LooseKeys.closest answers as rapidfuzz's extractOne over every key does."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from rapidfuzz import fuzz, process

from taurec.catalog.loose_keys import LooseKeys

WORDS = st.text(alphabet="abcde ", min_size=0, max_size=14)


CUTOFFS = st.sampled_from([0.0, 50.0, 75.0, 90.0, 100.0])


@given(st.lists(WORDS, max_size=30), WORDS, CUTOFFS, st.sampled_from([0.0, 4.0]))
def test_the_closest_key_is_the_one_extract_one_finds(keys, span, cutoff, whole_share):
    whole = process.extractOne(span, keys, scorer=fuzz.ratio, score_cutoff=cutoff)
    got = LooseKeys(keys, whole_share=whole_share).closest(span, cutoff)
    assert got == (None if whole is None else (whole[2], whole[1]))


def test_among_equal_scores_the_earliest_key_wins():
    keys = ["silent harbor x", "silent harbr", "silent harbour"]
    assert LooseKeys(keys, whole_share=0).closest("silent harbou", 80.0) == (
        process.extractOne("silent harbou", keys, scorer=fuzz.ratio)[2],
        process.extractOne("silent harbou", keys, scorer=fuzz.ratio)[1],
    )


def test_no_key_at_the_cutoff_is_none():
    assert LooseKeys(["night train", "ashen bell"]).closest("zzzzzzzz", 90.0) is None
