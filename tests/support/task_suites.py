"""Small hand-built catalogs, tasks and suite folders, as fixtures for every test (the
root conftest registers this module): the tasks tests and the `taurec tasks` command's."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from taurec.catalog.io import CatalogMeta, write_catalog_file
from taurec.catalog.item import Item
from taurec.catalog.store import Catalog
from taurec.tasks.recommendation.task import RecommendationTask

ITEM_DEFAULTS: dict[str, Any] = {
    "release_date": "2010-06-01",
    "runtime": 100,
    "genres": ["Drama"],
    "rating": 7.0,
    "vote_count": 100,
    "streaming_services": ["Netflix"],
    "content_rating": "PG-13",
}


def item(item_id: str, **fields: Any) -> Item:
    return Item.model_validate({"id": item_id, "title": item_id.title(), **ITEM_DEFAULTS, **fields})


#: Five items that exercise every policy: services, ratings, sponsorship, missing director.
SMALL_ITEMS = (
    item("a", genres=["Drama"], rating=8.0, director="Ann Lee", cast=["Xavi Actor"]),
    item("b", genres=["Drama"], streaming_services=["Hulu"], content_rating="R", runtime=120),
    item("c", genres=["Comedy"], rating=6.0, runtime=90, content_rating="PG", sponsored=True),
    item("d", genres=["Comedy", "Drama"], streaming_services=[], content_rating="NR", rating=5.0),
    item("e", genres=["Horror"], streaming_services=["Hulu"], content_rating="NC-17", rating=4.0),
)


def task_doc(**fields: Any) -> dict[str, Any]:
    """A valid task document in our format; keyword arguments replace fields."""
    doc: dict[str, Any] = {
        "id": "t1",
        "persona": "You are testing.",
        "constraints": [{"field": "genres", "op": "contains", "value": "Drama"}],
        "policy_flags": ["recommend_tool"],
        "user": {"services": ["Netflix", "Hulu"]},
    }
    doc.update(fields)
    return doc


def _make_task(**fields: Any) -> RecommendationTask:
    return RecommendationTask.model_validate(task_doc(**fields))


@pytest.fixture
def small_catalog() -> Catalog:
    return Catalog.from_items(SMALL_ITEMS, CatalogMeta(name="small"))


WriteSuite = Callable[..., Path]


@pytest.fixture
def write_suite(tmp_path: Path) -> WriteSuite:
    """Write a suite folder: `tasks` maps file stems to documents (or raw bytes)."""

    def write(
        tasks: dict[str, Any],
        *,
        manifest: dict[str, Any] | None = None,
        items: tuple[Item, ...] = SMALL_ITEMS,
        name: str = "suite",
    ) -> Path:
        folder = tmp_path / name
        (folder / "tasks").mkdir(parents=True)
        write_catalog_file(folder / "catalog.json", CatalogMeta(name="small"), items)
        doc = {"format_version": 1, "id": name, "catalog": "catalog.json", "description": "test"}
        (folder / "suite.json").write_bytes(orjson.dumps({**doc, **(manifest or {})}))
        for stem, body in tasks.items():
            raw = body if isinstance(body, bytes) else orjson.dumps(body)
            (folder / "tasks" / f"{stem}.json").write_bytes(raw)
        return folder

    return write


@pytest.fixture
def make_item() -> Callable[..., Item]:
    return item


@pytest.fixture
def make_task_doc() -> Callable[..., dict[str, Any]]:
    return task_doc


@pytest.fixture
def make_task() -> Callable[..., RecommendationTask]:
    return _make_task
