"""Free-text search: BM25 (via `bm25s`) over title, overview, genres, cast, director, keywords.

Ranking rules, in order:
1. An item whose whole title equals the query (ignoring case, accents and punctuation)
   ranks above every item whose title does not.
2. Then by BM25 score; the title counts `TITLE_WEIGHT` times, so title words outweigh
   the same words in an overview.
3. Ties break by item id, ascending, so results are the same on every run.

Tokens are runs of letters and digits, case- and accent-folded; there is no stemming and
no stopword list (BM25's idf already makes "the" nearly worthless). Scores are Lucene
BM25 (k1 = 1.5, b = 0.75), computed by `bm25s`.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import bm25s
import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from taurec.catalog.bm25 import Bm25Builder
from taurec.catalog.columns import Columns
from taurec.catalog.item import Item

if TYPE_CHECKING:
    import pyarrow as pa

#: How many times the title is repeated in an item's searchable text.
TITLE_WEIGHT = 3
MAX_LIMIT = 100
_CHUNK = 50_000  # items tokenised per batch: bounds the memory of the flat token list
_TOKEN = re.compile(r"\w+")
# The Unicode blocks of combining diacritical marks, left over after NFKD decomposition.
_DIACRITICS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


class QueryError(ValueError):
    """A search request that cannot be run (empty query, limit out of range, ...)."""


class SearchHit(BaseModel):
    """One ranked search result."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    item_id: str = Field(description="Id of the matching item.")
    title: str = Field(description="The item's title.")
    year: int = Field(description="Release year.")
    score: float = Field(description="Relevance; higher is better. Exact title matches rank first.")


def _fold(text: str) -> str:
    """Casefold and strip diacritics ("Amélie" -> "amelie"); other scripts are kept."""
    text = text.casefold()
    if text.isascii():
        return text
    return _DIACRITICS.sub("", unicodedata.normalize("NFKD", text))


def tokenize(text: str) -> list[str]:
    """Case- and accent-folded word tokens of `text`."""
    return _TOKEN.findall(_fold(text))


def _document(item: Item) -> str:
    parts = [item.title] * TITLE_WEIGHT
    parts += [item.overview, *item.genres, *item.cast, item.director or "", *item.keywords]
    return " ".join(parts)


def _title_key(title: str) -> str:
    return " ".join(tokenize(title))


def title_hash(key: str | bytes) -> int:
    """A 64-bit hash of a title key that is the same in every process (saved with the index)."""
    raw = key.encode() if isinstance(key, str) else key
    return int.from_bytes(hashlib.blake2b(raw, digest_size=8).digest(), "little", signed=True)


# Batch tokenising: texts are joined by a separator and split in one pass over bytes. An
# ASCII text's tokens are its runs of [a-z0-9_] once case-folded, so mapping every other
# byte to a space and splitting finds them; any other text is tokenised by `tokenize`
# first and its tokens joined by spaces (UTF-8 continuation bytes are all >= 0x80 and kept).
_SEP = "\x1e"
_KEPT = set(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_\x1e")
_BYTE_TABLE = bytes(c if c in _KEPT or c >= 0x80 else 0x20 for c in range(256))


def _prepared(text: str) -> str:
    folded = text.casefold()
    if folded.isascii():
        return folded.replace(_SEP, " ")
    return " ".join(tokenize(text))


def _joined(texts: Iterable[str]) -> bytes:
    """The texts' tokens separated by spaces, each text's followed by the separator token."""
    texts = list(texts)
    # Case folding works character by character, so when the whole batch folds to ASCII
    # (and no text holds the separator) it is folded in one call, not text by text.
    folded = f" {_SEP} ".join(texts).casefold()
    if not (folded.isascii() and folded.count(_SEP) == len(texts) - 1):
        folded = f" {_SEP} ".join(map(_prepared, texts))
    return (folded + f" {_SEP}").encode().translate(_BYTE_TABLE)


def tokenize_batch(texts: Iterable[str]) -> list[bytes]:
    """Every text's tokens (UTF-8), each text's followed by the separator token `b"\\x1e"`.

    The same tokens `tokenize` gives, text by text, for a fraction of the time.
    """
    return _joined(texts).split()


def _token_array(texts: Iterable[str]) -> pa.Array:
    """`tokenize_batch`'s tokens as an Arrow string array, split in C++ (no Python objects).

    The joined bytes hold only spaces between tokens (every other ASCII byte is mapped to a
    space), so splitting on runs of ASCII whitespace is `bytes.split`, once the leading
    spaces are gone (Arrow makes an empty first token of them).
    """
    import pyarrow as pa  # imported when a catalog is indexed, not when one is opened
    import pyarrow.compute as pc

    data = _joined(texts).lstrip(b" ")
    offsets = pa.py_buffer(np.array([0, len(data)], dtype=np.int64))
    whole = pa.LargeStringArray.from_buffers(1, offsets, pa.py_buffer(data))
    return pc.ascii_split_whitespace(whole).flatten()


class SearchIndexBuilder:
    """Tokenises items a chunk at a time; `finish` makes the BM25 retriever and title hashes."""

    def __init__(self) -> None:
        # Token 0 is the empty token: bm25s scores an empty query through it; no item has it.
        self._vocab: dict[str, int] = {"": 0}
        self._bm25 = Bm25Builder()
        self._title_hash: list[npt.NDArray[np.int64]] = []

    def add(self, items: Sequence[Item]) -> None:
        for start in range(0, len(items), _CHUNK):
            chunk = items[start : start + _CHUNK]
            ids, lengths = self._token_ids(_token_array(map(_document, chunk)))
            self._bm25.add(ids, lengths)
            keys = _joined(item.title for item in chunk).split(_SEP.encode())[: len(chunk)]
            hashes = (title_hash(b" ".join(key.split())) for key in keys)
            self._title_hash.append(np.fromiter(hashes, np.int64, len(chunk)))

    def _token_ids(self, tokens: pa.Array) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64]]:
        """Token ids (new tokens join the vocabulary, in order of first appearance) and the
        token count of each text. Arrow numbers the chunk's distinct tokens in order of
        first appearance, so only those (not every token) are looked up in Python."""
        import pyarrow.compute as pc

        encoded = pc.dictionary_encode(tokens)
        vocab, sep = self._vocab, _SEP
        distinct = encoded.dictionary.to_pylist()
        lookup = np.fromiter(
            (-1 if t == sep else vocab.setdefault(t, len(vocab)) for t in distinct),
            np.int32,
            len(distinct),
        )
        ids = lookup[encoded.indices.to_numpy(zero_copy_only=False)]
        ends = np.flatnonzero(ids < 0)
        lengths = np.diff(ends, prepend=-1) - 1
        return ids[ids >= 0], lengths.astype(np.int64)

    def finish(self) -> tuple[bm25s.BM25, npt.NDArray[np.int64]]:
        """The retriever (its vocabulary is the token vocabulary) and each row's title hash."""
        hashes = self._title_hash
        title_hashes = np.concatenate(hashes) if hashes else np.zeros(0, dtype=np.int64)
        return self._bm25.finish(self._vocab), title_hashes


