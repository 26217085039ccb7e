"""The item-item model: its similarities, neighbours and scores against a dense reference,
and training only on records before the cutoff."""

import numpy as np
from support.ranking import small_data

from taurec.catalog.collaborative import ItemItemModel

DATA = small_data()
CUTOFF = int(np.quantile(DATA.time, 0.7))
MODEL = ItemItemModel(DATA, CUTOFF)


def _dense() -> np.ndarray:
    x = np.zeros((len(DATA.user_ids), len(DATA.items)))
    keep = DATA.time < CUTOFF
    x[DATA.user[keep], DATA.item[keep]] = 1.0
    return x


def test_similar_items_are_the_highest_cosine_neighbours():
    x = _dense()
    norms = np.sqrt(x.sum(axis=0))
    norms[norms == 0] = 1
    cos = (x.T @ x) / np.outer(norms, norms)
    np.fill_diagonal(cos, 0)
    for i in (0, 5, 17):
        got = MODEL.similar_items(i, 5, exclude=[i])
        expected = sorted(np.flatnonzero(cos[i] > 0), key=lambda j: (-cos[i, j], j))[:5]
        assert got == expected


def test_similar_users_are_the_highest_cosine_overlaps():
    x = _dense()
    items = [1, 2, 3, 40]
    v = np.zeros(x.shape[1])
    v[items] = 1
    norms = np.sqrt(x.sum(axis=1))
    norms[norms == 0] = 1
    scores = (x @ v) / norms
    scores[7] = 0
    expected = sorted(np.flatnonzero(scores > 0), key=lambda u: (-scores[u], u))[:3]
    assert MODEL.similar_users(items, 3, exclude=7) == expected


def test_records_at_or_after_the_cutoff_do_not_train_the_model():
    later = ItemItemModel(DATA.without_records_from(CUTOFF), CUTOFF)
    assert (later.similarity != MODEL.similarity).nnz == 0
    assert list(later.popularity) == list(MODEL.popularity)
