"""The "ranking" task kind (AgenticRec): rank 20 candidates for one user.

The agent sees the user's last (at most 10) items before `target_time` and 20 shuffled
candidates: the item the user really took next (`positive`, never shown) and 19
negatives drawn uniformly from the items outside the user's records up to the target.
It may call recommendation tools (at most `tool_budget` times) and answers a top-`top_n`
list of distinct candidates. A trial passes when the positive is in the top `pass_k`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from taurec.tasks.hashed import HashedTask
from taurec.tasks.kinds import task_kind

N_CANDIDATES = 20
MAX_HISTORY = 10


def _problems(task: RankingTask) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if len(set(task.candidates)) != len(task.candidates):
        out.append(("candidates", "holds a duplicate id; expected distinct candidate ids"))
    if task.positive not in task.candidates:
        out.append(("positive", f"{task.positive!r} is not among the candidates"))
    overlap = sorted(set(task.history) & (set(task.candidates) - {task.positive}))
    if overlap:
        out.append(("candidates", f"negative {overlap[0]!r} is in the history"))
    if task.top_n > len(task.candidates):
        out.append(("top_n", "is larger than the number of candidates"))
    if task.pass_k > task.top_n:
        out.append(("pass_k", "is larger than top_n"))
    return out


@task_kind(
    "ranking",
    description="AgenticRec: rank 20 candidates for a user with recommendation tools",
    checks=lambda task: _problems(task),
)
class RankingTask(HashedTask):
    """One ranking instance."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format_version: Literal[1] = 1
    kind: Literal["ranking"] = "ranking"
    id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.:-]+$")
    user_id: str = Field(min_length=1, description="The user in the interaction data.")
    target_time: int = Field(description="Unix seconds of the positive; tools see only before it.")
    history: list[str] = Field(
        max_length=MAX_HISTORY,
        description="The user's last items before target_time, oldest first.",
    )
    candidates: list[str] = Field(
        min_length=2, max_length=100, description="Shuffled candidate ids."
    )
    positive: str = Field(min_length=1, description="The item taken at target_time (the answer).")
    top_n: int = Field(default=10, ge=1, description="Length of the answer list.")
    pass_k: int = Field(
        default=10, ge=1, description="A trial passes when the positive is in the top pass_k."
    )
    tool_budget: int = Field(
        default=10, ge=0, description="Tool calls allowed; one more invalidates."
    )
