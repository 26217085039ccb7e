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
from collections.abc import Sequence

import bm25s
import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from .bm25 import Bm25Builder
from .columns import Columns
from .item import Item

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


def title_hash(key: str) -> int:
    """A 64-bit hash of a title key that is the same in every process (saved with the index)."""
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "little", signed=True)


class SearchIndexBuilder:
    """Tokenises items a chunk at a time; `finish` makes the BM25 retriever and title hashes."""

    def __init__(self) -> None:
        # Token 0 is the empty token: bm25s scores an empty query through it; no item has it.
        self._vocab: dict[str, int] = {"": 0}
        self._bm25 = Bm25Builder()
        self._title_hash: list[npt.NDArray[np.int64]] = []

    def add(self, items: Sequence[Item]) -> None:
        vocab = self._vocab
        for start in range(0, len(items), _CHUNK):
            chunk = items[start : start + _CHUNK]
            flat: list[str] = []
            lengths: list[int] = []
            for item in chunk:
                tokens = tokenize(_document(item))
                lengths.append(len(tokens))
                flat += tokens
            for token in dict.fromkeys(flat):
                vocab.setdefault(token, len(vocab))
            ids = np.fromiter(map(vocab.__getitem__, flat), np.int32, len(flat))
            self._bm25.add(ids, np.asarray(lengths, dtype=np.int64))
            hashes = (title_hash(_title_key(item.title)) for item in chunk)
            self._title_hash.append(np.fromiter(hashes, np.int64, len(chunk)))

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
