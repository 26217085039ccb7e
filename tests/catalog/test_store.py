from __future__ import annotations

from pathlib import Path

import pytest

from taurec.catalog.errors import DataError
from taurec.catalog.io import CatalogMeta, write_catalog_file
from taurec.catalog.store import Catalog, builtin_path


def test_from_items_keeps_item_order(make_item, make_catalog):
    cat = make_catalog(make_item("b"), make_item("a"), make_item("c"))
    assert cat.ids == ["b", "a", "c"]
    assert [it.id for it in cat.items] == ["b", "a", "c"]
    assert [it.id for it in cat] == ["b", "a", "c"]


def test_len_counts_items(make_item, make_catalog):
    assert len(make_catalog(make_item("a"), make_item("b"))) == 2


def test_get_returns_the_item_or_none(make_item, make_catalog):
    a = make_item("a", title="Alpha")
    cat = make_catalog(a)
    assert cat.get("a") == a
    assert cat.get("zzz") is None


def test_contains_tests_ids(make_item, make_catalog):
    cat = make_catalog(make_item("a"))
    assert "a" in cat
    assert "b" not in cat


def test_from_items_attaches_meta(make_item):
    cat = Catalog.from_items([make_item("a")], CatalogMeta(name="tiny", source="synthetic"))
    assert cat.meta.name == "tiny"


def test_duplicate_ids_raise_data_error_naming_the_id(make_item):
    with pytest.raises(DataError, match=r"'a'.*duplicate id"):
        Catalog.from_items([make_item("a"), make_item("a", title="Again")])


def test_empty_catalog_raises_data_error():
    with pytest.raises(DataError, match="no items"):
        Catalog.from_items([])


def test_load_reads_a_catalog_file(tmp_path: Path, make_item):
    items = [make_item("a"), make_item("b")]
    path = write_catalog_file(tmp_path / "c.json", CatalogMeta(name="disk"), items)
    cat = Catalog.load(path)
    assert cat.items == items
    assert cat.meta.name == "disk"


def test_load_accepts_a_string_path_to_jsonl(tmp_path: Path, make_item):
    path = write_catalog_file(tmp_path / "c.jsonl", CatalogMeta(), [make_item("a")])
    assert Catalog.load(str(path)).ids == ["a"]


def test_load_of_a_missing_file_raises_data_error(tmp_path: Path):
    with pytest.raises(DataError, match="no such file"):
        Catalog.load(tmp_path / "absent.json")


@pytest.mark.skipif(not builtin_path().exists(), reason="builtin.json not generated yet")
def test_load_builtin_reads_the_shipped_snapshot():
    assert len(Catalog.load("builtin")) > 0


def test_sha256_is_stable_across_loads(tmp_path: Path, make_item):
    items = [make_item("a"), make_item("b", genres=["Comedy"])]
    path = write_catalog_file(tmp_path / "c.json", CatalogMeta(), items)
    digest = Catalog.load(path).sha256()
    assert Catalog.load(path).sha256() == digest
    assert Catalog.from_items(items).sha256() == digest


def test_sha256_ignores_item_order_and_meta(make_item):
    a, b = make_item("a"), make_item("b")
    assert (
        Catalog.from_items([a, b], CatalogMeta(name="x")).sha256()
        == Catalog.from_items([b, a], CatalogMeta(name="y")).sha256()
    )


def test_sha256_changes_when_a_field_changes(make_item):
    before = Catalog.from_items([make_item("a", runtime=100)]).sha256()
    after = Catalog.from_items([make_item("a", runtime=101)]).sha256()
    assert before != after


def test_services_are_sorted_canonical_names(make_item, make_catalog):
    cat = make_catalog(
        make_item("a", streaming_services=["max", "Netflix"]),
        make_item("b", streaming_services=["Prime Video", "HBO Max"]),
    )
    assert cat.services() == ["Amazon Prime Video", "HBO Max", "Netflix"]


def test_genres_are_sorted_and_listed_once(make_item, make_catalog):
    cat = make_catalog(
        make_item("a", genres=["Drama", "Comedy"]), make_item("b", genres=["Comedy"])
    )
    assert cat.genres() == ["Comedy", "Drama"]


def test_row_gives_the_position_of_an_id(make_item, make_catalog):
    cat = make_catalog(make_item("x"), make_item("y"))
    assert cat.row("y") == 1
    assert cat.row("nope") is None
