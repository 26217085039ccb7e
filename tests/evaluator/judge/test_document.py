"""A judge file's contents are checked member by member: each malformed variant is left
out with one line naming the file and the member, never a traceback, never a score out of
the rubric's range."""

from __future__ import annotations

import pytest
from support.judge_files import bad_judge_files

from taurec.evaluator.judge.store import judge_path, load_judgements, read_judgements

BAD = bad_judge_files()


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_bad_judge_file_is_one_line_and_left_out(tmp_path, name):
    path = judge_path(tmp_path, name)
    path.parent.mkdir(parents=True)
    path.write_bytes(BAD[name])
    found = read_judgements(tmp_path)
    assert found.scores == {}
    (line,) = found.skipped
    assert line.startswith(f"{path}: ") and "\n" not in line and len(line) < 400
    assert load_judgements(tmp_path) == {}


def test_a_bad_file_does_not_hide_a_good_one(tmp_path):
    from support.judge_files import EPISODE, judge_doc, signed

    judge_path(tmp_path, "a").parent.mkdir(parents=True)
    judge_path(tmp_path, "a").write_bytes(BAD["out-of-range"])
    judge_path(tmp_path, "b").write_bytes(signed(judge_doc({"mean": 3.0, "samples": [3.0]})))
    found = read_judgements(tmp_path)
    assert found.scores[EPISODE]["fluency"].mean == 3.0 and len(found.skipped) == 1


def test_a_judge_file_larger_than_the_cap_is_not_read(tmp_path, monkeypatch):
    from taurec.evaluator.judge import store

    monkeypatch.setattr(store, "MAX_JUDGE_BYTES", 10)
    path = judge_path(tmp_path, "m")
    path.parent.mkdir(parents=True)
    path.write_bytes(BAD["forged-unsigned"])
    (line,) = read_judgements(tmp_path).skipped
    assert "larger than" in line
