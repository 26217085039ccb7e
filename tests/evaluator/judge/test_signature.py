"""Judge files are signed with the log key: what `evaluator judge` writes reads back, and
a file that is unsigned, edited or signed with another key is left out, named."""

from __future__ import annotations

import orjson
import pytest
from support.judge_files import EPISODE, OTHER_KEY, judge_doc, signed

from taurec.evaluator.judge.prompt import JudgeScore
from taurec.evaluator.judge.signature import DOMAIN, body_digest
from taurec.evaluator.judge.store import (
    JudgeFile,
    JudgeFileError,
    judge_path,
    read_judgements,
)
from taurec.tasks.trajectory.signing import KEY_ENV, KEY_FILE_ENV, load_log_key

MODEL = "judge-m"


def _write(tmp_path, raw: bytes):
    path = judge_path(tmp_path, MODEL)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)
    return path


def test_a_written_judge_file_is_signed_and_reads_back(tmp_path):
    path = judge_path(tmp_path, MODEL)
    judged = JudgeFile(MODEL, calls={"k": {"score": 4.0}})
    judged.episodes[EPISODE] = {"fluency": JudgeScore(4.0, 0.0, [4.0], 0, MODEL)}
    judged.write(path)
    doc = orjson.loads(path.read_bytes())
    assert doc["signature"]["key_id"] == load_log_key().key_id
    found = read_judgements(tmp_path)
    assert found.skipped == [] and found.scores[EPISODE]["fluency"].mean == 4.0


def test_an_unsigned_judge_file_is_left_out_and_named(tmp_path):
    path = _write(tmp_path, orjson.dumps(judge_doc()))
    found = read_judgements(tmp_path)
    assert found.scores == {}
    (line,) = found.skipped
    assert line.startswith(f"{path}: unsigned") and "\n" not in line


def test_an_edited_score_breaks_the_signature(tmp_path):
    doc = orjson.loads(signed(judge_doc({"mean": 2.0, "samples": [2.0]})))
    doc["episodes"][EPISODE]["fluency"]["mean"] = 5.0
    _write(tmp_path, orjson.dumps(doc))
    found = read_judgements(tmp_path)
    assert found.scores == {} and "does not match" in found.skipped[0]


def test_a_file_signed_with_another_key_is_left_out(tmp_path):
    _write(tmp_path, signed(judge_doc(), OTHER_KEY))
    found = read_judgements(tmp_path)
    assert found.scores == {} and "another key" in found.skipped[0]


def test_an_episode_log_signature_does_not_pass_for_a_judge_files():
    key = load_log_key(create=True)
    doc = judge_doc()
    log_mac = key.mac(body_digest(doc))  # the trajectory domain
    assert not key.verify(body_digest(doc), log_mac, DOMAIN)


def test_without_a_key_every_judge_file_is_left_out_with_the_reason(tmp_path, monkeypatch):
    path = _write(tmp_path, signed(judge_doc()))
    monkeypatch.delenv(KEY_ENV, raising=False)
    monkeypatch.setenv(KEY_FILE_ENV, str(tmp_path / "no.key"))
    found = read_judgements(tmp_path)
    assert found.scores == {}
    (line,) = found.skipped
    assert line.startswith(f"{path}: its signature cannot be checked")


def test_reading_a_tampered_file_directly_raises_one_line(tmp_path):
    path = _write(tmp_path, orjson.dumps(judge_doc()))
    with pytest.raises(JudgeFileError, match="unsigned"):
        JudgeFile.read(path)
