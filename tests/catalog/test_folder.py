"""A catalog folder answers every query exactly as the JSON catalog it was written from."""

from __future__ import annotations

import random
import re

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from taurec.catalog.errors import DataError
from taurec.catalog.filter import FilterSpec
from taurec.catalog.folder import (
    expected_files,
    is_catalog_folder,
    record_line,
    write_catalog_folder,
)
from taurec.catalog.io import CatalogMeta, item_record
from taurec.catalog.item import ContentRating
from taurec.catalog.search import tokenize, tokenize_batch
from taurec.catalog.store import Catalog
from taurec.catalog.summary import summary
from taurec.catalog.title_index import title_files

SORTS = ["rating", "-rating", "-popularity", "release_date", "-release_date", "runtime", "title"]


def _queries(cat: Catalog, n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        item = cat.items[rng.randrange(len(cat))]
        words = (item.title + " " + item.overview + " " + " ".join(item.cast)).split()
        out += [item.title, " ".join(rng.sample(words, min(3, len(words)))), rng.choice(words)]
    return out


def _pages(cat: Catalog, spec: FilterSpec) -> list[object]:
    pages = [cat.filter(spec)]
    while pages[-1].next_cursor is not None:
        pages.append(cat.filter(spec.model_copy(update={"cursor": pages[-1].next_cursor})))
    return pages


def test_a_folder_opens_through_catalog_load(pair):
    json_cat, folder_cat = pair
    assert len(folder_cat) == len(json_cat)
    assert folder_cat.meta == json_cat.meta


def test_the_item_digest_is_the_same_whichever_format_loads_it(pair):
    json_cat, folder_cat = pair
    assert folder_cat.content_sha256() == json_cat.sha256() == json_cat.content_sha256()


def test_items_ids_and_lookups_are_the_same(pair):
    json_cat, folder_cat = pair
    assert folder_cat.ids == json_cat.ids
    assert list(folder_cat.items[:50]) == list(json_cat.items[:50])
    assert folder_cat.items[-1] == json_cat.items[-1]
    for item_id in json_cat.ids[::97]:
        assert folder_cat.get(item_id) == json_cat.get(item_id)
        assert folder_cat.row(item_id) == json_cat.row(item_id)
        assert item_id in folder_cat


@pytest.mark.parametrize("item_id", ["", "nope", "syn_", "syn_9999999", "x" * 200, "a\0", 7])
def test_unknown_ids_are_absent_from_both(pair, item_id):
    json_cat, folder_cat = pair
    assert (item_id in folder_cat) is (item_id in json_cat) is False
    if isinstance(item_id, str):
        assert folder_cat.get(item_id) is None


def test_search_rankings_are_identical(pair):
    json_cat, folder_cat = pair
    for query in _queries(json_cat, 40, seed=1):
        assert folder_cat.search(query, limit=20) == json_cat.search(query, limit=20), query
    query = json_cat.items[5].genres[0]
    assert folder_cat.search(query, limit=7, offset=13) == json_cat.search(query, 7, 13)


def test_genres_services_and_summary_are_identical(pair):
    json_cat, folder_cat = pair
    assert folder_cat.genres() == json_cat.genres()
    assert folder_cat.services() == json_cat.services()
    assert summary(folder_cat) == summary(json_cat)


def test_availability_is_identical(pair):
    json_cat, folder_cat = pair
    services = ["Netflix", "prime video", "Nowhere TV"]
    for item_id in json_cat.ids[::53]:
        assert folder_cat.availability(item_id, services) == json_cat.availability(
            item_id, services
        )


@st.composite
def filter_specs(draw, genres: list[str], services: list[str], ids: list[str]) -> FilterSpec:
    picks = st.lists(st.sampled_from([*genres, "NoSuchGenre"]), max_size=2, unique=True)
    wanted = draw(picks)
    unwanted = [g for g in genres[-2:] if g not in wanted][:1]
    return FilterSpec(
        genres_any=wanted,
        genres_none=draw(st.sampled_from([[], unwanted])),
        runtime_max=draw(st.sampled_from([None, 90, 120])),
        min_rating=draw(st.sampled_from([None, 5.0, 7.0])),
        content_ratings=draw(st.lists(st.sampled_from(list(ContentRating)), max_size=2)),
        services_any=draw(st.lists(st.sampled_from(services), max_size=2)),
        exclude_ids=draw(st.lists(st.sampled_from(ids), max_size=3)),
        sort=draw(st.sampled_from(SORTS)),
        limit=draw(st.sampled_from([7, 100])),
    )


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_filter_pages_and_cursors_are_identical(pair, data):
    json_cat, folder_cat = pair
    spec = data.draw(
        filter_specs(json_cat.genres(), json_cat.services(), json_cat.ids[:200]), label="spec"
    )
    assert _pages(folder_cat, spec) == _pages(json_cat, spec)


def test_filter_by_director_and_cast_is_identical(pair):
    json_cat, folder_cat = pair
    item = next(it for it in json_cat.items if it.director and it.cast)
    for spec in (
        FilterSpec(director=item.director.upper()),
        FilterSpec(cast_member=item.cast[0], sort="title"),
        FilterSpec(director="Nobody Known"),
    ):
        assert _pages(folder_cat, spec) == _pages(json_cat, spec)


def test_writing_again_replaces_the_folder(tmp_path, make_item):
    path = tmp_path / "c.taurec-catalog"
    write_catalog_folder(path, CatalogMeta(), [make_item("a"), make_item("b")])
    write_catalog_folder(path, CatalogMeta(name="second"), [make_item("c")])
    cat = Catalog.load(path)
    assert cat.ids == ["c"] and cat.meta.name == "second"
    assert [p.name for p in tmp_path.iterdir()] == ["c.taurec-catalog"]


def test_duplicate_ids_raise_and_write_nothing(tmp_path, make_item):
    path = tmp_path / "c.taurec-catalog"
    with pytest.raises(DataError, match="duplicate id"):
        write_catalog_folder(path, CatalogMeta(), [make_item("a"), make_item("b"), make_item("a")])
    assert list(tmp_path.iterdir()) == []


def test_no_items_raise(tmp_path):
    with pytest.raises(DataError, match="no items"):
        write_catalog_folder(tmp_path / "c.taurec-catalog", CatalogMeta(), [])


def test_a_path_that_is_not_a_catalog_folder_is_not_overwritten(tmp_path, make_item):
    (tmp_path / "c.taurec-catalog").mkdir()
    (tmp_path / "c.taurec-catalog" / "keep.txt").write_text("mine")
    with pytest.raises(DataError, match="not a catalog folder"):
        write_catalog_folder(tmp_path / "c.taurec-catalog", CatalogMeta(), [make_item("a")])
    assert (tmp_path / "c.taurec-catalog" / "keep.txt").read_text() == "mine"


def test_a_manifest_of_another_version_is_one_clear_error(tmp_path, make_item):
    path = write_catalog_folder(tmp_path / "c.taurec-catalog", CatalogMeta(), [make_item("a")])
    manifest = orjson.loads((path / "manifest.json").read_bytes())
    (path / "manifest.json").write_bytes(orjson.dumps({**manifest, "format_version": 99}))
    with pytest.raises(DataError, match="expected format_version 2, got 99"):
        Catalog.load(path)


@pytest.mark.parametrize(
    "name",
    [
        "items.jsonl",
        "offsets.npy",
        "ids.npy",
        "columns/genres.rows.npy",
        "orders/rating.desc.npy",
        "search/params.index.json",
        "search/title_hash.npy",
    ],
)
def test_a_folder_missing_a_file_is_one_clear_error_when_opened(tmp_path, make_item, name):
    path = write_catalog_folder(tmp_path / "c.taurec-catalog", CatalogMeta(), [make_item("a")])
    (path / name).unlink()
    with pytest.raises(
        DataError, match=re.escape(f"is missing {name}; expected a complete catalog folder")
    ):
        Catalog.load(path)


def test_the_files_checked_at_open_are_the_files_written(tmp_path, make_item):
    path = write_catalog_folder(tmp_path / "c.taurec-catalog", CatalogMeta(), [make_item("a")])
    written = {p.relative_to(path).as_posix() for p in path.rglob("*") if p.is_file()}
    # the title index is optional at open (older folders have none) but always written
    assert written - {"manifest.json"} == set(expected_files()) | set(title_files())


def test_a_truncated_items_file_is_one_clear_error_when_opened(tmp_path, make_item):
    items = [make_item("a"), make_item("b")]
    path = write_catalog_folder(tmp_path / "c.taurec-catalog", CatalogMeta(), items)
    whole = (path / "items.jsonl").read_bytes()
    (path / "items.jsonl").write_bytes(whole[:10])
    with pytest.raises(
        DataError, match=re.escape(f"items.jsonl holds 10 bytes but offsets.npy says {len(whole)}")
    ):
        Catalog.load(path)


def test_an_array_file_that_is_no_array_is_one_clear_error(tmp_path, make_item):
    path = write_catalog_folder(tmp_path / "c.taurec-catalog", CatalogMeta(), [make_item("a")])
    (path / "ids.npy").write_text("garbage")
    with pytest.raises(
        DataError, match=re.escape("ids.npy is not a numpy array; expected a complete")
    ):
        Catalog.load(path)


def test_a_folder_without_a_manifest_is_named_as_such(tmp_path):
    (tmp_path / "c.taurec-catalog").mkdir()
    with pytest.raises(
        DataError, match=re.escape("has no manifest.json; expected a catalog folder written")
    ):
        Catalog.load(tmp_path / "c.taurec-catalog")


def test_a_path_that_does_not_exist_names_every_catalog_form(tmp_path):
    with pytest.raises(
        DataError,
        match="no such file or folder; expected a catalog JSON or JSONL file, or a "
        r"\.taurec-catalog folder",
    ):
        Catalog.load(tmp_path / "nope.taurec-catalog")


def test_is_catalog_folder_needs_the_manifest(tmp_path, make_item):
    assert not is_catalog_folder(tmp_path)
    path = write_catalog_folder(tmp_path / "c.taurec-catalog", CatalogMeta(), [make_item("a")])
    assert is_catalog_folder(path)


def test_record_lines_are_the_sorted_key_json_of_item_record(generated_pair):
    json_cat, _ = generated_pair
    for item in [*json_cat.items[:200], Catalog.load("builtin").items[0]]:
        expected = orjson.dumps(item_record(item), option=orjson.OPT_SORT_KEYS) + b"\n"
        assert record_line(item) == expected


def test_batch_tokenising_matches_tokenize_text_by_text():
    texts = [
        "Amélie's  Fabulous-Destiny",
        "",
        "naïve CAFÉ 42_x",
        "plain words\x1ewith a separator",
        "ＦＵＬＬ width ℌello",
        "Ölçek Straße ß",
        "tab\tand\nnewline",
    ]
    expected = [t.encode() for text in texts for t in [*tokenize(text), "\x1e"]]
    assert tokenize_batch(texts) == expected


def test_non_ascii_and_uneven_ids_are_found_in_a_folder(tmp_path, make_item):
    ids = ["z", "é-1", "a" * 40, "日本", "a", "Z"]
    items = [make_item(i) for i in ids]
    cat = Catalog.load(write_catalog_folder(tmp_path / "c.taurec-catalog", CatalogMeta(), items))
    assert cat.ids == ids
    assert [cat.row(i) for i in ids] == list(range(len(ids)))
    assert cat.get("日") is None and "a" * 41 not in cat
    assert cat.content_sha256() == Catalog.from_items(items).sha256()


def test_folder_items_index_like_a_list(tmp_path, make_item):
    items = [make_item(i) for i in "abc"]
    cat = Catalog.load(write_catalog_folder(tmp_path / "c.taurec-catalog", CatalogMeta(), items))
    assert cat.items[-1] == items[-1] and cat.items[0:3:2] == [items[0], items[2]]
    with pytest.raises(IndexError):
        cat.items[3]
