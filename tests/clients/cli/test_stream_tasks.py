"""`taurec tasks generate-streams`: movie and product stream suites, and clear errors."""

from __future__ import annotations

from pathlib import Path

import orjson
from typer.testing import CliRunner

from taurec.clients.cli.main import app
from taurec.tasks.suite import load_suite

cli = CliRunner()


def test_a_movie_stream_suite_is_written_and_loads(tmp_path: Path) -> None:
    out = tmp_path / "streams"
    result = cli.invoke(
        app,
        [
            "tasks",
            "generate-streams",
            "--out",
            str(out),
            "--n",
            "1",
            "--episodes",
            "3",
            "--feedback",
            "stars",
        ],
    )
    assert result.exit_code == 0, result.output
    suite = load_suite(str(out))
    assert suite.kind == "stream" and len(suite.tasks) == 3
    assert {t.feedback.value for t in suite.tasks} == {"stars"}


def test_a_product_stream_suite_comes_from_amazon_metadata(tmp_path: Path) -> None:
    meta = tmp_path / "meta.jsonl"
    lines = []
    for k in range(40):
        leaf = ["Racks", "Lamps"][k % 2]
        lines.append(
            orjson.dumps(
                {
                    "parent_asin": f"B{k:09d}",
                    "title": f"{leaf[:-1]} model {k}",
                    "average_rating": 3 + k % 3,
                    "rating_number": 10 + k,
                    "price": 5.0 + k,
                    "store": f"Brand{k % 4}",
                    "categories": ["Home", "Office", leaf],
                    "features": ["sturdy" if k % 3 else "compact"],
                }
            )
        )
    meta.write_bytes(b"\n".join(lines))
    out = tmp_path / "products"
    result = cli.invoke(
        app,
        [
            "tasks",
            "generate-streams",
            "--out",
            str(out),
            "--products",
            str(meta),
            "--n",
            "1",
            "--episodes",
            "2",
            "--settings",
            "variable_persona",
            "--personas",
            "12",
        ],
    )
    assert result.exit_code == 0, result.output
    (task,) = load_suite(str(out)).tasks
    assert all(i.price is not None for i in task.items)
    assert task.episodes[0].category_name in {"Racks", "Lamps"}


def test_an_unknown_feedback_kind_is_a_clear_error(tmp_path: Path) -> None:
    result = cli.invoke(
        app, ["tasks", "generate-streams", "--out", str(tmp_path / "x"), "--feedback", "emoji"]
    )
    assert result.exit_code != 0
    text = " ".join(result.output.replace("│", " ").split())
    assert "'emoji'; expected one or more of none, persona, regret, stars" in text
