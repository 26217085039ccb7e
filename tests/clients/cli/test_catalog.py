import orjson
import pytest
from support.third_party import TAU_REC
from typer.testing import CliRunner

from taurec.catalog.store import Catalog
from taurec.clients.cli.catalog import app

runner = CliRunner()


def test_info_json_summarises_the_builtin_catalog():
    result = runner.invoke(app, ["info", "builtin", "--json"])
    assert result.exit_code == 0, result.output
    summary = orjson.loads(result.stdout)
    assert summary["items"] == len(Catalog.load("builtin"))
    assert summary["name"] == "builtin" and summary["source"] == "synthetic"
    assert sum(summary["content_ratings"].values()) == summary["items"]


def test_info_on_a_missing_file_is_one_clear_error(tmp_path):
    result = runner.invoke(app, ["info", str(tmp_path / "none.json")])
    assert result.exit_code == 2
    assert "no such file" in result.stderr and "Traceback" not in result.stderr


def test_import_tau_rec_writes_a_loadable_catalog(tmp_path):
    if not (TAU_REC / "catalog.json").is_file():
        pytest.skip("the tau-Rec release is not at ../shared/third_party/tau-rec-v1.0")
    out = tmp_path / "taurec.json"
    result = runner.invoke(app, ["import-tau-rec", str(TAU_REC), "--out", str(out)])
    assert result.exit_code == 0, result.output
    cat = Catalog.load(out)
    assert len(cat) == 153
    assert cat.meta.source == "tau-rec"


def test_generate_writes_a_catalog_folder_with_the_json_catalogs_content(tmp_path):
    folder, json_file = tmp_path / "c.taurec-catalog", tmp_path / "c.json"
    for out in (folder, json_file):
        result = runner.invoke(app, ["generate", "--n", "400", "--seed", "2", "--out", str(out)])
        assert result.exit_code == 0, result.output
    opened, parsed = Catalog.load(folder), Catalog.load(json_file)
    assert opened.content_sha256() == parsed.sha256()
    assert opened.meta == parsed.meta and len(opened) == 400


def test_build_converts_jsonl_to_a_folder_and_back(tmp_path):
    jsonl = tmp_path / "c.jsonl"
    runner.invoke(app, ["generate", "--n", "300", "--out", str(jsonl)])
    folder = tmp_path / "c.taurec-catalog"
    result = runner.invoke(app, ["build", str(jsonl), "--out", str(folder)])
    assert result.exit_code == 0, result.output
    back = tmp_path / "back.jsonl"
    result = runner.invoke(app, ["build", str(folder), "--out", str(back)])
    assert result.exit_code == 0, result.output
    assert back.read_bytes() == jsonl.read_bytes()


def test_info_reads_a_folder_like_the_file_it_was_built_from(tmp_path):
    folder = tmp_path / "b.taurec-catalog"
    assert runner.invoke(app, ["build", "builtin", "--out", str(folder)]).exit_code == 0
    from_folder = runner.invoke(app, ["info", str(folder), "--json"])
    from_file = runner.invoke(app, ["info", "builtin", "--json"])
    assert from_folder.exit_code == 0, from_folder.output
    assert orjson.loads(from_folder.stdout) == orjson.loads(from_file.stdout)


def test_build_from_a_catalog_with_a_bad_record_is_one_clear_error(tmp_path):
    jsonl = tmp_path / "bad.jsonl"
    jsonl.write_text('{"meta": {"name": "bad"}}\n{"id": "a", "title": "A"}\n')
    out = tmp_path / "bad.taurec-catalog"
    result = runner.invoke(app, ["build", str(jsonl), "--out", str(out)])
    assert result.exit_code == 2
    assert "item 'a'" in result.stderr and "Traceback" not in result.stderr
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == ["bad.jsonl"]


def test_build_from_a_missing_file_is_one_clear_error(tmp_path):
    result = runner.invoke(app, ["build", str(tmp_path / "none.jsonl"), "--out", "x.json"])
    assert result.exit_code == 2
    assert "no such file" in result.stderr
