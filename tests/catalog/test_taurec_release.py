"""The τ-Rec release catalog importer, on a made-up release and (when present) the real one.

The real release is third-party data: it is read from ../shared/third_party and never
copied here; tests that need it skip, saying why, when it is absent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from support.third_party import TAU_REC as RELEASE
from support.third_party import release_item as release_record

from taurec.catalog.builders.taurec_release import find_catalog_file, import_catalog
from taurec.catalog.errors import DataError


def write_catalog(folder: Path, records: list[Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "catalog.json").write_bytes(orjson.dumps(records))
    return folder


def test_items_get_defaults_for_the_fields_the_release_lacks(tmp_path: Path) -> None:
    meta, items, warnings = import_catalog(write_catalog(tmp_path / "rel", [release_record("m1")]))
    assert (items[0].original_language, items[0].keywords) == ("en", [])
    assert meta.source == "tau-rec" and meta.name == "rel"
    assert "1 of 1 items have no original_language; defaulted to 'en'" in warnings[0]
    assert "1 of 1 items have no keywords; defaulted to []" in warnings[1]


def test_items_on_no_service_are_counted(tmp_path: Path) -> None:
    records = [release_record("m1"), release_record("m2", streaming_services=[])]
    _, _, warnings = import_catalog(write_catalog(tmp_path, records))
    assert "1 of 2 items have no streaming service" in warnings


def test_unknown_service_names_are_kept_and_reported(tmp_path: Path) -> None:
    records = [release_record("m1", streaming_services=["Prime Video", "Moonbeam Plus"])]
    _, items, warnings = import_catalog(write_catalog(tmp_path, records))
    assert items[0].streaming_services == ["Amazon Prime Video", "Moonbeam Plus"]
    assert "unknown service name 'Moonbeam Plus' (1 item); kept as spelled" in warnings


def test_fields_outside_the_schema_are_ignored_with_a_warning(tmp_path: Path) -> None:
    _, _, warnings = import_catalog(write_catalog(tmp_path, [release_record("m1", budget=5)]))
    assert "ignored field 'budget' (in 1 items): not part of the item schema" in warnings


def test_a_bad_record_names_the_item_and_field(tmp_path: Path) -> None:
    with pytest.raises(DataError) as info:
        import_catalog(write_catalog(tmp_path, [release_record("m1", runtime="long")]))
    assert (info.value.record, info.value.field) == ("item 'm1'", "runtime")


def test_malformed_json_is_a_data_error(tmp_path: Path) -> None:
    (tmp_path / "catalog.json").write_text("[{")
    with pytest.raises(DataError, match="is not valid JSON"):
        import_catalog(tmp_path)


def test_finds_the_catalog_in_a_data_folder(tmp_path: Path) -> None:
    write_catalog(tmp_path / "data", [release_record("m1")])
    assert find_catalog_file(tmp_path) == tmp_path / "data" / "catalog.json"


def test_a_folder_without_a_catalog_is_explained(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="expected a τ-Rec release folder"):
        find_catalog_file(tmp_path)


def test_imports_the_published_release_catalog() -> None:
    if not (RELEASE / "catalog.json").is_file():
        pytest.skip(f"τ-Rec release not found at {RELEASE} (third-party data, not shipped)")
    meta, items, warnings = import_catalog(RELEASE)
    assert len(items) == 153 and meta.source == "tau-rec"
    assert "95 of 153 items have no streaming service" in warnings
    assert any(w.startswith("unknown service name") for w in warnings)
