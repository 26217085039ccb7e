"""The shipped suites are named in the error on a suite that is none, and a generated
suite that repeats one of them is recognised."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from taurec.catalog.errors import DataError
from taurec.tasks.shipped import BUILTIN_SUITES, shipped_twins
from taurec.tasks.suite import SUITE_FILE, load_suite, packaged_suites_dir


def test_the_list_is_the_suites_the_package_ships() -> None:
    folders = sorted(p.parent.name for p in packaged_suites_dir().glob(f"*/{SUITE_FILE}"))
    assert sorted(spec.split(":")[0] for spec in BUILTIN_SUITES) == folders
    for spec in BUILTIN_SUITES:
        assert load_suite(spec).tasks


@pytest.mark.parametrize("spec", ["no-such-suite", "ppr:builtin", "recommendation:builtin"])
def test_a_suite_that_is_none_is_told_with_every_shipped_one(spec: str) -> None:
    with pytest.raises(DataError) as info:
        load_suite(spec)
    message = str(info.value)
    assert f"{spec}: no such suite" in message
    assert "builtin, ranking:builtin, stream:builtin" in message


def _copy_tasks(source: str, out: Path, n: int, *, new_ids: bool) -> None:
    (out / "tasks").mkdir(parents=True)
    for i, path in enumerate(sorted((packaged_suites_dir() / source / "tasks").glob("*.json"))):
        if i == n:
            break
        doc = orjson.loads(path.read_bytes())
        if new_ids:
            doc["id"] = f"mine_{i}"
        (out / "tasks" / f"{doc['id']}.json").write_bytes(orjson.dumps(doc))


def test_a_suite_holding_shipped_tasks_under_other_ids_is_their_twin(tmp_path: Path) -> None:
    _copy_tasks("ranking", tmp_path, 3, new_ids=True)
    shutil.copy(packaged_suites_dir() / "builtin" / "tasks" / "t001.json", tmp_path / "tasks")
    assert shipped_twins(tmp_path) == ("ranking:builtin", 3, 4)


def test_a_suite_of_its_own_has_no_twin(tmp_path: Path) -> None:
    _copy_tasks("ranking", tmp_path, 2, new_ids=True)
    for path in (tmp_path / "tasks").glob("*.json"):
        doc = orjson.loads(path.read_bytes())
        doc["candidates"] = list(reversed(doc["candidates"]))
        path.write_bytes(orjson.dumps(doc))
    assert shipped_twins(tmp_path) is None
