from __future__ import annotations

import bm25s
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from taurec.catalog.bm25 import build_bm25
from taurec.catalog.search import (
    TITLE_WEIGHT,
    QueryError,
    SearchIndexBuilder,
    _token_array,
    tokenize,
    tokenize_batch,
)

_EXOTIC = [
    "...And Justice for All",
    "Amélie's  Fabulous-Destiny",
    "naïve CAFÉ 42_x",
    "ＦＵＬＬ width ℌello",
    "Ölçek Straße ß İstanbul",
    "日本語 タイトル",
    "a\x1eb\tc\u00a0d\u2028e",
]


def test_exact_title_query_ranks_that_title_first(make_item, make_catalog):
    cat = make_catalog(
        make_item("a", title="Heat Wave", overview="heat heat heat"),
        make_item("b", title="The Heat", keywords=["heat"]),
        make_item("c", title="Heat"),
    )
    assert cat.search("heat")[0].item_id == "c"


def test_exact_title_match_ignores_case_and_punctuation(make_item, make_catalog):
    cat = make_catalog(
        make_item("a", title="Spider-Man: Homecoming"),
        make_item("b", title="Spider Man", overview="spider man homecoming homecoming"),
    )
    assert cat.search("spider man homecoming")[0].item_id == "a"


def test_title_words_outweigh_overview_words(make_item, make_catalog):
    cat = make_catalog(
        make_item("a", title="Quiet Harbor", overview="a story about a submarine"),
        make_item("b", title="Deep Water", overview="a story about a harbor"),
    )
    assert [h.item_id for h in cat.search("harbor story")] == ["a", "b"]


@pytest.mark.parametrize(
    ("field", "value", "query"),
    [
        ("overview", "an astronaut stranded alone", "stranded"),
        ("genres", ["Western"], "western"),
        ("cast", ["Meryl Streep"], "streep"),
        ("director", "Agnès Varda", "varda"),
        ("keywords", ["heist"], "heist"),
    ],
)
def test_search_covers_each_text_field(make_item, make_catalog, field, value, query):
    cat = make_catalog(make_item("hit", **{field: value}), make_item("miss"))
    assert [h.item_id for h in cat.search(query)] == ["hit"]


def test_search_folds_case_and_accents(make_item, make_catalog):
    cat = make_catalog(make_item("a", title="Amélie"), make_item("b"))
    assert cat.search("AMELIE")[0].item_id == "a"


def test_ties_break_by_id(make_item, make_catalog):
    cat = make_catalog(*(make_item(i, title="Twin Peaks") for i in ["m3", "m1", "m2"]))
    assert [h.item_id for h in cat.search("peaks")] == ["m1", "m2", "m3"]


def test_hits_carry_title_year_and_descending_scores(make_item, make_catalog):
    cat = make_catalog(
        make_item("a", title="River", release_date="1999-05-01"),
        make_item("b", title="Red River", overview="river river"),
    )
    hits = cat.search("river")
    assert (hits[0].title, hits[0].year) == ("River", 1999)
    assert hits[0].score > hits[1].score > 0


def test_query_with_no_known_word_returns_no_hits(make_item, make_catalog):
    assert make_catalog(make_item("a")).search("zyzzyva") == []


def test_limit_and_offset_page_through_the_ranking(make_item, make_catalog):
    cat = make_catalog(*(make_item(f"m{i}", title="Lake", overview="lake " * i) for i in range(7)))
    everything = [h.item_id for h in cat.search("lake", limit=100)]
    pages = [h.item_id for o in range(0, 7, 3) for h in cat.search("lake", limit=3, offset=o)]
    assert pages == everything
    assert len(everything) == 7


@pytest.mark.parametrize("query", ["", "   ", "\n\t"])
def test_blank_query_is_a_query_error(make_item, make_catalog, query):
    with pytest.raises(QueryError, match="query is empty"):
        make_catalog(make_item("a")).search(query)


@pytest.mark.parametrize("limit", [0, 101])
def test_limit_out_of_range_is_a_query_error(make_item, make_catalog, limit):
    with pytest.raises(QueryError, match="limit must be between 1 and 100"):
        make_catalog(make_item("a")).search("title", limit=limit)


def test_negative_offset_is_a_query_error(make_item, make_catalog):
    with pytest.raises(QueryError, match="offset"):
        make_catalog(make_item("a")).search("title", offset=-1)


def test_tokenize_splits_on_punctuation_and_folds_accents():
    assert tokenize("Crème-Brûlée, 2nd Edition!") == ["creme", "brulee", "2nd", "edition"]


def test_vectorised_bm25_matrix_matches_bm25s_own_index():
    docs = [["a", "b", "b", "c"], ["b", "d"], ["a", "a", "a", "e", "f", "g"], ["c"]]
    vocab = {t: i for i, t in enumerate(["", "a", "b", "c", "d", "e", "f", "g"])}
    flat = np.asarray([vocab[t] for d in docs for t in d], dtype=np.int32)
    ours = build_bm25(flat, np.asarray([len(d) for d in docs], dtype=np.int64), vocab)
    reference = bm25s.BM25(method="lucene", k1=1.5, b=0.75)
    reference.index(docs, show_progress=False)
    for query in (["a"], ["b", "c"], ["a", "g", "d"]):
        np.testing.assert_allclose(ours.get_scores(query), reference.get_scores(query), rtol=1e-6)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(), max_size=6))
def test_arrow_token_split_gives_the_batch_tokens(texts):
    assert [t.encode() for t in _token_array(texts).to_pylist()] == tokenize_batch(texts)


def _searchable(item):
    fields = [item.title] * TITLE_WEIGHT + [item.overview, *item.genres, *item.cast]
    return " ".join([*fields, item.director or "", *item.keywords])


def test_index_vocabulary_numbers_tokens_in_order_of_first_appearance(make_item):
    items = [
        make_item(str(i), title=text, overview=_EXOTIC[-1 - i], cast=[text.upper()])
        for i, text in enumerate(_EXOTIC)
    ]
    builder = SearchIndexBuilder()
    builder.add(items[:2])  # two chunks: ids continue across them
    builder.add(items[2:])
    retriever, _ = builder.finish()
    tokens = [t for item in items for t in tokenize(_searchable(item))]
    assert retriever.vocab_dict == {"": 0} | {t: i + 1 for i, t in enumerate(dict.fromkeys(tokens))}


def test_index_scores_equal_bm25s_over_per_item_tokens(make_item):
    items = [
        make_item(str(i), title=text, overview=" ".join(_EXOTIC[: i + 1]), keywords=["x"] * i)
        for i, text in enumerate(_EXOTIC)
    ]
    builder = SearchIndexBuilder()
    builder.add(items)
    ours, _ = builder.finish()
    docs = [tokenize(_searchable(item)) for item in items]
    reference = bm25s.BM25(method="lucene", k1=1.5, b=0.75)
    reference.index(docs, show_progress=False)
    for token in {t for d in docs for t in d}:
        np.testing.assert_allclose(
            ours.get_scores([token]), reference.get_scores([token]), rtol=1e-6
        )
