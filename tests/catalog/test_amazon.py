"""Amazon Reviews 2023 JSONL, on fixtures written here."""

from pathlib import Path

import numpy as np
import orjson
import pytest
from support.amazon23 import write_category, write_rating_csv

from taurec.catalog.amazon import AmazonFilter, read_amazon
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


# --- filters, gzip, prices and paths (the fixture category of tests/support/amazon23.py) ---


def test_gzipped_files_read_as_the_plain_ones(tmp_path: Path):
    plain = write_category(tmp_path / "plain", users=40, seed=3)
    packed = write_category(tmp_path / "gz", users=40, seed=3, gz=True)
    a, b = read_amazon(plain.reviews, plain.meta), read_amazon(packed.reviews, packed.meta)
    assert len(a) == len(b) > 0 and a.sha256() == b.sha256()


def test_the_time_window_keeps_since_inclusive_and_until_exclusive(tmp_path: Path):
    reviews, meta = _files(tmp_path)
    since, until = 1_670_000_000, 1_670_000_300
    data = read_amazon(reviews, meta, AmazonFilter(since=since, until=until))
    assert sorted(data.time.tolist()) == [1_670_000_000, 1_670_000_100]
    assert "1 reviews outside the time window" in data.source


def test_the_category_filter_matches_any_level_of_the_path_or_the_main_category(tmp_path):
    reviews, meta = _files(tmp_path)
    jazz = read_amazon(reviews, meta, AmazonFilter(categories=("jazz",)))
    assert [it.id for it in jazz.items] == ["B01"]
    assert "2 reviews of items outside the categories" in jazz.source
    music = read_amazon(reviews, meta, AmazonFilter(categories=("Digital Music",)))
    assert [it.id for it in music.items] == ["B02"]


def test_items_without_a_kept_record_are_not_in_the_pool(tmp_path: Path):
    reviews, meta = _files(tmp_path)
    data = read_amazon(reviews, meta, AmazonFilter(until=1_670_000_050))
    assert [it.id for it in data.items] == ["B01"]


def test_the_category_path_is_kept_whole_and_prices_given_as_text_are_read(tmp_path: Path):
    files = write_category(tmp_path, users=200, seed=1)
    data = read_amazon(files.reviews, files.meta)
    paths = {tuple(it.categories) for it in data.items}
    assert ("CDs & Vinyl", "Rock", "Classic Rock") in paths
    prices = {it.attributes.get("Price") for it in data.items}
    assert {"$12.99", "$8.49", "$1099.00", "$24.00", None} <= prices  # "—" and null: none


def test_min_user_drops_users_with_fewer_records_once(tmp_path: Path):
    files = write_category(tmp_path, users=200, seed=2)
    data = read_amazon(files.reviews, files.meta, AmazonFilter(min_user=3))
    assert np.bincount(data.user).min() >= 3
    assert len(data.user_ids) < len(read_amazon(files.reviews, files.meta).user_ids)


def test_kcore_leaves_no_user_or_item_with_fewer_records(tmp_path: Path):
    files = write_category(tmp_path, users=300, seed=2)
    data = read_amazon(files.reviews, files.meta, AmazonFilter(kcore=3))
    assert len(data) > 0
    assert np.bincount(data.user).min() >= 3 and np.bincount(data.item).min() >= 3


def test_a_damaged_gzip_is_a_clear_error(tmp_path: Path):
    files = write_category(tmp_path, users=20, gz=True)
    files.reviews.write_bytes(files.reviews.read_bytes()[:60])
    with pytest.raises(DataError, match=r"cannot be read .*expected a whole file"):
        read_amazon(files.reviews, files.meta)


def test_a_rating_only_benchmark_csv_reads_as_the_reviews_it_holds(tmp_path: Path):
    files = write_category(tmp_path, users=60, seed=4)
    ratings = write_rating_csv(files.reviews, tmp_path / "CDs_and_Vinyl.csv.gz")
    keep = AmazonFilter(categories=("Rock",))
    from_csv = read_amazon(ratings, files.meta, keep)
    assert len(from_csv) > 0
    assert from_csv.sha256() == read_amazon(files.reviews, files.meta, keep).sha256()
