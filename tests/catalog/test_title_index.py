"""A catalog folder's saved title index: titles found without reading items, as in memory."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import orjson
import pytest
from support.catalog_pairs import messages_naming_titles

from taurec.catalog.builders.synthetic import generate_items
from taurec.catalog.errors import DataError
from taurec.catalog.folder import write_catalog_folder
from taurec.catalog.io import CatalogMeta
from taurec.catalog.item import Item
from taurec.catalog.manifest import read_manifest, write_manifest
from taurec.catalog.mentions import TitleMatcher
from taurec.catalog.records import ItemRecords
from taurec.catalog.store import Catalog
from taurec.catalog.strings import StringColumn, save_strings
from taurec.catalog.title_forms import reading_forms
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
    assert [saved.occurrences(t) for t in texts] == [in_memory.occurrences(t) for t in texts]


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


# --- reading forms and years, saved as in memory ------------------------------------------

#: Titles written the MovieLens way, two of them shared by items of different years.
MOVIELENS_LIKE = [
    ("Usual Suspects, The (1995)", 1995),
    ("Toy Story (1995)", 1995),
    ("Shall We Dance? (1937)", 1937),
    ("Shall We Dance? (1996)", 1996),
    ("Sabrina (1954)", 1954),
    ("Sabrina (1995)", 1995),
    ("Seven (Se7en) (1995)", 1995),
    ("Avventura, L' (1960)", 1960),
    ("Postino, Il (1994)", 1994),
    ("Infinity (1996)", 1996),
    ("Star Maker, The (Uomo delle stelle, L') (1995)", 1995),
    ("The Fog", 1980),
]


def _movielens_like(make_item) -> list[Item]:
    items = [
        make_item(f"ml{k}", title=t).model_copy(update={"release_date": date(y, 1, 1)})
        for k, (t, y) in enumerate(MOVIELENS_LIKE)
    ]
    return [*items, *generate_items(200, seed=3)]


def _messages(items: list[Item]) -> list[str]:
    out = []
    for item in items[: len(MOVIELENS_LIKE)]:
        for form in reading_forms(item.title):
            out += [
                f"Have you seen {form}? It is lovely.",
                f"Try {form} ({item.year}) tonight, or {form} ({item.year + 9}).",
                f'She says "{form.lower()}" and leaves; {form}\'s ending lands.',
            ]
    out += ["Usual Suspects, The is great.", "Fog, The or Avengers: Infinity War (2018)?"]
    return out


def _readings(matcher: TitleMatcher, texts: list[str]) -> list[object]:
    return [
        (matcher.find(t), matcher.find_written(t), matcher.occurrences(t, written=False))
        for t in texts
    ]


def test_a_folder_reads_titles_years_and_shared_titles_as_its_items_do(tmp_path, make_item):
    items = _movielens_like(make_item)
    folder = _folder_of(tmp_path, items)
    texts = _messages(items)
    in_memory = _readings(TitleMatcher(items), texts)
    assert _readings(TitleMatcher(folder.items), texts) == in_memory
    found = [m for memory in in_memory for m in memory[0]]  # type: ignore[index]
    assert {m.year for m in found} > {None} and any(m.ambiguous for m in found)
    assert any(m.item_ids == () for m in found)  # a year no item has


def _as_version_1(path: Path) -> None:
    """What a folder written before reading forms were saved holds: no variants table,
    first words of the titles only, index version 1 (the folder manifest written again)."""
    titles = path / TITLES_FOLDER
    for name in titles.glob("variants.*"):
        name.unlink()
    keys = StringColumn(titles, "exact.keys").all()
    save_strings(titles, "first_words", sorted({k.split("\x1f", 1)[0] for k in keys}))
    doc = orjson.loads((titles / "manifest.json").read_bytes())
    (titles / "manifest.json").write_bytes(orjson.dumps({**doc, "version": 1}))
    old = read_manifest(path)
    files = [n for n in old.files if not n.startswith(f"{TITLES_FOLDER}/variants.")]
    write_manifest(path, old.items, old.meta, files)


def test_a_folder_saved_without_reading_forms_computes_them_with_the_same_answers(
    tmp_path, make_item
):
    items = _movielens_like(make_item)
    path = write_catalog_folder(tmp_path / "old.taurec-catalog", CatalogMeta(), items)
    _as_version_1(path)
    reopened = Catalog.load(path)
    saved = reopened.items.saved_titles  # type: ignore[attr-defined]
    assert saved is not None and saved.version == 1
    texts = _messages(items)
    rebuilt = TitleMatcher(reopened.items)
    assert _readings(rebuilt, texts) == _readings(TitleMatcher(items), texts)
    assert [m.item_ids for m in rebuilt.find("The Usual Suspects")] == [("ml0",)]


def test_a_folder_missing_its_variants_table_is_one_clear_error(tmp_path, make_item):
    path = write_catalog_folder(tmp_path / "c.taurec-catalog", CatalogMeta(), [make_item("a")])
    (path / TITLES_FOLDER / "variants.keys.bin").unlink()
    with pytest.raises(DataError, match=r"is missing titles/variants\.keys\.bin"):
        Catalog.load(path)


def test_the_saved_years_of_a_title_are_its_items_release_years(tmp_path, make_item):
    items = _movielens_like(make_item)
    saved = _folder_of(tmp_path, items).items.saved_titles  # type: ignore[attr-defined]
    reading = saved.reading(("shall", "we", "dance"))
    assert [(g.ids, g.years) for g in reading.groups] == [(("ml2",), (1937,)), (("ml3",), (1996,))]
