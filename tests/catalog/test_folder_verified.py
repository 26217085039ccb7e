"""A catalog folder is checked against its manifest when it is opened: every way of
damaging one is a one-line DataError (and exit 2 from the commands), and the digest a
plan pins is the folder's real content, never the manifest's word for it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import orjson
import pytest
from support.http_server import free_port
from typer.testing import CliRunner

from taurec.catalog.errors import DataError
from taurec.catalog.folder import write_catalog_folder
from taurec.catalog.io import CatalogMeta
from taurec.catalog.manifest import (
    MANIFEST,
    RECORDS,
    file_digests,
    read_manifest,
    write_manifest,
)
from taurec.catalog.store import Catalog, builtin_path
from taurec.clients.cli.catalog import app
from taurec.server.seal import load_seals
from taurec.tasks.runs.plan import new_plan, write_plan
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.signing import load_log_key

Damage = Callable[[Path], None]


@pytest.fixture
def folder(tmp_path: Path, make_item) -> Path:
    items = [make_item(i, genres=["Drama", "Comedy"], cast=["Ann Lee"]) for i in "abc"]
    return write_catalog_folder(tmp_path / "c.taurec-catalog", CatalogMeta(), items)


def reseal(path: Path) -> None:
    """What a forger does: write the manifest again over the damaged files (keeping the
    old content digest when the damaged records cannot even be hashed)."""
    old = read_manifest(path)
    try:
        write_manifest(path, old.items, old.meta, old.files)
    except IndexError:
        doc = old.model_dump(mode="json") | {"files": file_digests(path, old.files)}
        (path / MANIFEST).write_bytes(orjson.dumps(doc))


def _bump_runtime(line: bytes) -> bytes:
    """The same record with its runtime's last digit changed: the file keeps its length."""
    at = line.index(b'"runtime":') + len(b'"runtime":')
    while line[at + 1 : at + 2].isdigit():
        at += 1
    digit = b"%d" % ((int(line[at : at + 1]) + 1) % 10)
    return line[:at] + digit + line[at + 1 :]


def _edit_line(row: int, edit: Callable[[bytes], bytes]) -> Damage:
    def damage(path: Path) -> None:
        lines = (path / RECORDS).read_bytes().splitlines(keepends=True)
        lines[row] = edit(lines[row])
        (path / RECORDS).write_bytes(b"".join(lines))

    return damage


def _same_length(old: bytes, new: bytes) -> Callable[[bytes], bytes]:
    assert len(old) == len(new)
    return lambda line: line.replace(old, new, 1)


def _edit_array(name: str, edit: Callable[[np.ndarray], None]) -> Damage:
    def damage(path: Path) -> None:
        values = np.load(path / name)
        edit(values)
        np.save(path / name, values)

    return damage


def _edit_manifest(edit: Callable[[dict], object]) -> Damage:
    def damage(path: Path) -> None:
        doc = orjson.loads((path / MANIFEST).read_bytes())
        doc = edit(doc) or doc
        (path / MANIFEST).write_bytes(orjson.dumps(doc))

    return damage


def _set(id_rows: np.ndarray, at: int, value: int) -> None:
    id_rows[at] = value


CORRUPTIONS: dict[str, Damage] = {
    "items.jsonl missing": lambda p: (p / RECORDS).unlink(),
    "an index file missing": lambda p: (p / "columns/rating.npy").unlink(),
    "a title index file missing": lambda p: (p / "titles/people.bin").unlink(),
    "the manifest missing": lambda p: (p / MANIFEST).unlink(),
    "a JSONL line truncated": _edit_line(1, lambda line: line[:-8] + b"\n"),
    "a JSONL line cut, same length": _edit_line(1, lambda line: line[:-8] + b" " * 7 + b"\n"),
    "a line that is not an object": _edit_line(0, lambda ln: b"[" + b" " * (len(ln) - 3) + b"]\n"),
    "a required field missing": _edit_line(2, _same_length(b'"title"', b'"tight"')),
    "a field of the wrong type": _edit_line(0, _same_length(b'"rating":6.0', b'"rating":[6]')),
    "a value edited, same length": _edit_line(0, _bump_runtime),
    "id_rows.npy points outside": _edit_array("id_rows.npy", lambda a: _set(a, 0, 7)),
    "offsets.npy points outside": _edit_array("offsets.npy", lambda a: _set(a, 1, 10**9)),
    "a sort order points outside": _edit_array("orders/rating.desc.npy", lambda a: _set(a, 0, 9)),
    "a membership points outside": _edit_array("columns/genres.rows.npy", lambda a: _set(a, 0, 9)),
    "an id edited": _edit_array("ids.npy", lambda a: _set(a, 0, b"z")),
    "an array file that is no array": lambda p: (p / "ids.npy").write_bytes(b"garbage"),
    "members.json not JSON": lambda p: (p / "columns/members.json").write_bytes(b"{"),
    "the search vocabulary edited": lambda p: (p / "search/vocab.index.json").write_bytes(b"{}"),
    "the manifest not JSON": lambda p: (p / MANIFEST).write_bytes(b'{"format": "taurec-cat'),
    "the manifest not an object": lambda p: (p / MANIFEST).write_bytes(b"[]"),
    "the manifest with a wrong count": _edit_manifest(lambda d: d.update(items=5)),
    "the manifest's count not a number": _edit_manifest(lambda d: d.update(items="3")),
    "the manifest without its sha256": _edit_manifest(lambda d: d.pop("sha256")),
    "the manifest's meta not an object": _edit_manifest(lambda d: d.update(meta=5)),
    "the manifest without a file's digest": _edit_manifest(lambda d: d["files"].pop("ids.npy")),
    "the manifest of version 1": _edit_manifest(lambda d: d.update(format_version=1)),
}


