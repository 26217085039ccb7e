"""Scoring PPR logs: reward 1 for the task's letter, 0 otherwise; per label, accuracy per
direction with CIs and the share of "A" answers."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from taurec.evaluator.ranking.ppr import aggregate_pairs, pair_rows, score_pair_episode
from taurec.tasks.ranking.pair import PairItem, PairTask
from taurec.tasks.trajectory.format import AgentInfo, Header, SimulatorInfo, SuiteRef, Trajectory


def _task(direction: str, answer: str, n: int = 0) -> PairTask:
    positive_first = (answer == "A") == (direction == "MORE")
    pos, neg = PairItem(id="pos", title="Pos"), PairItem(id="neg", title="Neg")
    return PairTask(
        id=f"p{n}",
        user_id="u",
        target_time=1,
        history=[],
        direction=direction,
        item_a=pos if positive_first else neg,
        item_b=neg if positive_first else pos,
        positive="pos",
        answer=answer,
        source_task_id="t",
    )


def _trajectory(task: PairTask, answers: list[Any], end: str = "recommended") -> Trajectory:
    header = Header(
        run_id="r",
        episode_id="e",
        kind="ppr",
        agent=AgentInfo(label="a"),
        task_id=task.id,
        task_sha256=task.sha256(),
        suite=SuiteRef(id="s"),
        catalog_sha256="0" * 64,
        trial=0,
        seed=0,
        simulator=SimulatorInfo(kind="none"),
        server_version="x",
        started_at=datetime.now(UTC),
    )
    events: list[dict[str, Any]] = [
        {"type": "tool_call", "seq": n, "t": 0, "call_id": f"c{n}", "name": "submit_answer"}
        | {"arguments": {"answer": a}}
        for n, a in enumerate(answers)
    ]
    events.append({"type": "end", "seq": 9, "t": 0, "reason": end})
    return Trajectory(header=header, events=events)


def test_the_tasks_letter_scores_1_and_passes():
    task = _task("LESS", "B")
    score = score_pair_episode(task, _trajectory(task, ["B"]))
    assert score.reward == 1.0 and score.passed and score.kind == "ppr"
    assert score.metrics == {"accuracy": 1.0, "accuracy_less": 1.0, "valid": 1.0, "answered_a": 0.0}


def test_only_the_first_answer_counts():
    task = _task("MORE", "A")
    assert score_pair_episode(task, _trajectory(task, ["B", "A"])).reward == 0.0


def test_an_invalid_answer_scores_0_and_is_named_in_the_problems():
    task = _task("MORE", "A")
    score = score_pair_episode(task, _trajectory(task, ["A?"]))
    assert score.reward == 0.0 and score.metrics["valid"] == 0.0
    assert "invalid answer: answer: 'A?' is not 'A' or 'B'" in score.problems[0]


def test_an_episode_without_an_answer_scores_0():
    task = _task("MORE", "A")
    score = score_pair_episode(task, _trajectory(task, [], end="agent_error"))
    assert score.reward == 0.0 and not score.passed and score.outcome == "none"


def test_the_label_report_splits_accuracy_by_direction_and_shows_the_a_share():
    cases = [("MORE", "A", "A"), ("MORE", "B", "A"), ("LESS", "B", "B"), ("LESS", "A", "B")]
    scores = []
    for n, (direction, answer, given) in enumerate(cases):
        task = _task(direction, answer, n)
        scores.append(score_pair_episode(task, _trajectory(task, [given])))
    group = aggregate_pairs("a", scores)
    assert group["metrics"]["accuracy"] == 0.5
    assert group["metrics"]["accuracy_more"] == 0.5 and group["metrics"]["accuracy_less"] == 0.5
    assert group["metrics"]["answered_a"] == 0.5 and group["metrics_n"]["accuracy_more"] == 2
    assert group["pass_k"] == {"1": 0.5}
    names = [name for name, _ in pair_rows(group)]
    assert names[3:7] == [
        "accuracy (= reward)",
        "accuracy, MORE tasks",
        "accuracy, LESS tasks",
        "share of answers 'A'",
    ]
