"""One flat row per episode (contract D): verdicts, metrics and faults in plain values."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from taurec.evaluator.episode import EpisodeScore
from taurec.evaluator.episodes.rows import COLUMNS, episode_rows
from taurec.evaluator.logs import Resolver, score_paths


def _rows(logs) -> list[dict]:
    return episode_rows(score_paths([logs.out], Resolver(suite=logs.spec)))


def test_every_row_has_exactly_the_documented_columns(logs):
    logs.run({"ta": 1, "tb": 0}, trials=1)
    for row in _rows(logs):
        assert list(row) == list(COLUMNS)


def test_a_passing_episode_has_no_failed_verdicts(logs):
    logs.run({"ta": 1}, trials=1)
    (row,) = _rows(logs)
    assert row["passed"] is True and row["reward"] == 1.0
    assert row["failed_constraints"] == [] and row["failed_policies"] == []
    assert row["failure"] is None


def test_a_failing_episode_names_its_failed_constraint(logs):
    logs.run({"tb": 0}, trials=1)  # commits h1, a horror film, to a drama fan
    (row,) = _rows(logs)
    assert row["passed"] is False
    assert row["failed_constraints"] == ["genres contains 'Drama'"]
    assert row["task"] == "tb" and row["trial"] == 0 and row["label"] == "agentA"
    assert row["stratum"] == "simple/volunteer"
    assert row["path"].endswith("tb-0.jsonl") and row["episode_id"] == "agentA-tb-0"


def test_an_abstention_is_named_as_the_failure(logs):
    logs.episode("ta", 0, item=None)
    (row,) = _rows(logs)
    assert row["passed"] is False and row["failure"] == "abstained"


def test_an_unreadable_log_is_a_failed_row_with_its_problem(logs, tmp_path: Path):
    logs.run({"ta": 1}, trials=1)
    (logs.out / "broken.jsonl").write_text("not json\n")
    rows = {Path(r["path"]).name: r for r in _rows(logs)}
    broken = rows["broken.jsonl"]
    assert broken["passed"] is False and broken["infra_error"] is True
    assert broken["failure"] and "broken.jsonl" in broken["failure"]


@dataclass
class _Fault:  # contract B's SimulatorFault
    kind: str
    seq: int
    detail: str


def test_simulator_faults_are_counted_with_their_kinds(logs):
    logs.run({"ta": 1}, trials=1)
    (score,) = score_paths([logs.out], Resolver(suite=logs.spec))
    score.simulator_faults = [  # type: ignore[attr-defined]
        _Fault("stated_hidden", 1, "said it"),
        _Fault("stated_hidden", 3, "again"),
        _Fault("accepted_violating", 4, "took it"),
    ]
    (row,) = episode_rows([score])
    assert row["simulator_faults"] == 3
    assert row["simulator_fault_kinds"] == ["accepted_violating", "stated_hidden"]


def test_a_nan_metric_becomes_null(logs):
    logs.run({"ta": 1}, trials=1)
    (score,) = score_paths([logs.out], Resolver(suite=logs.spec))
    score.metrics = {"sr": float("nan"), "rdl": 0.5}
    (row,) = episode_rows([score])
    assert row["metrics"] == {"sr": None, "rdl": 0.5}


def _ranking_score(reward: float, valid: float) -> EpisodeScore:
    return EpisodeScore(
        path="r.jsonl",
        label="l",
        task_id="r1",
        trial=0,
        end_reason="recommended",
        outcome="ranking",
        item_id="a",
        kind="ranking",
        reward=reward,
        metrics={"valid": valid, "hit@10": 0.0},
        success=False,
    )


def test_a_failed_ranking_says_whether_the_positive_was_listed():
    missing, invalid, low = episode_rows(
        [_ranking_score(-0.5, 1.0), _ranking_score(-1.0, 0.0), _ranking_score(0.3, 1.0)]
    )
    assert missing["failure"] == "the positive is not in the submitted list"
    assert invalid["failure"] == "invalid ranking"
    assert low["failure"] == "the positive is ranked below the passing rank"


def test_a_failed_stream_counts_its_episodes_with_regret():
    score = EpisodeScore(
        path="s.jsonl",
        label="l",
        task_id="s1",
        trial=0,
        end_reason="recommended",
        outcome="item",
        item_id="x",
        kind="stream",
        success=False,
        metrics={"regret@1": 0.0, "regret@2": 12.5, "regret@3": 3.0},
    )
    (row,) = episode_rows([score])
    assert row["failure"] == "regret in 2 of 3 episodes"


def test_a_title_recommended_where_none_fits_is_named_as_the_failure() -> None:
    score = EpisodeScore(
        path="x.jsonl",
        label="a",
        task_id="t",
        trial=0,
        end_reason="committed",
        outcome="item",
        item_id="i1",
        no_valid=True,
    )
    (row,) = episode_rows([score])
    assert row["failure"] == "recommended a title though none fits: it should have abstained"
