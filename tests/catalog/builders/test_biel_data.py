"""BIEL's released files read as BIEL writes them: product ids, category names, pruning,
personas, items, and one clear line for every kind of bad input (fixtures written here,
see tests/support/biel_files.py)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pyarrow.parquet as pq
import pytest
from support.biel_files import (
    PERSONA_TEXTS,
    BielRelease,
    write_biel,
    write_category_names,
    write_products_table,
    write_table,
)

from taurec.catalog.builders.biel_data import BielData, load_biel_data, name_by_rule
from taurec.catalog.builders.biel_products import (
    Product,
    biel_price,
    canonical_key,
    category_names,
    meta_files,
    number_products,
    read_meta,
)
from taurec.catalog.builders.biel_tables import PERSONA_FIELD
from taurec.catalog.errors import DataError


@pytest.fixture
def release(tmp_path: Path) -> BielRelease:
    return write_biel(tmp_path)


def titles_by_id(folder: Path) -> dict[int, str]:
    products, _ = number_products((str(p), read_meta(p)) for p in meta_files(folder))
    return {pid: p.record["title"] for pid, p in products.items()}


def rewrite(path: Path, change: Callable[[dict[str, list[Any]]], None]) -> None:
    """The parquet file with its columns changed in place by `change`."""
    columns = pq.read_table(path).to_pydict()
    change(columns)
    write_table(path, columns, {})


# --- product ids ---


def test_product_ids_follow_biels_file_order_by_name(release: BielRelease) -> None:
    titles = titles_by_id(release.files.products)
    assert titles[1] == "Mug number 0"
    assert titles[2] == "Mug number 1"
    assert titles[3] == "Mug number 10"  # meta_10.json sorts before meta_2.json
    assert titles[13] == "Mug number 2"


def test_a_repeated_asin_keeps_its_first_id_and_takes_the_later_record(
    release: BielRelease,
) -> None:
    titles = titles_by_id(release.files.products)
    assert titles[46] == "Mug, new edition"  # meta_5.json's id, meta_59.json's record
    assert sorted(titles) == list(range(1, 60))  # meta_59.json took no id of its own
    assert titles[56] == "Mug number 6"


def test_a_repeated_asin_is_linked_to_the_categories_of_both_records() -> None:
    first = {"parent_asin": "B1", "categories": ["A", "B", "Mugs"]}
    later = {"parent_asin": "B1", "categories": ["A", "B", "Cups"], "title": "new"}
    products, _ = number_products([("a", first), ("b", later)])
    assert products[1].names == {"Mugs", "Cups"} and products[1].record["title"] == "new"


def test_records_without_an_asin_each_get_an_id() -> None:
    records = [("a", {"title": "x"}), ("b", {"title": "y"}), ("c", {"parent_asin": "B1"})]
    products, _ = number_products(records)
    assert {pid: p.source for pid, p in products.items()} == {1: "a", 2: "b", 3: "c"}


def test_products_parquet_gives_the_ids_and_skips_what_it_lacks() -> None:
    records = [("a", {"parent_asin": "B1"}), ("b", {"parent_asin": "B2"}), ("c", {"asin": "B3"})]
    products, skipped = number_products(records, {"B2": 7, "B3": 40})
    assert {pid: p.source for pid, p in products.items()} == {7: "b", 40: "c"}
    assert skipped == {"ASIN not in products.parquet": 1}


def _shift_ids(release: BielRelease, by: int) -> None:
    """The release as a database whose product ids are `by` higher than the default rule's."""

    def shift(columns: dict[str, list[Any]]) -> None:
        columns["product_id"] = [p + by for p in columns["product_id"]]

    rewrite(release.files.links, shift)
    rewrite(release.files.scores, shift)
    write_products_table(release, {a: i + by for a, i in release.ids.items()})


