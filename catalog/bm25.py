"""Build a `bm25s.BM25` retriever from token ids with vectorised numpy.

`bm25s.BM25.index` walks documents one by one in Python, which takes about a minute at a
million items. This builds the same score matrix (Lucene BM25, CSC layout, float32) in a
few array operations and hands it to a `bm25s.BM25`, whose `get_scores_from_ids` then does
retrieval. `tests/catalog/test_search.py` checks the matrix against `bm25s`'s own build.
"""

from __future__ import annotations

import bm25s
import numpy as np
import numpy.typing as npt

K1 = 1.5
B = 0.75


def build_bm25(
    token_ids: npt.NDArray[np.int32],
    lengths: npt.NDArray[np.int64],
    vocab: dict[str, int],
) -> bm25s.BM25:
    """A retriever over documents given as concatenated `token_ids` split by `lengths`.

    `vocab` maps every token to its id (ids 0 .. len(vocab) - 1); it becomes the
    retriever's vocabulary, so `retriever.get_tokens_ids` works on it.
    """
    n_docs, n_vocab = len(lengths), len(vocab)
    doc = np.repeat(np.arange(n_docs, dtype=np.int64), lengths)
    # One sort yields both term frequencies and the column-major (CSC) order bm25s reads.
    pairs, tf = np.unique(token_ids.astype(np.int64) * n_docs + doc, return_counts=True)
    col, row = np.divmod(pairs, n_docs)
    df = np.bincount(col, minlength=n_vocab)
    idf = np.log1p((n_docs - df + 0.5) / (df + 0.5)).astype(np.float32)
    avg_len = float(lengths.mean()) if n_docs else 0.0
    norm = K1 * ((1 - B) + B * lengths[row] / avg_len) if avg_len else np.full(len(row), K1)
    data = (idf[col].astype(np.float64) * (tf / (norm + tf))).astype(np.float32)
    indptr = np.zeros(n_vocab + 1, dtype=np.int64)
    np.cumsum(df, out=indptr[1:])

    retriever = bm25s.BM25(method="lucene", k1=K1, b=B)
    # These are the attributes bm25s.BM25.index (and .load) set; bm25s is pinned below 0.4.
    retriever.scores = {
        "data": data,
        "indices": row.astype(np.int32),
        "indptr": indptr,
        "num_docs": n_docs,
    }
    retriever.vocab_dict = vocab
    retriever.unique_token_ids_set = set(vocab.values())
    retriever.nonoccurrence_array = None
    return retriever
