"""A collaborative model over interactions: item-item cosine similarity of co-consumption
(scipy sparse), trained on the records strictly before a cutoff time.

Item-to-item: cos(i, j) over the binary user x item matrix; user-to-user: the users
whose training records overlap most (cosine) with a given set of items. A candidate's
item-kNN score for a user is the sum of its similarities to the user's history.
`bench/ranking_speed.py` measures it against popularity and random rankers.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from taurec.catalog.interactions import Interactions

#: Weight of a history item one step older than the next (sessions make the latest count most).
RECENCY_DECAY = 0.6


class ItemItemModel:
    def __init__(self, data: Interactions, cutoff: int) -> None:
        self.cutoff = cutoff
        keep = data.time < cutoff
        n_users, n_items = len(data.user_ids), len(data.items)
        x = sp.csr_matrix(
            (np.ones(int(keep.sum()), dtype=np.float32), (data.user[keep], data.item[keep])),
            shape=(n_users, n_items),
        )
        x.data[:] = 1.0  # repeats count once
        x.sum_duplicates()
        x.data[:] = 1.0
        self.users = x  # users x items, binary
        self.popularity = np.asarray(x.sum(axis=0)).ravel()
        item_norm = np.sqrt(self.popularity)
        item_norm[item_norm == 0] = 1.0
        xn = x @ sp.diags(1.0 / item_norm)
        sim = (xn.T @ xn).tocsr()
        sim.setdiag(0.0)
        sim.eliminate_zeros()
        self.similarity = sim  # items x items
        user_norm = np.sqrt(np.asarray(x.sum(axis=1)).ravel())
        user_norm[user_norm == 0] = 1.0
        self._user_norm = user_norm
        self._by_item = x.tocsc()  # item -> the users who took it

    def similar_items(self, i: int, k: int, exclude: Sequence[int] = ()) -> list[int]:
        row = self.similarity.getrow(i)
        idx, val = row.indices, row.data
        mask = ~np.isin(idx, np.asarray(exclude, dtype=np.int64))
        idx, val = idx[mask], val[mask]
        top = np.lexsort((idx, -val))[:k]
        return [int(j) for j in idx[top]]

    def similar_users(self, items: Sequence[int], k: int, exclude: int | None = None) -> list[int]:
        """The k users whose training items overlap most (cosine) with `items`; ties by index."""
        if not items:
            return []
        cols = self._by_item
        takers = np.concatenate([cols.indices[cols.indptr[i] : cols.indptr[i + 1]] for i in items])
        overlap = np.bincount(takers, minlength=self.users.shape[0]).astype(np.float64)
        if exclude is not None:
            overlap[exclude] = 0.0
        nz = np.flatnonzero(overlap)
        scores = overlap[nz] / self._user_norm[nz]
        if scores.size > k:  # sort only the users at or above the k-th best score
            kth = np.partition(scores, scores.size - k)[scores.size - k]
            keep = scores >= kth
            nz, scores = nz[keep], scores[keep]
        best = np.lexsort((nz, -scores))[:k]
        return [int(u) for u in nz[best]]

    def scores(
        self, history: Sequence[int], candidates: Sequence[int], decay: float = RECENCY_DECAY
    ) -> np.ndarray:
        """Item-kNN score of each candidate: its similarity to each history item (oldest
        first), weighted `decay`^(items since), so the latest items count most."""
        if not history:
            return np.zeros(len(candidates))
        weights = decay ** np.arange(len(history) - 1, -1, -1, dtype=np.float64)
        sub = self.similarity[np.asarray(history)][:, np.asarray(candidates)]
        return np.asarray(sub.T @ weights).ravel()