def test_with_products_parquet_its_ids_are_the_items_ids(release: BielRelease) -> None:
    _shift_ids(release, 1000)
    files = dataclasses.replace(release.files, product_ids=release.root / "products.parquet")
    data = load_biel_data(files)
    kept = {p for cid, pids in release.members.items() if cid != 5 for p in pids}
    assert {int(i.id) for i in data.items} == {1000 + p for p in kept}
    assert next(i for i in data.items if i.id == "1046").title == "Mug, new edition"


def test_without_products_parquet_other_ids_are_an_error_that_suggests_it(
    release: BielRelease,
) -> None:
    _shift_ids(release, 1000)
    with pytest.raises(DataError, match="is 1001, not one of the 59 products read") as err:
        load_biel_data(release.files)
    assert "--biel-product-ids" in str(err.value)


def test_a_linked_product_without_a_meta_file_takes_products_parquets_raw_record(
    release: BielRelease,
) -> None:
    (release.files.products / "meta_0.json").unlink()
    write_products_table(release)
    files = dataclasses.replace(release.files, product_ids=release.root / "products.parquet")
    data = load_biel_data(files)
    assert next(i for i in data.items if i.id == "1").title == "Mug number 0"
    assert "1 from products.parquet's raw records" in data.summary()


# --- categories ---


def test_categories_are_named_by_biels_rule_and_small_ones_pruned(release: BielRelease) -> None:
    data = load_biel_data(release.files)
    assert [(c.id, c.name, len(c.item_ids)) for c in data.categories] == [
        ("biel:1", "Drinkware", 31),
        ("biel:2", "Mug Sets", 16),
        ("biel:3", "Tumblers", 15),
        ("biel:4", "Racks & Displays", 22),
    ]
    assert data.categories_read == 5
    assert "5 categories (4 kept, 1 pruned under 15 products)" in data.summary()


def test_a_category_holds_its_products_in_id_order(release: BielRelease) -> None:
    data = load_biel_data(release.files)
    assert data.categories[1].item_ids == [str(p) for p in release.members[2]]


def test_a_category_name_is_the_path_below_its_top_two_levels() -> None:
    path = ["Home & Kitchen", "Kitchen & Dining", "Drinkware", "Mug Sets"]
    assert category_names({"categories": path}) == {"Drinkware", "Mug Sets"}
    assert category_names({"categories": ["Home & Kitchen", "Mugs"]}) == {"Mugs"}
    assert category_names({"categories": [], "main_category": "Amazon Home"}) == {"Amazon Home"}


def test_similar_names_in_one_path_merge_into_the_shortest() -> None:
    assert canonical_key("Racks & Displays") == canonical_key("Rack and Display") == "display rack"
    path = ["Office", "Furniture", "Desk Lamps", "Desk Lamp"]
    assert category_names({"categories": path}) == {"Desk Lamp"}


def test_shared_names_are_told_apart_by_the_products_that_carry_them() -> None:
    products = {
        1: Product(1, "A", {}, "x", {"Drinkware", "Mug Sets"}),
        2: Product(2, "B", {}, "y", {"Drinkware", "Mug Sets"}),
        3: Product(3, "C", {}, "z", {"Drinkware", "Tumblers"}),
    }
    names = name_by_rule({1: {1, 2, 3}, 2: {1, 2}, 3: {3}}, products, Path("links"))
    assert names == {1: "Drinkware", 2: "Mug Sets", 3: "Tumblers"}
    assert products[3].names == {"Drinkware", "Tumblers"}  # read, never changed


def test_a_category_the_rule_cannot_name_asks_for_categories_parquet() -> None:
    products = {1: Product(1, "A", {}, "x", {"Mugs", "Cups"})}
    with pytest.raises(DataError) as err:
        name_by_rule({7: {1}}, products, Path("product_category.parquet"))
    message = str(err.value)
    assert "category_id 7" in message and "--biel-category-names" in message
    assert "\n" not in message


