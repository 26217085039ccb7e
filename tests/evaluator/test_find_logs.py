import os

import pytest

from taurec.evaluator.logs import find_logs


def test_finds_regular_jsonl_files_recursively_sorted_and_once(tmp_path):
    for rel in ["b/t2/trial0.jsonl", "a/t1/trial1.jsonl", "a/t1/trial0.jsonl", "a-b/x.jsonl"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(b"{}\n")
    (tmp_path / "a" / "notes.txt").write_text("not a log")
    (tmp_path / "a" / "t1" / "trial2.jsonl.incomplete").write_text("set aside by --resume")
    (tmp_path / "dir.jsonl").mkdir()  # a folder with a log's name is not a log
    os.mkfifo(tmp_path / "a" / "pipe.jsonl")  # nor is a pipe (reading it would hang)
    single = tmp_path / "a" / "t1" / "trial0.jsonl"
    found = find_logs([tmp_path, single])
    rel = [str(p.relative_to(tmp_path)) for p in found]
    # sorted by path components, so "a/..." comes before "a-b/..."
    assert rel == ["a/t1/trial0.jsonl", "a/t1/trial1.jsonl", "a-b/x.jsonl", "b/t2/trial0.jsonl"]


def test_a_missing_path_is_an_error_naming_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope: no such file or directory"):
        find_logs([tmp_path / "nope"])


def test_the_judge_folder_is_not_searched_for_logs(tmp_path):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "a.jsonl").write_text("{}\n")
    (tmp_path / "judge").mkdir()
    (tmp_path / "judge" / "stray.jsonl").write_text("{}\n")
    assert find_logs([tmp_path]) == [tmp_path / "run" / "a.jsonl"]
