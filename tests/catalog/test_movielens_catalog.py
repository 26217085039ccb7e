"""Real films from MovieLens-100K as a catalog (`taurec catalog build movielens:recbole`),
read at run time from the recbole wheel, and a suite a text-only CRS can win over it."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from taurec.catalog.builders.movielens_catalog import movielens_catalog
from taurec.catalog.errors import DataError
from taurec.catalog.store import Catalog
from taurec.clients.cli.main import app
from taurec.tasks.recommendation.crs_suite import generate_crs_tasks
from taurec.tasks.recommendation.validate import check_task

runner = CliRunner()


@pytest.fixture(scope="module")
def films() -> Catalog:
    pytest.importorskip("recbole", exc_type=ImportError)
    meta, items = movielens_catalog("movielens:recbole")
    return Catalog.from_items(items, meta)


def test_the_1682_films_keep_their_ids_titles_years_and_genres(films: Catalog) -> None:
    assert len(films) == 1682
    toy = films.get("ml1")
    assert toy is not None and toy.title == "Toy Story" and toy.release_date.year == 1995
    assert toy.genres == ["Animation", "Children's", "Comedy"]
    assert 0 < toy.rating <= 10 and toy.vote_count > 400


def test_fields_movielens_does_not_have_are_empty_not_made_up(films: Catalog) -> None:
    assert {(it.runtime, it.content_rating.value, it.director) for it in films} == {(0, "NR", None)}
    assert not any(it.streaming_services or it.cast for it in films)


def test_the_build_command_writes_it_as_a_catalog_file(tmp_path: Path) -> None:
    pytest.importorskip("recbole", exc_type=ImportError)
    out = tmp_path / "films.json"
    result = runner.invoke(app, ["catalog", "build", "movielens:recbole", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert len(Catalog.load(out)) == 1682


def test_a_crs_suite_over_the_films_validates_strictly(films: Catalog) -> None:
    tasks = generate_crs_tasks(films, 20, seed=3)
    assert len(tasks) == 20
    for task in tasks:
        report = check_task(task, films, strict=True)
        assert not report.errors and not report.warnings
        assert {c.field for c in task.constraints} <= {"genres", "release_date", "rating"}


def test_a_movielens_folder_that_is_not_one_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"neither u\.data"):
        movielens_catalog(f"movielens:{tmp_path}")