def test_categories_parquet_names_the_categories(release: BielRelease) -> None:
    names = {1: "All drinkware", 2: "Mugs", 3: "Tumblers", 4: "Racks", 5: "Lamps"}
    path = write_category_names(release, names)
    data = load_biel_data(dataclasses.replace(release.files, category_names=path))
    assert [c.name for c in data.categories] == ["All drinkware", "Mugs", "Tumblers", "Racks"]


# --- personas, scores, items ---


@pytest.mark.parametrize("layout", ["jsonl", "json", "parquet", "folder"])
def test_only_scored_personas_are_read_from_each_layout(tmp_path: Path, layout: str) -> None:
    data = load_biel_data(write_biel(tmp_path, personas=layout).files)
    assert [(p.id, p.description, p.preferences) for p in data.personas] == [
        (f"biel-{n}", PERSONA_TEXTS[n], None) for n in (0, 2, 3)
    ]


def test_scores_of_pruned_categories_are_dropped(release: BielRelease) -> None:
    data = load_biel_data(release.files)
    assert {c for _, c, _ in data.scores} == {1, 2, 3, 4}
    assert data.scored_pairs == 12


def _item(data: BielData, title: str) -> Any:
    return next(i for i in data.items if i.title == title)


def test_an_item_keeps_biels_fields_on_the_choice_item_scale(release: BielRelease) -> None:
    data = load_biel_data(release.files)
    item = _item(data, "Mug number 1")
    assert item.id == "2" and item.rating == 6.8 and item.rating_count == 17
    assert item.maker == "Store 1" and item.price == 6.25 and item.year == 2019
    assert item.categories == ["Home & Kitchen", "Kitchen & Dining", "Drinkware", "Mug Sets"]
    assert item.description == "A mug that is good at being a mug (1)."
    no_text = _item(data, "Mug number 4")  # no description: the title stands in
    assert no_text.description == "Mug number 4"


def test_prices_parse_as_biels_database_stores_them() -> None:
    assert [biel_price(v) for v in ("24.95", "1,299.00", "None", "from 5", 7, -1, None)] == [
        24.95, 1299.0, None, None, 7.0, None, None,
    ]  # fmt: skip


def test_a_product_without_a_title_is_untitled(release: BielRelease) -> None:
    path = release.files.products / "meta_1.json"
    path.write_bytes(orjson.dumps({**orjson.loads(path.read_bytes()), "title": None}))
    assert load_biel_data(release.files).items[1].title == "Untitled"


# --- bad input: one line naming the file, what was wrong and what was expected ---


def _write(path: Path, data: bytes) -> Callable[[BielRelease], None]:
    return lambda r: (r.root / path).write_bytes(data)


def _drop(column: str) -> Callable[[dict[str, list[Any]]], None]:
    def drop(columns: dict[str, list[Any]]) -> None:
        del columns[column]

    return drop


def _set(column: str, row: int, value: Any) -> Callable[[dict[str, list[Any]]], None]:
    return lambda c: c[column].__setitem__(row, value)


def _meta(name: str, data: bytes) -> Callable[[BielRelease], None]:
    return lambda r: (r.files.products / name).write_bytes(data)


def _table(attr: str, change: Callable[[dict[str, list[Any]]], None]) -> Callable:
    return lambda r: rewrite(getattr(r.files, attr), change)


def _duplicate_last_row(c: dict[str, list[Any]]) -> None:
    for values in c.values():
        values.append(values[-1])


