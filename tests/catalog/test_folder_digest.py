"""The digest a catalog folder is pinned by (`Catalog.sha256`: plans, log headers,
`evaluator score`'s drift check) covers every file the server reads, the indexes
included: an index edited together with a manifest written again to match opens, but as
a catalog of its own, which a sealed plan refuses and `evaluator score` flags."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import orjson
import pytest

from taurec.catalog.errors import DataError
from taurec.catalog.folder import write_catalog_folder
from taurec.catalog.io import CatalogMeta
from taurec.catalog.manifest import MANIFEST, read_manifest, write_manifest
from taurec.catalog.store import Catalog, builtin_path
from taurec.evaluator.logs import Resolver, score_paths
from taurec.server.seal import load_seals
from taurec.tasks.runs.plan import new_plan, write_plan
from taurec.tasks.suite import load_suite
from taurec.tasks.trajectory.signing import load_log_key

Forgery = Callable[[Path], None]


def reseal(path: Path) -> None:
    """What a forger does after editing files: write the manifest again to match them."""
    old = read_manifest(path)
    write_manifest(path, old.items, old.meta, old.files)


def _array(name: str, edit: Callable[[np.ndarray], np.ndarray]) -> Forgery:
    def forge(path: Path) -> None:
        np.save(path / name, edit(np.load(path / name)))

    return forge


def _json(name: str, edit: Callable[[dict], None]) -> Forgery:
    def forge(path: Path) -> None:
        doc = orjson.loads((path / name).read_bytes())
        edit(doc)
        (path / name).write_bytes(orjson.dumps(doc))

    return forge


def _rename_first_genre(doc: dict) -> None:
    doc["genres"]["labels"][0] = "Documentary"


def _forge_meta(path: Path) -> None:
    old = read_manifest(path)
    write_manifest(path, old.items, old.meta.model_copy(update={"name": "other"}), old.files)


#: edits that leave a folder well formed (it opens once resealed) but answering otherwise
FORGERIES: dict[str, Forgery] = {
    "a sort order reversed": _array("orders/rating.desc.npy", lambda a: a[::-1].copy()),
    "a filter column edited": _array("columns/rating.npy", lambda a: a * 0 + 9.9),
    "the BM25 weights scaled": _array("search/data.csc.index.npy", lambda a: a * 2),
    "the exact-title hashes shifted": _array("search/title_hash.npy", lambda a: a + 1),
    "a membership's spelling edited": _json("columns/members.json", _rename_first_genre),
    "the title index reordered": _array("titles/exact.rows.npy", lambda a: a[::-1].copy()),
    "the meta edited": _forge_meta,
}


@pytest.fixture
def folder(tmp_path: Path, make_item) -> Path:
    items = [make_item(i, genres=["Drama", "Comedy"], cast=["Ann Lee"]) for i in "abc"]
    return write_catalog_folder(tmp_path / "c.taurec-catalog", CatalogMeta(), items)


@pytest.mark.parametrize("forgery", list(FORGERIES))
def test_an_index_forged_with_its_manifest_opens_under_a_digest_of_its_own(folder, forgery):
    before = Catalog.load(folder)
    FORGERIES[forgery](folder)
    reseal(folder)
    after = Catalog.load(folder)  # the manifest vouches for every file again
    assert after.content_sha256() == before.content_sha256()  # the items are untouched
    assert after.sha256() != before.sha256()


def test_the_pinned_digest_is_the_same_for_a_folder_written_again_from_its_source(
    tmp_path, make_item
):
    items = [make_item(i, genres=["Drama"]) for i in "abcd"]
    one, again, reordered = (
        Catalog.load(write_catalog_folder(tmp_path / f"{name}.taurec-catalog", CatalogMeta(), xs))
        for name, xs in (("one", items), ("again", items), ("reordered", items[::-1]))
    )
    assert one.sha256() == again.sha256() != one.content_sha256()
    assert reordered.content_sha256() == one.content_sha256()  # the same items
    assert reordered.sha256() != one.sha256()  # in another file order, so other index files


def _builtin_suite_over(folder: Path, tmp_path: Path) -> Path:
    """The built-in suite's first tasks, over `folder` (the built-in catalog written as one)."""
    cat = Catalog.load(builtin_path())
    write_catalog_folder(folder, cat.meta, cat.items)
    suite = tmp_path / "suite"
    (suite / "tasks").mkdir(parents=True)
    tasks = Path(__file__).parents[2] / "tasks" / "suites" / "builtin" / "tasks"
    for name in ("t001.json", "t002.json"):
        (suite / "tasks" / name).write_bytes((tasks / name).read_bytes())
    doc = {"format_version": 1, "id": "s", "catalog": str(folder), "description": "x"}
    (suite / "suite.json").write_bytes(orjson.dumps(doc))
    return suite


