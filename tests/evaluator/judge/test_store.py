"""Judge files on disk: two runs sharing one file keep every answer either saved."""

from __future__ import annotations

from pathlib import Path

from taurec.evaluator.judge.prompt import JudgeScore
from taurec.evaluator.judge.store import JudgeFile, judge_path, load_judge_file

MODEL = "gpt-4o-mini"


def test_two_runs_writing_one_judge_file_keep_both_runs_answers(tmp_path: Path) -> None:
    path = judge_path(tmp_path, MODEL)
    first, second = load_judge_file(tmp_path, MODEL), load_judge_file(tmp_path, MODEL)
    first.calls["k1"] = {"score": 4.0}
    first.episodes["e1"] = {"fluency": JudgeScore(4.0, 0.0, [4.0], 0, MODEL)}
    first.write(path)
    second.calls["k2"] = {"score": 2.0}
    second.episodes["e2"] = {"fluency": JudgeScore(2.0, 0.0, [2.0], 0, MODEL)}
    second.write(path)
    on_disk = JudgeFile.read(path)
    assert set(on_disk.calls) == {"k1", "k2"}
    assert set(on_disk.episodes) == {"e1", "e2"}


def test_an_answer_this_run_holds_wins_over_the_one_on_disk(tmp_path: Path) -> None:
    path = judge_path(tmp_path, MODEL)
    JudgeFile(MODEL, calls={"k": {"score": 1.0}}).write(path)
    JudgeFile(MODEL, calls={"k": {"score": 5.0}}).write(path)
    assert JudgeFile.read(path).calls["k"] == {"score": 5.0}


def test_writing_leaves_only_the_judge_file_among_judge_files(tmp_path: Path) -> None:
    path = judge_path(tmp_path, MODEL)
    JudgeFile(MODEL, calls={"k": {"score": 1.0}}).write(path)
    assert sorted(p.name for p in path.parent.glob("*.judge.json")) == [path.name]
    assert not list(path.parent.glob("*.tmp"))
