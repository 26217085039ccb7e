"""`taurec dialogues export|import` and `evaluator dialogues`: a run's dialogues out as
DialogueKit JSON and back, scoring exactly as `evaluator score` scores the logs."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from support.scoring import score_groups
from typer.testing import CliRunner

from taurec.clients.cli.main import app as taurec
from taurec.evaluator.cli.main import app as evaluator

runner = CliRunner()
KEYS = ("sr", "srrr", "srrr_usersimcrs", "rdl", "avg_turns", "utterances")


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("run") / "logs"
    for simulator in ("rule", "abus", "agenda-requests"):
        result = runner.invoke(
            taurec,
            ["run", "--simulator", simulator, "--trials", "1", "--label", simulator,
             "--out", str(out / simulator)],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
    return out


def _dialogue_means(*args: str) -> list[dict]:
    result = runner.invoke(evaluator, ["dialogues", *args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return [s["means"] for s in orjson.loads(result.stdout)]


@pytest.mark.parametrize("simulator", ["rule", "agenda-requests"])
def test_exported_dialogues_score_as_the_logs_do(logs: Path, tmp_path: Path, simulator: str):
    exported = tmp_path / "d.json"
    result = runner.invoke(
        taurec, ["dialogues", "export", str(logs / simulator), "--out", str(exported)]
    )
    assert result.exit_code == 0, result.output
    (group,) = score_groups(logs / simulator)
    (means,) = _dialogue_means(str(exported))
    assert {k: means[k] for k in KEYS} == {k: group["dialogue"][k] for k in KEYS}


def test_imported_dialogues_score_as_the_exported_file_does(logs: Path, tmp_path: Path):
    exported, imported = tmp_path / "d.json", tmp_path / "d.jsonl"
    runner.invoke(taurec, ["dialogues", "export", str(logs), "--out", str(exported)])
    result = runner.invoke(taurec, ["dialogues", "import", str(exported), "--out", str(imported)])
    assert result.exit_code == 0, result.output
    assert len(imported.read_text().splitlines()) == 180  # 60 tasks, three simulators
    assert _dialogue_means(str(imported)) == [{**m} for m in _dialogue_means(str(exported))]


def test_export_labels_acts_with_iard_labels(logs: Path, tmp_path: Path):
    exported = tmp_path / "d.json"
    runner.invoke(taurec, ["dialogues", "export", str(logs / "rule"), "--out", str(exported)])
    doc = orjson.loads(exported.read_bytes())
    labels = {a["intent"] for d in doc for u in d["conversation"] for a in u["dialogue_acts"]}
    assert {"IQU", "PRO", "REC-S", "ACC"} <= labels
    assert doc[0]["agent"] == {"id": "rule"} and doc[0]["user"] == {"id": "rule"}


def test_export_of_logs_without_dialogue_acts_is_one_line_and_exit_2(tmp_path: Path):
    (tmp_path / "empty").mkdir()
    result = runner.invoke(
        taurec, ["dialogues", "export", str(tmp_path / "empty"), "--out", str(tmp_path / "d.json")]
    )
    assert result.exit_code == 2
    assert not (tmp_path / "d.json").exists()


def test_import_of_a_file_that_is_not_dialoguekit_json_is_exit_2(tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    result = runner.invoke(
        taurec, ["dialogues", "import", str(bad), "--out", str(tmp_path / "x.jsonl")]
    )
    assert result.exit_code == 2 and "not valid JSON" in result.output
    assert not (tmp_path / "x.jsonl").exists()


def test_evaluator_dialogues_sends_logs_to_evaluator_score(logs: Path):
    log = next((logs / "rule").rglob("*.jsonl"))
    result = runner.invoke(evaluator, ["dialogues", str(log)])
    assert result.exit_code == 2 and "evaluator score" in result.output
