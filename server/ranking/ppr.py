"""The "ppr" kind (AgenticRec's pairwise preference tasks) on the MCP server, and the same
episodes as a small Python environment (`PairEnv`).

Tools: start_episode (the opening shows the history and items A and B), submit_answer
(ends the episode: reward 1 for the task's letter, 0 otherwise, an answer other than A/B
included; the reply never names the correct letter) and abort_episode. Every string
argument has a schema cap (the ranking kind's, and MAX_ANSWER) and the answer ends the
episode, so one episode's log holds at most one call. Logs have the same
format, chain and signature as every other kind (header kind "ppr"); the answer is the
submit_answer call's argument and the end record's reason is "recommended". Sealed runs
(`--plans`) work as for the ranking kind: one admission per planned (task, trial).

    env = PairEnv.from_suite("my-ppr-suite")
    obs = env.reset(env.suite.tasks[0])
    step = env.step({"name": "submit_answer", "arguments": {"answer": "B"}})
    step.done, step.reward                                 # True, 1.0 or 0.0
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from taurec.server.episode_end import EpisodeEnd
from taurec.server.episode_service import Admitted, EpisodeService
from taurec.server.http_fairness import locked
from taurec.server.kinds import SERVER_KINDS, KindService
from taurec.server.ranking.app import (
    AgentLabel,
    EpisodeId,
    Seed,
    TaskId,
    Trial,
    add_abort_tool,
    checked_label,
)
from taurec.server.ranking.env import Step
from taurec.server.run_facts import SERVER_NAME
from taurec.server.settings import ServerSettings
from taurec.tasks.ranking.pair import SUBMIT, PairEpisode, PairOutcome, PairTask
from taurec.tasks.suite import Suite, load_suite
from taurec.tasks.trajectory.format import EndReason

MAX_ANSWER = 1000  # characters of submit_answer's answer (longer: refused, as any bad schema)


class PairStarted(BaseModel):
    episode_id: str = Field(description="Pass this id to submit_answer.")
    task_id: str
    trial: int
    opening: str = Field(description="The task: the user's history and items A and B.")
    max_turns: int = Field(default=0, description="PPR episodes have no dialogue.")


class PairAnswered(BaseModel):
    valid: bool = Field(description="Whether the answer was 'A' or 'B'.")
    message: str
    episode_ended: bool = True
    end_reason: str = EndReason.RECOMMENDED.value


class PairService(EpisodeService[PairEpisode]):
    kind = "ppr"

    def start(
        self, task_id: str, trial: int, seed: int | None, agent_label: str | None
    ) -> PairStarted:
        return self.admit(task_id, trial, seed, checked_label(agent_label), self._start)

    def _start(self, admitted: Admitted) -> PairStarted:
        task: PairTask = admitted.task
        episode = PairEpisode(task)
        opening = episode.opening()
        episode_id = self.open_log(admitted, episode, opening)
        return PairStarted(
            episode_id=episode_id, task_id=task.id, trial=admitted.trial, opening=opening
        )

    async def submit(self, episode_id: str, answer: str) -> tuple[str, PairOutcome]:
        op = self.get(episode_id)
        async with locked(op.lock):  # waiting, the request's HTTP turn goes on
            if op.writer.ended:
                raise ToolError(f"episode {episode_id[:12]} has ended")
            call_id = f"c{op.writer.seq + 1}"
            op.writer.tool_call(call_id, SUBMIT, {"answer": answer})
            began = time.perf_counter()
            text, outcome = op.episode.submit(answer)
            op.writer.tool_result(
                call_id,
                text,
                is_error=not outcome.valid,
                latency_ms=(time.perf_counter() - began) * 1000,
            )
            await self.end(
                episode_id, op, EpisodeEnd(EndReason.RECOMMENDED, detail=outcome.problem)
            )
            return text, outcome


def register_pair_tools(mcp: MCPServer, service: PairService) -> None:
    async def start_episode(
        task_id: TaskId,
        trial: Trial = 0,
        seed: Seed = None,
        agent_label: AgentLabel = None,
    ) -> PairStarted:
        """Start a pairwise preference episode: the user's history and items A and B."""
        await service.make_room()
        return service.start(task_id, trial, seed, agent_label)

    async def submit_answer(
        episode_id: EpisodeId,
        answer: Annotated[str, Field(max_length=MAX_ANSWER, description="'A' or 'B'.")],
    ) -> PairAnswered:
        """Answer 'A' or 'B'; this ends the episode (any other answer scores 0)."""
        text, outcome = await service.submit(episode_id, answer)
        return PairAnswered(valid=outcome.valid, message=text)

    mcp.add_tool(start_episode, title="Start a PPR episode")
    mcp.add_tool(submit_answer, title="Submit the answer (A or B)")
    add_abort_tool(mcp, service, "an answer")


@SERVER_KINDS.register("ppr")
def pair_server(
    settings: ServerSettings, suite: Suite, make_user: object | None
) -> tuple[MCPServer, KindService]:
    """AgenticRec PPR: which of two items the user is MORE / LESS likely to buy next."""
    service = PairService(settings, suite)
    mcp: MCPServer = MCPServer(
        SERVER_NAME,
        title="taurec: agentic recommendation benchmark (pairwise preference)",
        version=service.version,
        instructions="PPR episodes: start_episode(task_id), then submit_answer with 'A' or 'B'.",
        log_level=settings.log_level,
    )
    register_pair_tools(mcp, service)
    return mcp, service


@dataclass
class PairEnv:
    """PPR episodes without MCP, for RL trainers: the same PairEpisode as the server."""

    suite: Suite | None = None
    episode: PairEpisode | None = None
    trajectory: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def from_suite(cls, spec: str) -> PairEnv:
        return cls(load_suite(spec))

    def reset(self, task: PairTask) -> str:
        self.episode = PairEpisode(task)
        self.trajectory = []
        return self.episode.opening()

    def step(self, tool_call: dict[str, Any]) -> Step:
        """{"name": "submit_answer", "arguments": {"answer": "A"}}: ends the episode. Any
        other name is an error step that leaves it open."""
        if self.episode is None:
            raise RuntimeError("call reset(task) before step()")
        name = tool_call.get("name")
        arguments = tool_call.get("arguments") or {}
        if not isinstance(name, str) or not isinstance(arguments, dict):
            raise ValueError('tool_call: expected {"name": str, "arguments": dict}')
        if self.episode.ended:
            step = Step("the episode has ended; call reset(task)", True, None, is_error=True)
        elif name != SUBMIT:
            step = Step(f"unknown tool {name!r}; expected {SUBMIT}", False, None, is_error=True)
        elif not isinstance(answer := arguments.get("answer"), str) or len(answer) > MAX_ANSWER:
            # refused as the MCP tool's schema refuses it: the episode goes on
            problem = f"{SUBMIT} needs answer: 'A' or 'B' (text, at most {MAX_ANSWER} characters)"
            step = Step(problem, False, None, is_error=True)
        else:
            text, outcome = self.episode.submit(arguments.get("answer"))
            step = Step(text, True, outcome.reward, is_error=not outcome.valid)
        self.trajectory.append(
            {"name": name, "arguments": arguments, "observation": step.observation}
        )
        return step
