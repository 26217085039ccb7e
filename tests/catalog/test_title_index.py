"""A catalog folder's saved title index: titles found without reading items, as in memory."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.catalog_pairs import messages_naming_titles

from taurec.catalog.builders.synthetic import generate_items
from taurec.catalog.errors import DataError
from taurec.catalog.folder import write_catalog_folder
from taurec.catalog.io import CatalogMeta
from taurec.catalog.item import Item
from taurec.catalog.mentions import TitleMatcher
from taurec.catalog.records import ItemRecords
from taurec.catalog.store import Catalog
from taurec.catalog.strings import StringColumn, save_strings
from taurec.catalog.title_index import TITLES_FOLDER
from taurec.catalog.tokens import title_tokens


def _folder_of(tmp: Path, items: list[Item]) -> Catalog:
    return Catalog.load(write_catalog_folder(tmp / "c.taurec-catalog", CatalogMeta(), items))


def test_a_folder_is_written_with_its_title_index(pair):
    _, folder = pair
    assert isinstance(folder.items, ItemRecords)
    assert folder.items.saved_titles is not None


def test_a_folder_finds_the_same_mentions_as_its_json_catalog(pair):
    json_cat, folder = pair
    in_memory, saved = TitleMatcher(json_cat.items), TitleMatcher(folder.items)
    texts = messages_naming_titles(list(json_cat.items), 150, seed=1)
    found = [in_memory.find(text) for text in texts]
    assert [saved.find(text) for text in texts] == found
    assert sum(map(len, found)) > len(texts)  # the texts do name titles


def test_titles_inside_a_persons_name_are_not_mentions_in_a_folder(tmp_path, make_item):
    items = [make_item("a", title="David"), make_item("b", title="Rain", cast=["David Jonsson"])]
    folder = _folder_of(tmp_path, items)
    matcher = TitleMatcher(folder.items)
    assert matcher.find("David Jonsson's finest") == []
    assert [m.item_ids for m in matcher.find("Watch David, then Rain.")] == [("a",), ("b",)]


def test_items_sharing_a_title_are_all_named_in_row_order(tmp_path, make_item):
    items = [make_item("z", title="Echo Park"), make_item("a", title="echo park!")]
    folder = _folder_of(tmp_path, items)
    [mention] = TitleMatcher(folder.items).find("Try Echo Park tonight.")
    assert (mention.title, mention.item_ids) == ("Echo Park", ("z", "a"))


def test_a_matcher_over_a_folder_decodes_no_item(generated_pair, monkeypatch):
    _, folder = generated_pair
    some = folder.items[17].title

    def refuse(self, row):
        raise AssertionError(f"decoded item row {row}")

    monkeypatch.setattr(ItemRecords, "_decode", refuse)
    assert [m.title for m in TitleMatcher(folder.items).find(f"Maybe {some}?")] == [some]


def test_a_folder_written_without_a_title_index_still_finds_titles(generated_pair, tmp_path):
    json_cat, folder = generated_pair
    old = tmp_path / "old.taurec-catalog"
    shutil.copytree(_folder_path(folder), old)
    shutil.rmtree(old / TITLES_FOLDER)
    reopened = Catalog.load(old)
    assert reopened.items.saved_titles is None  # type: ignore[attr-defined]
    texts = messages_naming_titles(list(json_cat.items), 30, seed=2)
    in_memory, rebuilt = TitleMatcher(json_cat.items), TitleMatcher(reopened.items)
    assert [rebuilt.find(t) for t in texts] == [in_memory.find(t) for t in texts]


def _folder_path(cat: Catalog) -> Path:
    assert cat._folder is not None
    return cat._folder.path


def test_a_string_column_returns_each_string_and_finds_sorted_ones(tmp_path):
    words = sorted(["", "amélie", "zoë", "b", "ab", "a\x1fb"])
    save_strings(tmp_path, "w", words)
    column = StringColumn(tmp_path, "w")
    assert list(column) == words
    assert column.all() == words
    assert [column.position(w) for w in words] == list(range(len(words)))
    assert column.position("amelie") is None and "c" not in column and "zoë" in column


def test_an_empty_string_column_holds_nothing(tmp_path):
    save_strings(tmp_path, "none", [])
    column = StringColumn(tmp_path, "none")
    assert len(column) == 0 and column.all() == [] and "x" not in column


def test_the_saved_rows_of_a_title_are_the_rows_holding_it(generated_pair):
    _, folder = generated_pair
    saved = folder.items.saved_titles  # type: ignore[attr-defined]
    item = folder.items[123]
    title, ids = saved.get(title_tokens(item.title))
    rows = [folder.row(i) for i in ids]
    assert item.id in ids and rows == sorted(rows)
    assert all(title_tokens(folder.items[r].title) == title_tokens(title) for r in rows)


def test_a_folder_of_titles_without_words_has_an_empty_index_that_finds_nothing(
    tmp_path, make_item
):
    folder = _folder_of(tmp_path, [make_item("a", title="!!!"), make_item("b", title="?")])
    saved = folder.items.saved_titles  # type: ignore[attr-defined]
    assert saved is not None and saved.max_len == 0 and saved.fuzzy_keys == []
    assert TitleMatcher(folder.items).find("!!! and ? tonight") == []


def test_a_folder_with_part_of_its_title_index_is_one_clear_error(tmp_path, make_item):
    path = write_catalog_folder(tmp_path / "c.taurec-catalog", CatalogMeta(), [make_item("a")])
    (path / TITLES_FOLDER / "people.bin").unlink()
    with pytest.raises(DataError, match=r"is missing titles/people\.bin; expected a complete"):
        Catalog.load(path)


def _junk_npy(path: Path) -> None:
    path.write_bytes(b"\x93NUMPY junk, not an array")


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:10])


DAMAGE = {
    "manifest not JSON": lambda t: (t / "manifest.json").write_bytes(b"{not json"),
    "manifest without its fields": lambda t: (t / "manifest.json").write_bytes(b"{}"),
    "rows not an array": lambda t: _junk_npy(t / "exact.rows.npy"),
    "starts truncated": lambda t: _truncate(t / "exact.starts.npy"),
    "a string file emptied": lambda t: (t / "names.bin").write_bytes(b""),
    "a string file truncated": lambda t: _truncate(t / "exact.keys.bin"),
    "offsets not an array": lambda t: _junk_npy(t / "fuzzy.titles.offsets.npy"),
    "the rows' ranks not an array": lambda t: _junk_npy(t.parent / "columns" / "id_rank.npy"),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_title_index_is_one_clear_error_never_a_crash_or_silence(tmp_path, damage):
    path = write_catalog_folder(
        tmp_path / "c.taurec-catalog", CatalogMeta(), generate_items(300, seed=1)
    )
    DAMAGE[damage](path / TITLES_FOLDER)
    with pytest.raises(DataError, match=r"c\.taurec-catalog.*expected a complete catalog folder"):
        TitleMatcher(Catalog.load(path).items)
