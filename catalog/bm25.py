"""Build a `bm25s.BM25` retriever from token ids with vectorised numpy, a chunk at a time.

`bm25s.BM25.index` walks documents one by one in Python, which takes about a minute at a
million items. `Bm25Builder` takes documents in chunks (as token ids), keeps only each
chunk's distinct (document, token) pairs and their counts, and at the end computes the
same score matrix (Lucene BM25, float32) in a few array operations: first per document
(CSR), then transposed by `scipy.sparse` into the column-major (CSC) layout `bm25s` reads.
Memory stays near the size of the final matrix, never the size of every token of the
corpus. `tests/catalog/test_search.py` checks the matrix against `bm25s`'s own build.
"""

from __future__ import annotations

from typing import Any

import bm25s
import numpy as np
import numpy.typing as npt
import scipy.sparse

K1 = 1.5
B = 0.75
#: Matrix entries weighted per step in `finish` (bounds its float64 temporaries).
_WEIGHT_STEP = 4_000_000


class Bm25Builder:
    """Collects documents as token ids, chunk by chunk; `finish` makes the retriever."""

    def __init__(self) -> None:
        self._tokens: list[npt.NDArray[Any]] = []  # distinct tokens per doc, doc-major
        self._tf: list[npt.NDArray[Any]] = []
        self._nnz: list[npt.NDArray[Any]] = []  # distinct tokens per document
        self._lengths: list[npt.NDArray[Any]] = []

    def add(self, token_ids: npt.NDArray[np.int32], lengths: npt.NDArray[np.int64]) -> None:
        """Documents given as concatenated `token_ids` split by `lengths`."""
        n_docs = len(lengths)
        width = int(token_ids.max()) + 1 if len(token_ids) else 1
        doc = np.repeat(np.arange(n_docs, dtype=np.int64), lengths)
        pairs, tf = np.unique(doc * width + token_ids, return_counts=True)
        doc_of, token = np.divmod(pairs, width)
        self._tokens.append(token.astype(np.int32))
        # Counts within one document: 16 bits unless a token repeats 65,536 times or more.
        self._tf.append(tf.astype(np.uint16 if tf.max(initial=0) < 2**16 else np.int32))
        self._nnz.append(np.bincount(doc_of, minlength=n_docs).astype(np.int64))
        self._lengths.append(np.asarray(lengths, dtype=np.int64))

    def finish(self, vocab: dict[str, int]) -> bm25s.BM25:
        """The retriever; `vocab` maps every token to its id (ids 0 .. len(vocab) - 1) and
        becomes the retriever's vocabulary, so `retriever.get_tokens_ids` works on it."""
        n_vocab = len(vocab)
        lengths = _drain(self._lengths, np.int64)
        n_docs = len(lengths)
        nnz = _drain(self._nnz, np.int64)
        # 32-bit indexes while they fit: scipy keeps them, and the matrix stays half the size.
        index = np.int32 if nnz.sum() < 2**31 and n_docs < 2**31 else np.int64
        indptr = np.zeros(n_docs + 1, dtype=index)
        np.cumsum(nnz, out=indptr[1:])
        del nnz
        indices = _drain(self._tokens, index)
        tf = _drain(self._tf, np.result_type(np.uint16, *self._tf).type)
        df = np.bincount(indices, minlength=n_vocab)
        idf = np.log1p((n_docs - df + 0.5) / (df + 0.5)).astype(np.float32)
        avg_len = float(lengths.mean()) if n_docs else 0.0
        doc_norm = K1 * ((1 - B) + B * lengths / avg_len) if avg_len else np.full(n_docs, K1)
        data = np.empty(len(indices), dtype=np.float32)
        first = 0  # weighted a run of whole documents at a time, about _WEIGHT_STEP entries
        while first < n_docs:
            end = int(np.searchsorted(indptr, indptr[first] + _WEIGHT_STEP, side="right")) - 1
            end = min(max(end, first + 1), n_docs)
            lo, hi = int(indptr[first]), int(indptr[end])
            norm = np.repeat(doc_norm[first:end], np.diff(indptr[first : end + 1]))
            col, f = indices[lo:hi], tf[lo:hi]
            data[lo:hi] = (idf[col].astype(np.float64) * (f / (norm + f))).astype(np.float32)
            first = end
        del tf
        csr = scipy.sparse.csr_matrix((data, indices, indptr), shape=(n_docs, n_vocab), copy=False)
        del data, indices, indptr
        csc = csr.tocsc()
        del csr
        retriever = bm25s.BM25(method="lucene", k1=K1, b=B)
        # These are the attributes bm25s.BM25.index (and .load) set; bm25s is pinned below 0.4.
        retriever.scores = {
            "data": csc.data,
            "indices": csc.indices.astype(np.int32, copy=False),
            "indptr": csc.indptr.astype(np.int64, copy=False),
            "num_docs": n_docs,
        }
        retriever.vocab_dict = vocab
        retriever.unique_token_ids_set = set(vocab.values())
        retriever.nonoccurrence_array = None
        return retriever


def _drain(chunks: list[npt.NDArray[Any]], dtype: type[np.generic]) -> npt.NDArray[Any]:
    """The chunks joined into one array of `dtype`; each chunk is freed once copied."""
    out = np.empty(sum(len(c) for c in chunks), dtype=dtype)
    at = 0
    chunks.reverse()
    while chunks:
        chunk = chunks.pop()
        out[at : at + len(chunk)] = chunk
        at += len(chunk)
        del chunk
    return out


def build_bm25(
    token_ids: npt.NDArray[np.int32],
    lengths: npt.NDArray[np.int64],
    vocab: dict[str, int],
) -> bm25s.BM25:
    """A retriever over documents given as concatenated `token_ids` split by `lengths`."""
    builder = Bm25Builder()
    builder.add(token_ids, lengths)
    return builder.finish(vocab)
