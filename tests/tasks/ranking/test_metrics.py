"""Hit/NDCG and the list-wise reward, including every edge case AgenticRec names, and a
cross-check of the metrics against ir-measures."""

import pytest

from taurec.tasks.ranking.metrics import ndcg_at, score_ranking
from taurec.tasks.ranking.task import RankingTask

CANDS = [f"c{i:02d}" for i in range(20)]
TASK = RankingTask(
    id="t", user_id="u", target_time=100, history=["h1"], candidates=CANDS, positive="c07"
)


def _with_positive_at(rank: int) -> list[str]:
    others = [c for c in CANDS if c != "c07"]
    return [*others[: rank - 1], "c07", *others[rank - 1 :]][:10]


def test_rank_one_with_a_tool_call_earns_the_bonus():
    assert score_ranking(TASK, _with_positive_at(1), tool_calls=1).reward == pytest.approx(1.1)


def test_rank_one_without_a_tool_call_is_one():
    assert score_ranking(TASK, _with_positive_at(1), tool_calls=0).reward == 1.0


def test_rank_ten_is_its_ndcg():
    assert score_ranking(TASK, _with_positive_at(10), tool_calls=3).reward == pytest.approx(
        0.2891, abs=1e-4
    )


def test_a_missing_positive_is_minus_a_half():
    listed = [c for c in CANDS if c != "c07"][:10]
    assert score_ranking(TASK, listed, tool_calls=2).reward == -0.5


@pytest.mark.parametrize(
    ("ranking", "calls", "why"),
    [
        (_with_positive_at(1)[:9], 1, "9 ids; expected exactly 10"),
        ([*_with_positive_at(1)[:9], "c07"], 1, "'c07' is listed twice"),
        (_with_positive_at(1), 11, "11 tool calls; the budget is 10"),
        ([*_with_positive_at(1)[:9], "zz"], 1, "'zz' is not one of the task's candidates"),
        (None, 0, "no ranking was submitted"),
    ],
)
def test_invalid_answers_score_minus_one_and_say_why(ranking, calls, why):
    outcome = score_ranking(TASK, ranking, tool_calls=calls)
    assert outcome.reward == -1.0 and not outcome.valid
    assert why in (outcome.problem or "")


def test_ndcg_by_rank_matches_the_papers_figures():
    assert [round(ndcg_at(r, 10), 4) for r in (1, 2, 3, 10)] == [1.0, 0.6309, 0.5, 0.2891]


@pytest.mark.parametrize("rank", [1, 2, 3, 5, 6, 9, 10, None])
def test_metrics_agree_with_ir_measures(rank):
    ir = pytest.importorskip("ir_measures")
    ranking = _with_positive_at(rank) if rank else [c for c in CANDS if c != "c07"][:10]
    ours = score_ranking(TASK, ranking, tool_calls=0).metrics()
    qrels = [ir.Qrel("q", "c07", 1)]
    run = [ir.ScoredDoc("q", doc, 100.0 - n) for n, doc in enumerate(ranking)]
    theirs = ir.calc_aggregate(
        [ir.Success @ 1, ir.Success @ 5, ir.Success @ 10, ir.nDCG @ 5, ir.nDCG @ 10], qrels, run
    )
    assert ours["hit@1"] == theirs[ir.Success @ 1]
    assert ours["hit@5"] == theirs[ir.Success @ 5]
    assert ours["hit@10"] == theirs[ir.Success @ 10]
    assert ours["ndcg@5"] == pytest.approx(theirs[ir.nDCG @ 5])
    assert ours["ndcg@10"] == pytest.approx(theirs[ir.nDCG @ 10])
