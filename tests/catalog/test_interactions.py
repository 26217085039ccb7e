"""The interaction store: ordering, the per-user chronological 8:1:1 split, time cuts."""

import numpy as np
import pytest

from taurec.catalog.errors import DataError
from taurec.catalog.interactions import Interactions, ItemInfo, Part


def _data(counts: list[int]) -> Interactions:
    users = np.concatenate([np.full(n, u) for u, n in enumerate(counts)])
    times = np.concatenate([np.arange(n)[::-1] * 10 + 100 for n in counts])  # given newest first
    items = [ItemInfo(id=f"i{k}", title=f"Item {k}") for k in range(12)]
    return Interactions.build(
        "test",
        items,
        [f"u{u}" for u in range(len(counts))],
        users,
        np.concatenate([np.arange(n) for n in counts]),
        np.ones(len(users), dtype=np.float32),
        times,
    )


def test_records_are_sorted_by_user_then_time():
    data = _data([4, 3])
    lo, hi = data.span(0)
    assert list(data.time[lo:hi]) == sorted(data.time[lo:hi])


def test_ten_records_split_eight_one_one_in_time_order():
    data = _data([10])
    assert list(data.parts) == [Part.TRAIN] * 8 + [Part.VALID, Part.TEST]


def test_users_with_fewer_than_three_records_are_all_train():
    data = _data([2, 3])
    assert list(data.parts[:2]) == [Part.TRAIN, Part.TRAIN]
    assert list(data.parts[2:]) == [Part.TRAIN, Part.TRAIN, Part.TEST]


def test_before_excludes_records_at_the_cut_time():
    data = _data([5])
    lo, hi = data.before(0, 120)
    assert list(data.time[lo:hi]) == [100, 110]


def test_a_future_free_copy_drops_everything_from_the_cut_on():
    data = _data([5, 4]).without_records_from(120)
    assert data.time.max() < 120 and len(data) == 4


def test_an_unknown_user_names_the_user_and_the_field():
    with pytest.raises(DataError, match=r"field 'user_id': unknown user 'nobody'"):
        _data([3]).user_of("nobody")
