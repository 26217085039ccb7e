"""One episode as the viewer shows it: verdicts pointing at the messages they concern."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date
from types import SimpleNamespace

from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.episodes.view import display_value, episode_view, judge_view
from taurec.evaluator.judge.prompt import JudgeScore
from taurec.evaluator.logs import Resolver, score_paths
from taurec.evaluator.ranking.scoring import ranking_view
from taurec.evaluator.stream.scoring import stream_view
from taurec.tasks.trajectory.reader import read_log


def test_dates_are_shown_in_iso_form_and_lists_joined():
    assert display_value(date(2016, 2, 11)) == "2016-02-11"
    assert display_value(["Comedy", "Drama"]) == "Comedy, Drama"
    assert display_value(None) == "(none)"


def test_a_failed_constraint_points_at_the_recommend_call(logs):
    path = logs.episode("tb", 0, item="h1")
    (score,) = score_paths([path], Resolver(suite=logs.spec))
    log = read_log(path)
    view = episode_view(score, None, log.events)
    (constraint,) = view["verdicts"]["constraints"]
    assert constraint["holds"] is False and constraint["actual"] == "Horror"
    call = next(e for e in view["conversation"] if e["role"] == "tool" and e["name"] == "recommend")
    assert constraint["seq"] == call["seq"]


def test_each_policy_verdict_keeps_the_seq_of_its_evidence(logs):
    path = logs.episode("ta", 0, item="c1")
    (score,) = score_paths([path], Resolver(suite=logs.spec))
    view = episode_view(score, None, read_log(path).events)
    seqs = {e["seq"] for e in view["conversation"]} | {
        e["result"]["seq"] for e in view["conversation"] if e.get("result")
    }
    policies = view["verdicts"]["policies"]
    assert policies and all(p["seq"] is None or p["seq"] in seqs for p in policies)
    assert any(p["seq"] is not None for p in policies)


def test_a_ranking_shows_the_list_with_the_positive_marked():
    task = SimpleNamespace(kind="ranking", positive="b", pass_k=1)
    events = [
        {
            "type": "tool_call",
            "seq": 2,
            "call_id": "s",
            "name": "submit_ranking",
            "arguments": {"ranking": ["a", "b", "c"]},
        }
    ]
    view = ranking_view(task, events, lambda i: f"Title {i}")
    assert view is not None and view["rank"] == 2 and view["seq"] == 2
    assert [(i["id"], i["positive"]) for i in view["items"]] == [
        ("a", False),
        ("b", True),
        ("c", False),
    ]
    assert view["items"][1]["title"] == "Title b"


def test_a_stream_shows_its_episodes_in_order_with_the_feedback_heard():
    score = EpisodeScore(
        path="s.jsonl",
        label="l",
        task_id="s1",
        trial=0,
        end_reason="recommended",
        outcome="item",
        item_id="y",
        kind="stream",
        metrics={
            "regret@1": 10.0,
            "questions@1": 1.0,
            "rank@1": 3.0,
            "regret@2": 0.0,
            "questions@2": 0.0,
            "rank@2": 1.0,
        },
    )
    events = [
        {
            "type": "tool_result",
            "seq": 5,
            "call_id": "a",
            "content": {"episode": 1, "item_id": "x", "feedback": "meh"},
        },
        {
            "type": "tool_result",
            "seq": 9,
            "call_id": "b",
            "content": {"episode": 2, "item_id": "y", "feedback": "great"},
        },
    ]
    view = stream_view(score, events)
    assert view is not None
    assert [(e["index"], e["item_id"], e["feedback"], e["regret"], e["seq"]) for e in view] == [
        (1, "x", "meh", 10.0, 5),
        (2, "y", "great", 0.0, 9),
    ]


def test_a_judge_aspect_without_a_score_is_shown_as_none():
    view = judge_view(
        {
            "fluency": JudgeScore(math.nan, math.nan, [math.nan], 1, "m"),
            "overall_sat": JudgeScore(4.0, 0.5, [4.0], 0, "m"),
        }
    )
    assert view == [
        {"aspect": "fluency", "mean": None, "spread": None, "failures": 1, "model": "m"},
        {"aspect": "overall_sat", "mean": 4.0, "spread": 0.5, "failures": 0, "model": "m"},
    ]


@dataclass
class _Fault:  # contract B's SimulatorFault
    kind: str
    seq: int
    detail: str


def test_a_simulator_fault_points_at_the_user_message_at_fault(logs):
    path = logs.episode("ta", 0, item="c1")
    (score,) = score_paths([path], Resolver(suite=logs.spec))
    score.simulator_faults = [_Fault("stated_hidden", 1, "stated a hidden need")]  # type: ignore[attr-defined]
    view = episode_view(score, None, read_log(path).events)
    assert view["verdicts"]["faults"] == [
        {"kind": "stated_hidden", "seq": 1, "detail": "stated a hidden need"}
    ]
    assert view["conversation"][0]["seq"] == 1 and view["conversation"][0]["role"] == "user"


def test_ranking_metrics_are_listed_by_cutoff_as_evaluator_score_lists_them():
    metrics = {m: 0.0 for m in ("ndcg@10", "hit@10", "valid", "ndcg@5", "hit@5", "hit@1")}
    score = EpisodeScore(
        path="x.jsonl",
        label="a",
        task_id="r1",
        trial=0,
        end_reason="recommended",
        outcome="item",
        item_id=None,
        metrics=metrics,
    )
    names = [m["name"] for m in episode_view(score, None, [])["verdicts"]["metrics"]]
    assert names == ["valid", "hit@1", "hit@5", "ndcg@5", "hit@10", "ndcg@10"]
