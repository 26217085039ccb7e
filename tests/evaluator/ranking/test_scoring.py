"""Scoring ranking logs, their report, and the grpo export (ppr pairs: test_ppr_pairs.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from taurec.evaluator.ranking.export import grpo_groups
from taurec.evaluator.ranking.scoring import aggregate_ranking, ranking_rows, score_ranking_episode
from taurec.tasks.ranking.task import RankingTask
from taurec.tasks.trajectory.format import AgentInfo, Header, SimulatorInfo, SuiteRef, Trajectory

CANDS = [f"c{i:02d}" for i in range(20)]
TASK = RankingTask(
    id="t", user_id="u", target_time=9, history=["h"], candidates=CANDS, positive="c05"
)
OPENING = (
    "User history (oldest first):\n1. Old Film\n\nCandidates (index. [id] title):\n"
    + "\n".join(f"{n}. [{c}] Title {c}" for n, c in enumerate(CANDS, 1))
)


def _trajectory(
    ranking: list[str] | None, calls: int = 1, trial: int = 0, end: str = "recommended"
) -> Trajectory:
    header = Header(
        run_id="r",
        episode_id=f"e{trial}",
        kind="ranking",
        agent=AgentInfo(label="a"),
        task_id="t",
        task_sha256="0" * 64,
        suite=SuiteRef(id="s"),
        catalog_sha256="0" * 64,
        trial=trial,
        seed=0,
        simulator=SimulatorInfo(kind="none"),
        server_version="x",
        started_at=datetime.now(UTC),
    )
    events: list[dict[str, Any]] = [{"type": "user_message", "seq": 1, "t": 0, "text": OPENING}]
    for k in range(calls):
        events.append(
            {
                "type": "tool_call",
                "seq": len(events) + 1,
                "t": 0,
                "call_id": f"c{k}",
                "name": "get_user_profile",
                "arguments": {},
            }
        )
        events.append(
            {
                "type": "tool_result",
                "seq": len(events) + 1,
                "t": 0,
                "call_id": f"c{k}",
                "content": "p",
                "is_error": False,
            }
        )
    if ranking is not None:
        events.append(
            {
                "type": "tool_call",
                "seq": len(events) + 1,
                "t": 0,
                "call_id": "s",
                "name": "submit_ranking",
                "arguments": {"ranking": ranking},
            }
        )
    events.append({"type": "end", "seq": len(events) + 1, "t": 0, "reason": end})
    return Trajectory(header=header, events=events)


def _at(rank: int | None) -> list[str]:
    others = [c for c in CANDS if c != "c05"]
    return others[:10] if rank is None else [*others[: rank - 1], "c05", *others[rank - 1 :]][:10]


def test_a_log_with_the_positive_first_and_a_tool_call_scores_1_1():
    score = score_ranking_episode(TASK, _trajectory(_at(1)))
    assert score.reward == pytest.approx(1.1) and score.passed and score.kind == "ranking"
    assert score.metrics["hit@1"] == 1.0 and score.tool_calls == 1


def test_eleven_tool_calls_in_the_log_make_the_answer_invalid():
    score = score_ranking_episode(TASK, _trajectory(_at(1), calls=11))
    assert score.reward == -1.0 and not score.passed
    assert "11 tool calls; the budget is 10" in score.problems[0]


def test_an_episode_without_a_submission_is_invalid():
    score = score_ranking_episode(TASK, _trajectory(None, end="agent_error"))
    assert score.reward == -1.0 and score.outcome == "none"


def test_the_label_report_has_hit_ndcg_reward_and_pass_k():
    scores = [
        score_ranking_episode(TASK, _trajectory(_at(r), trial=k)) for k, r in enumerate([1, 3])
    ]
    group = aggregate_ranking("a", scores)
    assert group["metrics"]["hit@1"] == 0.5 and group["metrics"]["hit@5"] == 1.0
    assert group["mean_reward"] == pytest.approx((1.1 + 0.5) / 2)
    assert group["pass_k"] == {"1": 1.0, "2": 1.0}
    assert [name for name, _ in ranking_rows(group)][:2] == ["run", "suite"]
    assert [name for name, _ in ranking_rows(group)][3:9] == [
        "hit@1",
        "hit@5",
        "ndcg@5",
        "hit@10",
        "ndcg@10",
        "reward",
    ]


def test_grpo_advantages_are_reward_minus_the_group_mean_without_std():
    episodes = [
        ("a", TASK, _trajectory(_at(r), trial=k), s)
        for k, (r, s) in enumerate([(1, 1.1), (None, -0.5)])
    ]
    (group,) = grpo_groups(episodes)
    assert [r["advantage"] for r in group["rollouts"]] == pytest.approx([0.8, -0.8])
    assert group["prompt"] == OPENING and not group["dropped"]
    assert group["rollouts"][0]["trajectory"][0]["name"] == "get_user_profile"


def test_a_group_whose_rewards_are_all_negative_is_dropped():
    episodes = [("a", TASK, _trajectory(None, trial=k), -1.0) for k in range(2)]
    (group,) = grpo_groups(episodes)
    assert group["dropped"]
