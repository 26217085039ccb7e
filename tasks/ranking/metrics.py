"""Ranking metrics and the AgenticRec list-wise reward: pure functions of a task and an
answer. With one positive at 1-based rank p: Hit@K = [p <= K]; NDCG@K = 1/log2(p + 1)
when p <= K, else 0 (the ideal DCG is 1).

reward: -1 for an invalid answer (none, wrong length, a duplicate, an id outside the
candidates, or more tool calls than the budget); -0.5 when the positive is not listed;
NDCG@top_n otherwise, plus 0.1 when the positive is first and at least one tool call was
answered (a call the tool refused, such as an unknown title, costs budget but earns no
bonus).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from taurec.tasks.ranking.task import RankingTask

KS = (1, 5, 10)
INVALID = -1.0
MISSING = -0.5
TOOL_BONUS = 0.1


def ndcg_at(rank: int | None, k: int) -> float:
    return 1.0 / math.log2(rank + 1) if rank is not None and rank <= k else 0.0


def hit_at(rank: int | None, k: int) -> float:
    return 1.0 if rank is not None and rank <= k else 0.0


def invalid_reason(task: RankingTask, ranking: Sequence[str] | None, tool_calls: int) -> str | None:
    """Why the answer is invalid (naming the field), or None when it is valid."""
    if tool_calls > task.tool_budget:
        return f"{tool_calls} tool calls; the budget is {task.tool_budget}"
    if ranking is None:
        return "no ranking was submitted"
    if len(ranking) != task.top_n:
        return f"ranking: {len(ranking)} ids; expected exactly {task.top_n}"
    if len(set(ranking)) != len(ranking):
        dup = next(x for x in ranking if list(ranking).count(x) > 1)
        return f"ranking: {dup!r} is listed twice; expected distinct ids"
    foreign = [x for x in ranking if x not in task.candidates]
    if foreign:
        return f"ranking: {foreign[0]!r} is not one of the task's candidates"
    return None


@dataclass(frozen=True)
class RankingOutcome:
    valid: bool
    rank: int | None  # 1-based rank of the positive in the answer (None: not listed)
    reward: float
    problem: str | None = None

    def metrics(self) -> dict[str, float]:
        out = {f"hit@{k}": hit_at(self.rank, k) for k in KS}
        out |= {f"ndcg@{k}": ndcg_at(self.rank, k) for k in (5, 10)}
        return out


def score_ranking(
    task: RankingTask,
    ranking: Sequence[str] | None,
    tool_calls: int,
    answered_calls: int | None = None,
) -> RankingOutcome:
    """`tool_calls` count against the budget; the bonus needs one of them answered without
    an error (`answered_calls`; default: all of them were): a call a tool refuses, such as
    an unknown title, costs budget but earns nothing."""
    problem = invalid_reason(task, ranking, tool_calls)
    if problem is not None or ranking is None:
        return RankingOutcome(False, None, INVALID, problem)
    ranked = list(ranking)
    if task.positive not in ranked:
        return RankingOutcome(True, None, MISSING)
    rank = ranked.index(task.positive) + 1
    answered = tool_calls if answered_calls is None else answered_calls
    bonus = TOOL_BONUS if rank == 1 and answered >= 1 else 0.0
    return RankingOutcome(True, rank, ndcg_at(rank, task.top_n) + bonus)
