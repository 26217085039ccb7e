"""Amazon Reviews 2023 end to end, on a seeded category in the published layout: the
metadata builds product items (the Amazon builder, and its CLI `generate-streams
--products`), the `amazon:` source with AgenticRec's window and a category filter gives
the interactions, `taurec tasks generate --kind ranking` the suite, and `taurec tasks
info` prints the figures of the paper's table, computed here independently."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import pytest
from support.amazon23 import Amazon23Files, read_lines, write_category
from typer.testing import CliRunner

from taurec.catalog.builders.amazon_products import load_products
from taurec.catalog.interaction_sources import load_interactions
from taurec.clients.cli.main import app
from taurec.tasks.suite import load_suite

cli = CliRunner()
OPTIONS = "window=agenticrec;category=CDs & Vinyl"
SINCE = int(datetime(2022, 10, 1, tzinfo=UTC).timestamp())
UNTIL = int(datetime(2023, 10, 1, tzinfo=UTC).timestamp())


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Amazon23Files:
    return write_category(tmp_path_factory.mktemp("amazon23"), users=400, seed=7, gz=True)


@pytest.fixture(scope="module")
def suite(files: Amazon23Files, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("suites") / "cds"
    args = ["tasks", "generate", "--kind", "ranking", "--interactions", files.source(OPTIONS)]
    result = cli.invoke(app, [*args, "--n", "20", "--seed", "0", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


@cache
def expected(reviews: Path, meta: Path) -> dict[str, Any]:
    """The paper's figures from the raw lines: the window, then items of the category."""
    in_category = {}
    for m in read_lines(meta):
        path = [c.casefold() for c in m["categories"]] or [m["main_category"].casefold()]
        in_category.setdefault(
            m["parent_asin"], "cds & vinyl" in {*path, m["main_category"].casefold()}
        )
    kept = [
        r
        for r in read_lines(reviews)
        if SINCE <= r["timestamp"] // 1000 < UNTIL and in_category.get(r["parent_asin"])
    ]
    users, items = {r["user_id"] for r in kept}, {r["parent_asin"] for r in kept}
    times = [r["timestamp"] // 1000 for r in kept]
    return {
        "users": len(users),
        "items": len(items),
        "interactions": len(kept),
        "sparsity": round(100 * (1 - len(kept) / (len(users) * len(items))), 2),
        "first": datetime.fromtimestamp(min(times), UTC).date().isoformat(),
        "last": datetime.fromtimestamp(max(times), UTC).date().isoformat(),
    }


def _info(*args: str) -> dict[str, Any]:
    result = cli.invoke(app, ["tasks", "info", *args, "--json"])
    assert result.exit_code == 0, result.output
    doc: dict[str, Any] = orjson.loads(result.stdout)
    return doc


def test_the_metadata_builds_product_items_with_whole_paths_and_prices(files: Amazon23Files):
    products = {p.id: p for p in load_products(files.meta).items}
    data = load_interactions(files.source(OPTIONS))
    for item in data.items:
        assert products[item.id].categories == item.categories
        assert len(item.categories) >= 2 and item.categories[0] == "CDs & Vinyl"
        price = products[item.id].price
        assert item.attributes.get("Price") == (None if price is None else f"${price:.2f}")


def test_the_product_builder_cli_writes_a_stream_suite(files: Amazon23Files, tmp_path: Path):
    out = tmp_path / "products"
    args = ["tasks", "generate-streams", "--out", str(out), "--products", str(files.meta)]
    more = ["--n", "1", "--episodes", "2", "--settings", "variable_persona", "--personas", "12"]
    result = cli.invoke(app, [*args, *more])
    assert result.exit_code == 0, result.output
    assert len(load_suite(str(out)).tasks) == 1


def test_the_window_and_category_filter_give_the_independently_counted_data(
    files: Amazon23Files,
):
    want = expected(files.reviews, files.meta)
    data = load_interactions(files.source(OPTIONS))
    assert (len(data.user_ids), len(data.items), len(data)) == (
        want["users"],
        want["items"],
        want["interactions"],
    )
    assert want["interactions"] < len(read_lines(files.reviews)) / 2  # the filters matter


def test_info_on_the_generated_suite_prints_the_papers_figures_as_json(
    files: Amazon23Files, suite: Path
):
    info = _info(str(suite))
    want = expected(files.reviews, files.meta)
    assert {k: info[k] for k in want} == want
    assert info["tasks"] == len(load_suite(str(suite)).tasks) > 0
    assert info["source"] == files.source(OPTIONS)
    assert SINCE <= _seconds(info["targets"]["first"]) <= _seconds(info["targets"]["last"])


def test_info_prints_the_same_figures_as_text(files: Amazon23Files, suite: Path):
    result = cli.invoke(app, ["tasks", "info", str(suite)])
    assert result.exit_code == 0, result.output
    want = expected(files.reviews, files.meta)
    lines = {line.split()[0]: line.split(maxsplit=1)[1] for line in result.stdout.splitlines()[1:]}
    assert lines["users"] == f"{want['users']:,}" and lines["items"] == f"{want['items']:,}"
    assert lines["interactions"] == f"{want['interactions']:,}"
    assert lines["sparsity"] == f"{want['sparsity']:.2f}%"
    assert "time span" in result.stdout and f"{want['first']} .. {want['last']}" in lines["time"]


def test_info_prints_a_split_the_suite_records(suite: Path, tmp_path: Path):
    manifest = orjson.loads((suite / "suite.json").read_bytes())
    manifest["data"].update(split="global", part="test")
    copy = tmp_path / "cds"
    (copy / "tasks").mkdir(parents=True)
    for task in (suite / "tasks").iterdir():
        (copy / "tasks" / task.name).write_bytes(task.read_bytes())
    (copy / "suite.json").write_bytes(orjson.dumps(manifest))
    info = _info(str(copy))
    assert (info["split"], info["part"]) == ("global", "test")
    text = cli.invoke(app, ["tasks", "info", str(copy)]).stdout
    assert "(split global, part test)" in text


def test_info_on_a_raw_source_prints_the_same_figures(files: Amazon23Files):
    info = _info("--interactions", files.source(OPTIONS))
    want = expected(files.reviews, files.meta)
    assert {k: info[k] for k in want} == want and "tasks" not in info


def test_info_on_a_bad_source_is_one_line_and_exit_2(files: Amazon23Files):
    result = cli.invoke(app, ["tasks", "info", "--interactions", files.source("window=1999")])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "expected window=agenticrec" in result.stderr


def test_info_wants_a_suite_or_a_source_not_both(suite: Path):
    result = cli.invoke(app, ["tasks", "info", str(suite), "--interactions", "synthetic"])
    assert result.exit_code == 2 and "expected a suite or --interactions" in result.stderr


def _seconds(day: str) -> int:
    return int(datetime.fromisoformat(day).replace(tzinfo=UTC).timestamp())
