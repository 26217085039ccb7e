"""The two split schemes: AgenticRec's global 8:1:1 over all records by time (the default)
and the per-user 8:1:1 (by name)."""

import numpy as np
import pytest

from taurec.catalog.errors import DataError
from taurec.catalog.interactions import Interactions, ItemInfo, Part
from taurec.catalog.splits import global_bounds, part_of, scheme_of, split_parts, train_end


def _data(times: list[int], users: list[int] | None = None) -> Interactions:
    n = len(times)
    users = users if users is not None else [k % 7 for k in range(n)]
    items = [ItemInfo(id=f"i{k}", title=f"Item {k}") for k in range(n)]
    return Interactions.build(
        "test",
        items,
        [f"u{u}" for u in range(max(users) + 1)],
        np.array(users),
        np.arange(n),
        np.ones(n, dtype=np.float32),
        np.array(times, dtype=np.int64),
    )


def test_the_global_split_is_eight_one_one_over_all_records_by_time():
    data = _data(list(range(1000, 1100)))
    parts = split_parts(data, "global")
    assert np.bincount(parts).tolist() == [80, 10, 10]
    for earlier, later in ((Part.TRAIN, Part.VALID), (Part.VALID, Part.TEST)):
        assert data.time[parts == earlier].max() < data.time[parts == later].min()
    assert train_end(data, "global") == 1080


def test_records_of_one_second_stay_in_one_part():
    times = [10] * 75 + [20] * 10 + [30] * 15  # position 80 falls inside the 20s
    data = _data(times)
    parts = split_parts(data, "global")
    assert set(parts[data.time == 20].tolist()) == {Part.VALID}
    assert global_bounds(data).valid_from == 20


def test_the_per_user_split_is_each_users_own_and_has_no_train_end():
    data = _data(list(range(100)))
    assert (split_parts(data, "per-user") == data.parts).all()
    assert train_end(data, "per-user") is None
    # the two differ: a user's last record is test per user, not necessarily globally
    assert (split_parts(data, "per-user") != split_parts(data, "global")).any()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: scheme_of("by-user"),
            "unknown split scheme 'by-user'; expected one of global, per-user",
        ),
        (lambda: part_of("dev"), "unknown split part 'dev'; expected one of train, valid, test"),
    ],
)
def test_an_unknown_scheme_or_part_names_what_was_expected(call, message: str):
    with pytest.raises(DataError, match=message):
        call()
