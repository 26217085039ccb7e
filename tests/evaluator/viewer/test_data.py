"""The viewer's data: rows of the episodes on disk, kept current as logs appear."""

from __future__ import annotations

import math
import os

from taurec.evaluator.judge.prompt import JudgeScore
from taurec.evaluator.judge.store import JudgeFile, judge_path
from taurec.evaluator.logs import Resolver
from taurec.evaluator.viewer import data
from taurec.evaluator.viewer.data import LogSet


def _logset(logs) -> LogSet:
    return LogSet([logs.out], Resolver(suite=logs.spec))


def test_each_row_carries_a_key_to_its_episode(logs):
    logs.run({"ta": 1, "tb": 0}, trials=1)
    view = _logset(logs)
    assert view.refresh(force=True)
    keys = [r["key"] for r in view.rows]
    assert len(set(keys)) == 2
    detail = view.detail(keys[0])
    assert detail is not None and detail["row"]["key"] == keys[0]
    assert [e["role"] for e in detail["conversation"]] == ["user", "agent", "tool", "end"]


def test_an_unknown_key_has_no_detail(logs):
    logs.run({"ta": 1}, trials=1)
    view = _logset(logs)
    view.refresh(force=True)
    assert view.detail("0000000000000000") is None


def test_a_new_log_appears_on_the_next_refresh(logs):
    logs.run({"ta": 1}, trials=1)
    view = _logset(logs)
    view.refresh(force=True)
    revision = view.revision
    logs.episode("tb", 0, item="h1")
    assert view.refresh(force=True)
    assert view.revision == revision + 1
    assert sorted(r["task"] for r in view.rows) == ["ta", "tb"]


def test_nothing_new_leaves_the_revision_alone(logs):
    logs.run({"ta": 1}, trials=1)
    view = _logset(logs)
    view.refresh(force=True)
    revision = view.revision
    assert not view.refresh(force=True)
    assert view.revision == revision


def test_a_log_rewritten_in_place_is_scored_again(logs):
    path = logs.episode("ta", 0, item="h1")
    view = _logset(logs)
    view.refresh(force=True)
    assert view.rows[0]["passed"] is False
    logs.episode("ta", 0, item="c1")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    view.refresh(force=True)
    assert view.rows[0]["passed"] is True


def test_refreshes_closer_than_the_minimum_interval_do_not_rescan(logs):
    logs.run({"ta": 1}, trials=1)
    view = _logset(logs)
    view.refresh(force=True)
    logs.episode("tb", 0, item="h1")
    assert not view.refresh()  # asked again at once: the folders are not looked at
    assert len(view.rows) == 1


def test_judge_scores_of_an_episode_are_in_its_detail(logs):
    logs.run({"ta": 1}, trials=1)
    judged = JudgeFile(model="judge-m")
    judged.episodes["agentA-ta-0"] = {
        "fluency": JudgeScore(4.5, 0.5, [4.0, 5.0], 0, "judge-m"),
        "overall_sat": JudgeScore(math.nan, math.nan, [math.nan], 1, "judge-m"),
    }
    path = judge_path(logs.out, "judge-m")
    path.parent.mkdir(parents=True)
    path.write_bytes(judged.to_bytes())
    view = _logset(logs)
    view.refresh(force=True)
    (row,) = view.rows  # the judge file is not an episode
    detail = view.detail(row["key"])
    assert detail is not None and detail["judge"] == [
        {"aspect": "fluency", "mean": 4.5, "spread": 0.5, "failures": 0, "model": "judge-m"},
        {"aspect": "overall_sat", "mean": None, "spread": None, "failures": 1, "model": "judge-m"},
    ]


def test_a_damaged_judge_file_leaves_the_episodes_shown(logs):
    logs.run({"ta": 1}, trials=1)
    path = judge_path(logs.out, "judge-m")
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    view = _logset(logs)
    view.refresh(force=True)
    assert len(view.rows) == 1 and view.detail(view.rows[0]["key"])["judge"] is None


def test_an_episode_the_judge_has_not_scored_has_no_judge_section(logs):
    logs.run({"ta": 1}, trials=1)
    view = _logset(logs)
    view.refresh(force=True)
    detail = view.detail(view.rows[0]["key"])
    assert detail is not None and detail["judge"] is None


def _judge_file(logs, fluency: float) -> None:
    judged = JudgeFile(model="judge-m")
    judged.episodes["agentA-ta-0"] = {"fluency": JudgeScore(fluency, 0.0, [fluency], 0, "judge-m")}
    path = judge_path(logs.out, "judge-m")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(judged.to_bytes())
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))


def test_an_episode_judged_again_shows_its_new_judge_scores(logs):
    logs.run({"ta": 1}, trials=1)
    _judge_file(logs, 2.0)
    view = _logset(logs)
    view.refresh(force=True)
    revision = view.revision
    _judge_file(logs, 5.0)
    assert view.refresh(force=True)
    assert view.revision == revision + 1
    detail = view.detail(view.rows[0]["key"])
    assert detail is not None and detail["judge"][0]["mean"] == 5.0


def test_unchanged_judge_files_are_not_read_again(logs, monkeypatch):
    logs.run({"ta": 1}, trials=1)
    _judge_file(logs, 2.0)
    view = _logset(logs)
    view.refresh(force=True)
    reads = []
    monkeypatch.setattr(data, "load_judged", lambda paths: reads.append(paths) or {})
    view.refresh(force=True)
    assert reads == []