@pytest.mark.parametrize("corruption", list(CORRUPTIONS))
def test_a_corrupted_folder_is_one_data_error_when_opened(folder, corruption):
    CORRUPTIONS[corruption](folder)
    with pytest.raises(DataError, match=r"c\.taurec-catalog: ") as caught:
        Catalog.load(folder)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("corruption", list(CORRUPTIONS))
def test_catalog_info_on_a_corrupted_folder_exits_2_with_one_line(folder, corruption):
    CORRUPTIONS[corruption](folder)
    result = CliRunner().invoke(app, ["info", str(folder)])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "c.taurec-catalog" in lines[0]


def test_a_same_length_edit_is_refused_naming_the_records(folder):
    CORRUPTIONS["a value edited, same length"](folder)
    with pytest.raises(
        DataError, match=r"items\.jsonl \(its records in id order\) has sha256 \w{12}\.\.\. but "
    ):
        Catalog.load(folder)


def test_an_edited_index_is_refused_naming_the_file(folder):
    CORRUPTIONS["a sort order points outside"](folder)
    with pytest.raises(DataError, match=r"orders/rating\.desc\.npy has sha256 .* but manifest"):
        Catalog.load(folder)


def test_an_intact_folder_reports_the_digest_recomputed_from_its_items(folder, make_item):
    items = [make_item(i, genres=["Drama", "Comedy"], cast=["Ann Lee"]) for i in "abc"]
    assert Catalog.load(folder).content_sha256() == Catalog.from_items(items).sha256()


FORGED_LAYOUT = [
    "id_rows.npy points outside",
    "offsets.npy points outside",
    "an id edited",
]


@pytest.mark.parametrize("corruption", FORGED_LAYOUT)
def test_a_resealed_folder_whose_lookups_point_outside_is_refused(folder, corruption):
    CORRUPTIONS[corruption](folder)
    reseal(folder)
    with pytest.raises(DataError, match="expected a complete catalog folder"):
        Catalog.load(folder)


FORGED_RECORDS = [
    "a line that is not an object",
    "a required field missing",
    "a field of the wrong type",
    "a JSONL line cut, same length",
]


@pytest.mark.parametrize("corruption", FORGED_RECORDS)
def test_a_resealed_folder_with_a_bad_record_is_refused_at_open_naming_it(folder, corruption):
    """Its manifest vouches for it, but every record is checked when the folder opens
    (folder_structure.py): it is refused then, not when the record is first decoded."""
    CORRUPTIONS[corruption](folder)
    reseal(folder)
    with pytest.raises(DataError, match=r"items\.jsonl: line \d"):
        Catalog.load(folder)


def _builtin_folder(path: Path) -> Path:
    return write_catalog_folder(path, *_builtin())


def _builtin() -> tuple[CatalogMeta, list]:
    cat = Catalog.load(builtin_path())
    return cat.meta, list(cat.items)


def test_a_sealed_plan_refuses_a_folder_whose_content_differs(tmp_path):
    suite = load_suite("builtin")
    folder = _builtin_folder(tmp_path / "b.taurec-catalog")
    pinned = Catalog.load(folder).sha256()
    assert Catalog.load(folder).content_sha256() == suite.catalog.sha256()
    plan = tmp_path / "p.plan.json"
    write_plan(
        new_plan(
            label="p",
            suite_id=suite.id,
            suite_spec="builtin",
            suite_sha256=suite.sha256(),
            catalog_sha256=pinned,
            task_ids=("t001",),
            trials=1,
        ),
        plan,
    )
    key = load_log_key(tmp_path / "key", create=True)

    def seals(catalog: Catalog) -> object:
        return load_seals([plan], suite, catalog, tmp_path / "logs", key, server_version="t")

    seals(Catalog.load(folder))  # the content it was made for
    _edit_line(0, _bump_runtime)(folder)
    with pytest.raises(DataError, match=r"items\.jsonl .* has sha256"):
        Catalog.load(folder)  # the edit alone: refused at open
    reseal(folder)  # and with a manifest written to match: a new digest, not the pinned one
    with pytest.raises(DataError, match="the plan's catalog sha256"):
        seals(Catalog.load(folder))


def _suite_over(folder: Path, tmp_path: Path) -> Path:
    suite = tmp_path / "suite"
    (suite / "tasks").mkdir(parents=True)
    source = Path(__file__).parents[2] / "tasks" / "suites" / "builtin" / "tasks" / "t001.json"
    (suite / "tasks" / "t001.json").write_bytes(source.read_bytes())
    doc = {"format_version": 1, "id": "s", "catalog": str(folder), "description": "x"}
    (suite / "suite.json").write_bytes(orjson.dumps(doc))
    return suite


@pytest.mark.parametrize("command", ["serve", "run", "score"])
def test_every_command_refuses_a_damaged_folder_with_one_line_and_exit_2(tmp_path, command):
    folder = _builtin_folder(tmp_path / "b.taurec-catalog")
    _edit_line(0, _bump_runtime)(folder)
    suite = _suite_over(folder, tmp_path)
    args = {
        "serve": ["taurec", "serve", "--catalog", str(folder), "--port", str(free_port())],
        "run": ["taurec", "run", "--suite", str(suite), "--agent", "scripted", "--trials", "1"],
        "score": ["evaluator", "score", str(tmp_path), "--catalog", str(folder)],
    }[command]
    script = Path(sys.executable).parent / args[0]
    done = subprocess.run(
        [str(script), *args[1:]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "has sha256" in lines[0], done.stderr
