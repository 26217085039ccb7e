"""One ranking episode as a state machine, shared by the MCP server and the Python
environment (env.py): the opening prompt, tool calls counted against the budget,
and the submitted ranking. It does no I/O; callers log what `call` returns.

The episode ends on `submit_ranking` with a list of ids (valid or not: an invalid answer
is final and scores -1) and on the tool call past the budget (the 11th of 10), which makes
it invalid. A call to an unknown tool or with ill-formed arguments is refused, uncounted,
as over MCP (taurec.tasks.ranking.rules).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from taurec.server.ranking.tools import TOOLS, RankingData, ToolInputError, run_tool
from taurec.tasks.ranking.metrics import RankingOutcome, score_ranking
from taurec.tasks.ranking.rules import SUBMIT, call_problem, normalised
from taurec.tasks.ranking.task import RankingTask


@dataclass(frozen=True)
class StepResult:
    text: str
    is_error: bool = False
    done: bool = False
    outcome: RankingOutcome | None = None  # set when the episode ended with this step


def opening_prompt(rd: RankingData, task: RankingTask) -> str:
    """The user turn of AgenticRec's prompt (App. A), with this task's data."""
    items = rd.data.items
    history = "\n".join(
        f"{n}. {items[rd.data.item_of(i)].title}" for n, i in enumerate(task.history, 1)
    )
    candidates = "\n".join(
        f"{n}. [{cid}] {items[rd.data.item_of(cid)].title}"
        for n, cid in enumerate(task.candidates, 1)
    )
    return (
        f"Given a user's interaction history and a list of {len(task.candidates)} candidate "
        f"items, you must select the TOP {task.top_n} items most likely to be bought and rank "
        "them from most to least likely. You may call the recommendation tools (at most "
        f"{task.tool_budget} calls; one more makes the answer invalid).\n\n"
        f"User history (oldest first):\n{history or '(none)'}\n\n"
        f"Candidates (index. [id] title):\n{candidates}\n\n"
        f"Answer with submit_ranking and {task.top_n} distinct candidate ids, or end your "
        f"reply with <answer>\\boxed{{[i1, i2, ...]}}</answer> holding exactly {task.top_n} "
        "unique 1-based candidate indices."
    )


@dataclass
class RankingEpisode:
    rd: RankingData
    task: RankingTask
    calls: int = 0  # every call that reached the episode, refused ones included
    tool_calls: int = 0
    answered_calls: int = 0  # tool calls the tool answered without an error
    ranking: list[str] | None = None
    outcome: RankingOutcome | None = None
    detail: str | None = None
    history: list[dict[str, Any]] = field(default_factory=list)  # (name, arguments, text)

    @property
    def ended(self) -> bool:
        return self.outcome is not None

    def opening(self) -> str:
        return opening_prompt(self.rd, self.task)

    def call(self, name: str, arguments: dict[str, Any]) -> StepResult:
        """One tool call (or the submission). After the end, an error that says so."""
        if self.ended:
            return StepResult("the episode has ended; start a new one", is_error=True, done=True)
        self.calls += 1
        arguments = normalised(name, arguments)
        problem = call_problem(name, arguments)
        if problem is not None:
            return StepResult(problem, is_error=True)
        if name == SUBMIT:
            return self.submit(arguments["ranking"])
        self.tool_calls += 1
        if self.tool_calls > self.task.tool_budget:
            return self._end(
                None,
                f"tool call {self.tool_calls} is past the budget of {self.task.tool_budget}; "
                "the episode is over and its answer invalid (reward -1)",
            )
        try:
            text = run_tool(self.rd, self.task, name, arguments)
        except ToolInputError as exc:
            result = StepResult(str(exc), is_error=True)
        else:
            result = StepResult(text)
            self.answered_calls += 1
        self.history.append({"name": name, "arguments": arguments, "text": result.text})
        return result

    def submit(self, ranking: list[str]) -> StepResult:
        outcome = score_ranking(self.task, ranking, self.tool_calls, self.answered_calls)
        text = (
            f"Ranking received ({len(ranking)} ids). The episode is over."
            if outcome.valid
            else f"Invalid ranking: {outcome.problem}. The episode is over (reward -1)."
        )
        return self._end(list(ranking), text, outcome)

    def _end(
        self, ranking: list[str] | None, text: str, outcome: RankingOutcome | None = None
    ) -> StepResult:
        self.ranking = ranking
        self.outcome = outcome or score_ranking(
            self.task, ranking, self.tool_calls, self.answered_calls
        )
        self.detail = self.outcome.problem
        return StepResult(text, is_error=not self.outcome.valid, done=True, outcome=self.outcome)


TOOL_NAMES: Final = (*TOOLS, SUBMIT)
