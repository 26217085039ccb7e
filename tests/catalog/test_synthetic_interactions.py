"""The synthetic interaction generator: seeded, block-stable, and history predicts."""

import numpy as np

from taurec.catalog.builders.synthetic_interactions import SyntheticSpec, generate_interactions
from taurec.catalog.store import Catalog

ITEMS = Catalog.load("builtin").items


def test_the_same_seed_gives_the_same_records():
    a = generate_interactions(ITEMS, SyntheticSpec(50, 500, 3))
    b = generate_interactions(ITEMS, SyntheticSpec(50, 500, 3))
    assert a.sha256() == b.sha256()


def test_a_users_records_do_not_depend_on_how_many_users_were_asked_for():
    small = generate_interactions(ITEMS, SyntheticSpec(30, 300, 0))
    large = generate_interactions(ITEMS, SyntheticSpec(1500, 15000, 0))
    lo, hi = small.span(7)
    lo2, hi2 = large.span(7)
    assert list(small.item[lo:hi]) == list(large.item[lo2:hi2])


def test_ratings_are_one_to_five_and_times_lie_in_the_paper_year():
    data = generate_interactions(ITEMS, SyntheticSpec(100, 1000, 0))
    assert set(np.unique(data.rating)) <= {1.0, 2.0, 3.0, 4.0, 5.0}
    assert data.time.min() >= 1_664_582_400 and data.time.max() < 1_664_582_400 + 2 * 365 * 86_400


def test_no_user_takes_an_item_twice():
    data = generate_interactions(ITEMS, SyntheticSpec(100, 1000, 0))
    for u in range(100):
        lo, hi = data.span(u)
        assert len(set(data.item[lo:hi].tolist())) == hi - lo
