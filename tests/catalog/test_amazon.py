"""Amazon Reviews 2023 JSONL, on fixtures written here."""

from pathlib import Path

import orjson
import pytest

from taurec.catalog.amazon import read_amazon
from taurec.catalog.errors import DataError


def _files(tmp_path: Path, review_extra: dict | None = None) -> tuple[Path, Path]:
    meta = [
        {
            "parent_asin": "B01",
            "title": "Blue Album",
            "categories": ["CDs", "Jazz"],
            "store": "Acme",
            "price": 9.5,
        },
        {
            "parent_asin": "B02",
            "title": "Red Album",
            "main_category": "Digital Music",
            "price": None,
        },
    ]
    reviews = [
        {"rating": 5.0, "parent_asin": "B01", "user_id": "AX", "timestamp": 1_670_000_000_000},
        {"rating": 2.0, "parent_asin": "B02", "user_id": "AX", "timestamp": 1_670_000_100_000},
        {"rating": 4.0, "parent_asin": "B99", "user_id": "AY", "timestamp": 1_670_000_200_000},
        {
            "rating": 3.0,
            "parent_asin": "B02",
            "user_id": "AY",
            "timestamp": 1_670_000_300_000,
            **(review_extra or {}),
        },
    ]
    r, m = tmp_path / "CDs.jsonl", tmp_path / "meta_CDs.jsonl"
    r.write_bytes(b"\n".join(orjson.dumps(x) for x in reviews))
    m.write_bytes(b"\n".join(orjson.dumps(x) for x in meta))
    return r, m


def test_reviews_become_records_with_seconds_and_item_facts(tmp_path: Path):
    data = read_amazon(*_files(tmp_path))
    assert len(data) == 3  # the review of an item without metadata is skipped
    assert "1 reviews of items without metadata skipped" in data.source
    blue = data.items[data.item_of("B01")]
    assert blue.categories == ["CDs", "Jazz"]
    assert blue.attributes == {"Store": "Acme", "Price": "$9.50"}
    assert data.items[data.item_of("B02")].categories == ["Digital Music"]
    assert int(data.time.min()) == 1_670_000_000


def test_a_review_without_a_required_field_names_the_file_line_and_field(tmp_path: Path):
    reviews, meta = _files(tmp_path)
    reviews.write_bytes(
        reviews.read_bytes() + b'\n{"rating": 1.0, "user_id": "AZ", "timestamp": 1}'
    )
    with pytest.raises(DataError, match=r"CDs\.jsonl: line 5: field 'parent_asin' missing"):
        read_amazon(reviews, meta)
