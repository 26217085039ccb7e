import orjson
import pytest
from support.third_party import TAU_REC
from typer.testing import CliRunner

from taurec.catalog.store import Catalog
from taurec.clients.catalog_cli import app

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
