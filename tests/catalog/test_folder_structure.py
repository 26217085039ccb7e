"""A catalog folder damaged and then given a manifest written again to match (so every
hash checks out) is still refused when it opens: each file is checked against the
structure of the others (shapes, types, index consistency), each way is one DataError
line, and exit 2 from every command, before anything is served. Formerly `catalog info`
exited 0 on some, others gave a traceback, a server ended every episode as infra_error,
and swapped title-index files failed every episode `evaluator score --catalog` scored."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import orjson
import pytest
from support.http_server import free_port
from typer.testing import CliRunner

from taurec.catalog.errors import DataError
from taurec.catalog.folder import write_catalog_folder
from taurec.catalog.folder_structure import RECORD_FIELDS
from taurec.catalog.io import CatalogMeta
from taurec.catalog.item import ITEM_FIELDS
from taurec.catalog.manifest import RECORDS, read_manifest, write_manifest
from taurec.catalog.store import Catalog
from taurec.clients.cli.main import app as taurec
from taurec.evaluator.cli.main import app as evaluator

Damage = Callable[[Path], None]
runner = CliRunner()


@pytest.fixture
def folder(tmp_path: Path, make_item) -> Path:
    items = [
        make_item(
            "a", title="The Long Harbour Night", genres=["Drama", "Comedy"], cast=["Ann Lee"]
        ),
        make_item("b", title="Up", genres=["Drama"], cast=["Bo Ek", "Ann Lee"]),
        make_item("c", title="Quiet Orbit Returns", genres=["Comedy"], director="Cy Moor"),
    ]
    return write_catalog_folder(tmp_path / "c.taurec-catalog", CatalogMeta(), items)


def reseal(path: Path) -> None:
    """What a forger does: write the manifest again to match the damaged files."""
    old = read_manifest(path)
    write_manifest(path, old.items, old.meta, old.files)


def _array(name: str, edit: Callable[[np.ndarray], np.ndarray]) -> Damage:
    def damage(path: Path) -> None:
        np.save(path / name, edit(np.load(path / name)))

    return damage


def _json(name: str, edit: Callable[[object], object]) -> Damage:
    def damage(path: Path) -> None:
        (path / name).write_bytes(orjson.dumps(edit(orjson.loads((path / name).read_bytes()))))

    return damage


def _record(row: int, edit: Callable[[dict], None]) -> Damage:
    def damage(path: Path) -> None:
        lines = (path / RECORDS).read_bytes().splitlines(keepends=True)
        doc = orjson.loads(lines[row])
        edit(doc)
        lines[row] = orjson.dumps(doc, option=orjson.OPT_SORT_KEYS) + b"\n"
        (path / RECORDS).write_bytes(b"".join(lines))
        offsets = np.concatenate(([0], np.cumsum([len(x) for x in lines]))).astype(np.int64)
        np.save(path / "offsets.npy", offsets)

    return damage


def _swap(a: str, b: str) -> Damage:
    def damage(path: Path) -> None:
        for suffix in (".bin", ".offsets.npy"):
            first, second = path / f"{a}{suffix}", path / f"{b}{suffix}"
            held = first.read_bytes()
            first.write_bytes(second.read_bytes())
            second.write_bytes(held)

    return damage


def _swap_files(a: str, b: str) -> Damage:
    def damage(path: Path) -> None:
        held = (path / a).read_bytes()
        (path / a).write_bytes((path / b).read_bytes())
        (path / b).write_bytes(held)

    return damage


def _set(at: int, value: object) -> Callable[[np.ndarray], np.ndarray]:
    def edit(values: np.ndarray) -> np.ndarray:
        values[at] = value
        return values

    return edit


def _vocab_gap(vocab: object) -> object:
    assert isinstance(vocab, dict)
    return {token: n + 1 for token, n in vocab.items()}


def _unequal_labels(members: object) -> object:
    assert isinstance(members, dict)
    members["genres"]["labels"].append("Western")
    return members


#: Damages that leave every file readable, each then resealed.
REWRITTEN: dict[str, Damage] = {
    "a numeric column cut short": _array("columns/runtime.npy", lambda a: a[:-1]),
    "a numeric column of another type": _array("columns/rating.npy", lambda a: a.astype("f4")),
    "a content rating code outside": _array("columns/content_rating.npy", _set(0, 99)),
    "id_rank not the inverse of id_rows": _array("columns/id_rank.npy", lambda a: a[::-1].copy()),
    "title_rank with a gap": _array("columns/title_rank.npy", lambda a: a * 2),
    "a sort order with a row twice": _array("orders/rating.desc.npy", _set(0, 1)),
    "a sort order cut short": _array("orders/runtime.asc.npy", lambda a: a[:-1]),
    "a membership's row outside": _array("columns/genres.rows.npy", _set(0, 9)),
    "a membership's starts falling": _array("columns/cast.starts.npy", lambda a: a[::-1].copy()),
    "a membership's rows out of order": _array("columns/genres.rows.npy", lambda a: a[::-1].copy()),
    "members.json keys and labels unequal": _json("columns/members.json", _unequal_labels),
    "members.json not an object": _json("columns/members.json", lambda d: []),
    "members.json without a membership": _json(
        "columns/members.json",
        lambda d: {k: v for k, v in d.items() if k != "cast"},  # type: ignore[union-attr]
    ),
    "the BM25 indptr cut short": _array("search/indptr.csc.index.npy", lambda a: a[:-1]),
    "a BM25 index outside the rows": _array("search/indices.csc.index.npy", _set(0, 99)),
    "a BM25 weight not a number": _array("search/data.csc.index.npy", _set(0, np.nan)),
    "the BM25 parameters of another count": _json(
        "search/params.index.json",
        lambda d: {**d, "num_docs": 99},  # type: ignore[dict-item]
    ),
    "the BM25 vocabulary numbered from 1": _json("search/vocab.index.json", _vocab_gap),
    "the title hashes cut short": _array("search/title_hash.npy", lambda a: a[:-1]),
    "title index keys swapped": _swap("titles/exact.keys", "titles/fuzzy.keys"),
    "title index rows swapped": _swap_files("titles/exact.rows.npy", "titles/fuzzy.rows.npy"),
    "title index people unsorted": _swap("titles/people", "titles/fuzzy.titles"),
    "title index manifest not JSON": lambda p: (p / "titles/manifest.json").write_bytes(b"{"),
    "a record of the wrong type": _record(0, lambda d: d.update(rating=[6])),
    "a record's runtime a string": _record(1, lambda d: d.update(runtime="90")),
    "a record without its title": _record(2, lambda d: d.pop("title")),
    "a record with an unknown field": _record(0, lambda d: d.update(budget=5)),
    "a record of a content rating not known": _record(1, lambda d: d.update(content_rating="X")),
    "a record holding another row's id": _record(0, lambda d: d.update(id="b")),
    "a record that is not an object": lambda p: _record_line(p, 1, b"[1, 2]\n"),
}


def _record_line(path: Path, row: int, line: bytes) -> None:
    lines = (path / RECORDS).read_bytes().splitlines(keepends=True)
    lines[row] = line
    (path / RECORDS).write_bytes(b"".join(lines))
    offsets = np.concatenate(([0], np.cumsum([len(x) for x in lines]))).astype(np.int64)
    np.save(path / "offsets.npy", offsets)


def test_the_records_checked_have_exactly_the_item_fields():
    assert RECORD_FIELDS == ITEM_FIELDS


def test_an_intact_folder_opens(folder):
    reseal(folder)  # writing the manifest again over intact files changes nothing
    assert len(Catalog.load(folder)) == 3


@pytest.mark.parametrize("damage", list(REWRITTEN))
def test_a_folder_damaged_and_resealed_is_one_data_error_at_open(folder, damage):
    REWRITTEN[damage](folder)
    reseal(folder)
    with pytest.raises(DataError, match=r"c\.taurec-catalog: .*expected a complete catalog") as e:
        Catalog.load(folder)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("damage", list(REWRITTEN))
def test_catalog_info_on_a_resealed_folder_exits_2_with_one_line(folder, damage):
    REWRITTEN[damage](folder)
    reseal(folder)
    result = runner.invoke(taurec, ["catalog", "info", str(folder)])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "c.taurec-catalog" in lines[0], result.stderr


def test_a_record_is_named_by_its_line_and_field(folder):
    REWRITTEN["a record's runtime a string"](folder)
    reseal(folder)
    with pytest.raises(DataError, match=r"items\.jsonl: line 2 field 'runtime': Expected `int`"):
        Catalog.load(folder)


@pytest.fixture(scope="module")
def a_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One episode's log (over the built-in suite), for `evaluator score --catalog`."""
    out = tmp_path_factory.mktemp("played") / "logs"
    args = ["run", "--agent", "scripted", "--tasks", "t001", "--trials", "1", "--out", str(out)]
    assert runner.invoke(taurec, args).exit_code == 0
    (log,) = out.rglob("*.jsonl")
    return log