def _plan(tmp_path: Path, suite_dir: Path, catalog_sha256: str) -> Path:
    suite = load_suite(str(suite_dir))
    plan = tmp_path / "p.plan.json"
    write_plan(
        new_plan(
            label="p",
            suite_id=suite.id,
            suite_spec=str(suite_dir),
            suite_sha256=suite.sha256(),
            catalog_sha256=catalog_sha256,
            task_ids=("t001",),
            trials=1,
        ),
        plan,
    )
    return plan


def _seals(tmp_path: Path, plan: Path, suite_dir: Path) -> object:
    suite = load_suite(str(suite_dir))
    key = load_log_key(tmp_path / "key", create=True)
    return load_seals([plan], suite, suite.catalog, tmp_path / "logs", key, server_version="t")


def test_a_sealed_plan_refuses_a_folder_whose_index_was_forged_with_its_manifest(tmp_path):
    folder = tmp_path / "b.taurec-catalog"
    suite_dir = _builtin_suite_over(folder, tmp_path)
    plan = _plan(tmp_path, suite_dir, Catalog.load(folder).sha256())
    _seals(tmp_path, plan, suite_dir)  # the folder it was made for
    FORGERIES["a sort order reversed"](folder)
    reseal(folder)
    Catalog.load(folder)  # it opens: every file matches the manifest written again
    with pytest.raises(DataError, match=r"the plan's catalog sha256 .* differs from the served"):
        _seals(tmp_path, plan, suite_dir)


def test_a_plan_pinning_only_the_items_digest_is_refused_with_the_command_to_remake_it(
    tmp_path,
):
    folder = tmp_path / "b.taurec-catalog"
    suite_dir = _builtin_suite_over(folder, tmp_path)
    plan = _plan(tmp_path, suite_dir, Catalog.load(folder).content_sha256())
    with pytest.raises(DataError, match="pins the served items' digest") as caught:
        _seals(tmp_path, plan, suite_dir)
    assert "make the plan again: taurec plan new --suite" in str(caught.value)
    assert "\n" not in str(caught.value)


def _cli(name: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).parent / name
    return subprocess.run(
        [str(script), *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def test_evaluator_score_flags_drift_once_an_index_is_forged_with_its_manifest(tmp_path):
    folder = tmp_path / "b.taurec-catalog"
    suite = str(_builtin_suite_over(folder, tmp_path))
    logs = str(tmp_path / "logs")
    ran = _cli("taurec", "run", "--suite", suite, "--agent", "scripted", "--trials", "1",
               "--tasks", "t001", "--out", logs, cwd=tmp_path)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    clean = _cli("evaluator", "score", logs, "--suite", suite, cwd=tmp_path)
    assert clean.returncode == 0 and "drift" not in clean.stdout + clean.stderr, clean.stdout
    FORGERIES["the BM25 weights scaled"](folder)
    reseal(folder)
    forged = _cli("evaluator", "score", logs, "--suite", suite, cwd=tmp_path)
    # the run's plan pinned the suite, whose digest covers the folder's: a failure, exit 1
    assert forged.returncode == 1
    assert "t001 trial 0 counts as failed: suite changed" in forged.stdout + forged.stderr
    (episode,) = score_paths([logs], Resolver(suite=suite))  # the episode's own check
    assert any(p.endswith("catalog sha256 differs from the one the episode ran against (drift)")
               for p in episode.problems), episode.problems  # fmt: skip


def test_a_manifest_rewritten_without_an_edit_keeps_the_digest(folder):
    before = Catalog.load(folder).sha256()
    doc = orjson.loads((folder / MANIFEST).read_bytes())
    (folder / MANIFEST).write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
    assert Catalog.load(folder).sha256() == before