class SearchIndex:
    """A BM25 index over a list of items (see the module docstring for ranking).

    Built from items (`build`) or from a saved retriever and title hashes
    (`taurec.catalog.folder`); `items` is only read for the rows a query returns.
    """

    def __init__(
        self,
        items: Sequence[Item],
        id_rank: npt.NDArray[np.integer],
        retriever: bm25s.BM25,
        title_hashes: npt.NDArray[np.int64],
    ) -> None:
        self._items = items
        self._id_rank = id_rank
        self._bm25 = retriever
        self._vocab: dict[str, int] = retriever.vocab_dict
        self._title_hash = title_hashes

    @classmethod
    def build(cls, items: Sequence[Item], columns: Columns) -> SearchIndex:
        builder = SearchIndexBuilder()
        builder.add(items)
        retriever, title_hashes = builder.finish()
        return cls(items, columns.id_rank, retriever, title_hashes)

    @property
    def retriever(self) -> bm25s.BM25:
        return self._bm25

    @property
    def title_hashes(self) -> npt.NDArray[np.int64]:
        return self._title_hash

    def scores(self, query: str) -> npt.NDArray[np.float64]:
        """Per-row ranking score for `query` (0 for rows that match no query token)."""
        ids = [self._vocab[t] for t in tokenize(query) if t in self._vocab]
        if not ids:
            return np.zeros(len(self._items), dtype=np.float64)
        scores = self._bm25.get_scores_from_ids(ids).astype(np.float64)
        key = _title_key(query)
        exact = [
            int(r)
            for r in np.flatnonzero(self._title_hash == title_hash(key))
            if _title_key(self._items[int(r)].title) == key
        ]
        if exact:
            scores[exact] += float(scores.max()) + 1.0
        return scores

    def search(self, query: str, *, limit: int = 10, offset: int = 0) -> list[SearchHit]:
        """Hits `offset` .. `offset + limit` of the ranking for `query`."""
        if not isinstance(query, str) or not query.strip():
            raise QueryError("query is empty; expected words to search for, e.g. 'space heist'")
        if not 1 <= limit <= MAX_LIMIT:
            raise QueryError(f"limit must be between 1 and {MAX_LIMIT}, got {limit}")
        if offset < 0:
            raise QueryError(f"offset must be 0 or more, got {offset}")
        scores = self.scores(query)
        rows = self._top(scores, offset + limit)[offset:]
        return [self._hit(int(r), float(scores[r])) for r in rows]

    def _top(self, scores: npt.NDArray[np.float64], k: int) -> npt.NDArray[np.int64]:
        """The best `k` rows with a positive score, ranked, ties by id."""
        candidates = np.flatnonzero(scores > 0)
        if len(candidates) > k:
            # Keep every row tied with the k-th best so the id tie-break sees them all.
            kth = np.partition(scores[candidates], len(candidates) - k)[len(candidates) - k]
            candidates = candidates[scores[candidates] >= kth]
        order = np.lexsort((self._id_rank[candidates], -scores[candidates]))
        return candidates[order][:k]

    def _hit(self, row: int, score: float) -> SearchHit:
        item = self._items[row]
        return SearchHit(item_id=item.id, title=item.title, year=item.year, score=round(score, 4))