BAD_INPUT = {
    "meta file not JSON": (_meta("meta_3.json", b"{oops"), "meta_3.json: is not JSON"),
    "meta file not an object": (_meta("meta_3.json", b"[1]"), "meta_3.json: is not a JSON object"),
    "links not parquet": (
        _write(Path("product_category.parquet"), b"product_id,category_id\n"),
        "product_category.parquet: is not a parquet file",
    ),
    "links without a column": (
        _table("links", _drop("category_id")),
        "product_category.parquet: has no column 'category_id'; expected BIEL's",
    ),
    "links of the wrong type": (
        _table("links", lambda c: c.update(product_id=[str(p) for p in c["product_id"]])),
        "column 'product_id' holds string; expected integers",
    ),
    "links with an empty id": (
        _table("links", _set("product_id", 2, None)),
        "product_category.parquet: row 2: field 'product_id': is empty; expected integers",
    ),
    "links naming an unknown product": (
        _table("links", _set("product_id", 4, 999)),
        "row 4: field 'product_id': is 999, not one of the 59 products read",
    ),
    "scores without a column": (
        _table("scores", _drop("score")),
        "persona_scores.parquet: has no column 'score'",
    ),
    "scores naming an unknown category": (
        _table("scores", _set("category_id", 0, 99)),
        "persona_scores.parquet: key (0, 99, 1): names category_id 99",
    ),
    "scores naming an unknown product": (
        _table("scores", _set("product_id", 0, 999)),
        "key (0, 1, 999): names product_id 999",
    ),
    "a score out of range": (
        _table("scores", _set("score", 3, 120.0)),
        "row 3: field 'score': is 120.0; expected a utility from 0 to 100",
    ),
    "a repeated score key": (
        _table("scores", _duplicate_last_row),
        "repeats (persona_index, category_id, product_id)",
    ),
    "a persona beyond the rows": (
        _table("scores", _set("persona_index", 0, 7)),
        "personas.jsonl: has 4 rows; persona_index 7 of the scores is beyond them",
    ),
    "a persona row without the field": (
        _write(Path("personas.jsonl"), b'{"a": 1}\n' * 4),
        f"personas.jsonl: row 0: field '{PERSONA_FIELD}': is missing",
    ),
}


@pytest.mark.parametrize("case", list(BAD_INPUT))
def test_bad_input_is_one_line_naming_the_file_and_what_was_expected(
    release: BielRelease, case: str
) -> None:
    spoil, message = BAD_INPUT[case]
    spoil(release)
    with pytest.raises(DataError) as err:
        load_biel_data(release.files)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    ("field", "path", "message"),
    [
        ("products", "nowhere", "nowhere: is not a folder; expected BIEL's folder of meta_N"),
        ("products", ".", "holds no meta_*.json file"),
        ("scores", "nowhere.parquet", "nowhere.parquet: does not exist; expected BIEL's persona"),
        ("personas", "personas.csv", "has suffix '.csv'; expected a .parquet, .jsonl or .json"),
        ("personas", "missing.jsonl", "missing.jsonl: does not exist; expected rows of Tianyi"),
    ],
)
def test_a_missing_or_unknown_file_is_one_line(
    release: BielRelease, field: str, path: str, message: str
) -> None:
    (release.root / "personas.csv").write_text("x")
    files = dataclasses.replace(release.files, **{field: release.root / path})
    with pytest.raises(DataError) as err:
        load_biel_data(files)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_products_parquet_with_a_repeated_asin_is_an_error(release: BielRelease) -> None:
    path = write_products_table(release)
    rewrite(path, _set("external_id", 1, "B000000000"))
    with pytest.raises(DataError, match="row 1: repeats external_id 'B000000000'"):
        load_biel_data(dataclasses.replace(release.files, product_ids=path))


def test_categories_parquet_must_name_every_linked_category(release: BielRelease) -> None:
    path = write_category_names(release, {1: "Drinkware", 2: "Mug Sets", 4: "Racks"})
    with pytest.raises(DataError, match=r"categories\.parquet: names no category 3 of"):
        load_biel_data(dataclasses.replace(release.files, category_names=path))


def test_categories_parquet_with_a_repeated_name_is_an_error(release: BielRelease) -> None:
    path = write_category_names(release, {1: "Mugs", 2: "Mugs"})
    with pytest.raises(DataError, match="row 1: repeats name 'Mugs'"):
        load_biel_data(dataclasses.replace(release.files, category_names=path))
