"""`evaluator report` trusts only judge files `evaluator judge` signed: a forged, altered,
foreign-key or malformed judge file is left out with one warning line naming it, and the
report is still written (issue 25, item 10)."""

from __future__ import annotations

from pathlib import Path

import orjson
from support.judge_files import EPISODE, bad_judge_files, judge_doc
from typer.testing import CliRunner

from taurec.evaluator.cli.main import app
from taurec.evaluator.judge.prompt import JudgeScore
from taurec.evaluator.judge.store import JudgeFile, judge_path
from taurec.evaluator.report.data import load_judgements

runner = CliRunner()


def _report(logdir: Path, spec: str, out: Path):
    return runner.invoke(app, ["report", str(logdir), "-o", str(out), "--suite", spec])


def test_every_bad_judge_file_is_one_warning_and_the_signed_one_is_reported(logs, tmp_path):
    logs.run({"ta": 1, "tb": 1, "tc": 1}, trials=1)
    honest = JudgeFile(model="honest")
    honest.episodes[EPISODE] = {"fluency": JudgeScore(2.0, 0.0, [2.0], 0, "honest")}
    honest.write(judge_path(logs.out, "honest"))
    planted = {}
    for name, raw in bad_judge_files().items():
        planted[name] = logs.out / "judge" / f"{name}.judge.json"
        planted[name].write_bytes(raw)
    out = tmp_path / "report.html"
    result = _report(logs.out, logs.spec, out)
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == len(planted), result.stderr
    for name, path in planted.items():
        assert sum(f"{path}:" in line for line in warnings) == 1, name
    assert 'id="judge"' in out.read_text(encoding="utf-8")
    # what the report drew its judge section from: the honest 2.0, no forged 5.0
    judged = load_judgements([logs.out])
    assert judged[EPISODE]["fluency"].mean == 2.0


def test_a_forged_judge_file_alone_gives_no_judge_section(logs, tmp_path):
    logs.run({"ta": 1, "tb": 1, "tc": 1}, trials=1)
    (logs.out / "judge").mkdir()
    (logs.out / "judge" / "m.judge.json").write_bytes(orjson.dumps(judge_doc()))
    out = tmp_path / "report.html"
    result = _report(logs.out, logs.spec, out)
    assert result.exit_code == 0, result.output
    assert "unsigned" in result.stderr and "m.judge.json" in result.stderr
    assert 'id="judge"' not in out.read_text(encoding="utf-8")
