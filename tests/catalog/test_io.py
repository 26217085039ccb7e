from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from taurec.catalog.errors import DataError
from taurec.catalog.io import CatalogMeta, read_catalog_file, write_catalog_file
from taurec.catalog.store import Catalog

GOOD: dict[str, Any] = {
    "id": "m1",
    "title": "Good",
    "release_date": "2001-02-03",
    "runtime": 90,
    "rating": 7.0,
    "vote_count": 10,
    "content_rating": "PG",
}


def write(tmp_path: Path, doc: Any, name: str = "cat.json") -> Path:
    path = tmp_path / name
    path.write_bytes(doc if isinstance(doc, bytes) else orjson.dumps(doc))
    return path


def load_error(path: Path) -> DataError:
    with pytest.raises(DataError) as err:
        Catalog.load(path)
    return err.value


def test_malformed_json_names_the_file(tmp_path):
    path = write(tmp_path, b'{"items": [')
    err = load_error(path)
    assert err.source == str(path)
    assert "is not valid JSON" in str(err)


def test_malformed_jsonl_line_names_the_line(tmp_path):
    path = write(tmp_path, orjson.dumps(GOOD) + b"\n{oops\n", name="cat.jsonl")
    assert f"{path}:2" in str(load_error(path))


def test_unknown_field_names_item_and_field(tmp_path):
    err = load_error(write(tmp_path, {"items": [GOOD, {**GOOD, "id": "m2", "colour": "red"}]}))
    assert (err.record, err.field) == ("item 'm2'", "colour")
    assert "is not a known field" in str(err)


def test_wrong_type_names_item_field_and_expectation(tmp_path):
    err = load_error(write(tmp_path, [{**GOOD, "runtime": "long"}]))
    assert (err.record, err.field) == ("item 'm1'", "runtime")
    assert "expected a valid integer" in str(err)
    assert "'long'" in str(err)


def test_missing_required_field_is_named(tmp_path):
    record = {k: v for k, v in GOOD.items() if k != "title"}
    err = load_error(write(tmp_path, [record]))
    assert err.field == "title"
    assert "is required but missing" in str(err)


def test_bad_content_rating_lists_the_allowed_values(tmp_path):
    err = load_error(write(tmp_path, [{**GOOD, "content_rating": "X"}]))
    assert err.field == "content_rating"
    assert "'PG-13'" in str(err)


def test_duplicate_id_names_the_id_and_first_occurrence(tmp_path):
    err = load_error(write(tmp_path, [GOOD, {**GOOD, "title": "Again"}]))
    assert (err.record, err.field) == ("item 'm1'", "id")
    assert "first seen as item #0" in str(err)


def test_item_that_is_not_an_object_is_named_by_position(tmp_path):
    err = load_error(write(tmp_path, [GOOD, 42]))
    assert err.record == "item #1"
    assert "expected a JSON object" in str(err)


@pytest.mark.parametrize("doc", [[], {"items": []}])
def test_empty_catalog_is_an_error(tmp_path, doc):
    assert "holds no items" in str(load_error(write(tmp_path, doc)))


def test_document_of_the_wrong_shape_says_what_is_expected(tmp_path):
    assert "expected a list of items" in str(load_error(write(tmp_path, {"things": []})))


def test_unsupported_format_version_is_named(tmp_path):
    err = load_error(write(tmp_path, {"format_version": 9, "items": [GOOD]}))
    assert err.field == "format_version"


def test_bad_last_item_loads_nothing(tmp_path):
    records = [{**GOOD, "id": f"m{i}"} for i in range(50)] + [{**GOOD, "id": "bad", "runtime": -1}]
    err = load_error(write(tmp_path, records))
    assert err.record == "item 'bad'"


def test_write_then_read_round_trips(tmp_path, make_item):
    items = [make_item("a", streaming_services=["Netflix"]), make_item("b", sponsored=True)]
    for name in ("cat.json", "cat.jsonl"):
        path = write_catalog_file(tmp_path / name, CatalogMeta(name="rt", seed=7), items)
        meta, loaded = read_catalog_file(path)
        assert loaded == items
        assert (meta.name, meta.seed) == ("rt", 7)


def test_write_leaves_no_temporary_files(tmp_path, make_item):
    write_catalog_file(tmp_path / "cat.json", CatalogMeta(), [make_item("a")])
    assert [p.name for p in tmp_path.iterdir()] == ["cat.json"]
