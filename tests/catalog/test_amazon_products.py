"""Amazon Reviews 2023 product metadata as choice items (fixtures written here)."""

from __future__ import annotations

import gzip
from pathlib import Path

import orjson
import pytest

from taurec.catalog.builders.amazon_products import load_products
from taurec.catalog.choice_sets import product_categories
from taurec.catalog.errors import DataError


def record(k: int, **extra: object) -> dict[str, object]:
    return {
        "main_category": "Office Products",
        "title": f"Steel wall rack {k}",
        "average_rating": 4.5,
        "rating_number": 120 + k,
        "features": ["Holds 20 files", "Wall mounted"],
        "description": ["A sturdy rack."],
        "price": 19.99,
        "store": "RackCo",
        "categories": ["Office Products", "Office Furniture", "Racks & Displays"],
        "details": {"Date First Available": "March 3, 2019"},
        "parent_asin": f"B0{k:08d}",
        **extra,
    }


def write(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_bytes(b"\n".join(orjson.dumps(r) for r in records) + b"\n")
    return path


def test_a_product_keeps_its_fields_on_the_choice_item_scale(tmp_path: Path) -> None:
    item = load_products(write(tmp_path / "meta.jsonl", [record(1)])).items[0]
    assert item.id == "B000000001"
    assert item.rating == 9.0 and item.rating_count == 121
    assert item.price == 19.99 and item.maker == "RackCo" and item.year == 2019
    assert item.categories[-1] == "Racks & Displays"


def test_gzipped_files_are_read(tmp_path: Path) -> None:
    path = tmp_path / "meta.jsonl.gz"
    with gzip.open(path, "wb") as f:
        f.write(orjson.dumps(record(2)) + b"\n")
    assert [i.id for i in load_products(path).items] == ["B000000002"]


def test_products_without_a_title_or_id_are_skipped_and_counted(tmp_path: Path) -> None:
    records = [record(1), record(2, title=""), record(3, parent_asin=None), record(1)]
    load = load_products(write(tmp_path / "meta.jsonl", records))
    assert len(load.items) == 1
    assert load.skipped == {"no title": 1, "no parent_asin": 1, "duplicate id": 1}


def test_a_price_given_as_text_or_missing_is_read_or_left_empty(tmp_path: Path) -> None:
    load = load_products(
        write(tmp_path / "m.jsonl", [record(1, price="$1,299.00"), record(2, price=None)])
    )
    assert [i.price for i in load.items] == [1299.0, None]


def test_a_line_that_is_not_json_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "meta.jsonl"
    path.write_text(orjson.dumps(record(1)).decode() + "\n{oops\n")
    with pytest.raises(DataError, match=r"meta.jsonl: line 2: is not JSON"):
        load_products(path)


def test_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="does not exist; expected an Amazon Reviews 2023"):
        load_products(tmp_path / "nope.jsonl")


def test_products_group_into_categories_by_their_path(tmp_path: Path) -> None:
    load = load_products(write(tmp_path / "m.jsonl", [record(k) for k in range(16)]))
    assert [c.name for c in product_categories(load.items)] == ["Racks & Displays"]


def test_details_stored_as_a_json_string_still_give_the_year(tmp_path: Path) -> None:
    text = orjson.dumps({"Date First Available": "March 3, 2019"}).decode()
    broken = record(2, details="{not json")
    items = load_products(write(tmp_path / "m.jsonl", [record(1, details=text), broken])).items
    assert [i.year for i in items] == [2019, None]


def test_a_long_title_is_kept_whole() -> None:
    from taurec.catalog.builders.amazon_products import product_item

    long = "Steel wall rack " + "with shelves " * 40
    item = product_item(record(1, title=long))
    assert not isinstance(item, str) and item.title == long.strip()