def _suite_over(folder: Path, tmp_path: Path) -> Path:
    suite = tmp_path / "suite"
    (suite / "tasks").mkdir(parents=True)
    source = Path(__file__).parents[2] / "tasks" / "suites" / "builtin" / "tasks" / "t001.json"
    (suite / "tasks" / "t001.json").write_bytes(source.read_bytes())
    doc = {"format_version": 1, "id": "s", "catalog": str(folder), "description": "x"}
    (suite / "suite.json").write_bytes(orjson.dumps(doc))
    return suite


@pytest.mark.parametrize(
    "damage",
    ["title index rows swapped", "a BM25 index outside the rows", "a record of the wrong type",
     "members.json without a membership"],
)  # fmt: skip
@pytest.mark.parametrize("command", ["serve", "run", "score"])
def test_every_command_refuses_a_resealed_folder_with_one_line_and_exit_2(
    folder, tmp_path, a_log, damage, command
):
    REWRITTEN[damage](folder)
    reseal(folder)
    logs = tmp_path / "logs"
    played = tmp_path / "played"
    played.mkdir()
    shutil.copy(a_log, played / a_log.name)
    app, args = {
        "serve": (taurec, ["serve", "--catalog", str(folder), "--port", str(free_port())]),
        "run": (
            taurec,
            ["run", "--suite", str(_suite_over(folder, tmp_path)), "--agent", "scripted",
             "--trials", "1", "--out", str(logs / "run")],
        ),
        "score": (evaluator, ["score", str(played), "--catalog", str(folder)]),
    }[command]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 2, (result.output, result.exception)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "c.taurec-catalog" in lines[0], result.stderr
    assert not logs.exists() or not list(logs.rglob("*.jsonl"))
