"""The "ppr" kind (AgenticRec's pairwise preference tasks) on the MCP server, and the same
episodes as a small Python environment (`PairEnv`).

Tools: start_episode (the opening shows the history and items A and B), submit_answer
(ends the episode: reward 1 for the task's letter, 0 otherwise, an answer other than A/B
included; the reply never names the correct letter) and abort_episode. Logs have the same
format, chain and signature as every other kind (header kind "ppr"); the answer is the
submit_answer call's argument and the end record's reason is "recommended". Sealed runs
(`--plans`) work as for the ranking kind: one admission per planned (task, trial).

    env = PairEnv.from_suite("my-ppr-suite")
    obs = env.reset(env.suite.tasks[0])
    step = env.step({"name": "submit_answer", "arguments": {"answer": "B"}})
    step.done, step.reward                                 # True, 1.0 or 0.0
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from taurec.server.episode_end import ABORTED, SHUTDOWN_DETAIL, EpisodeEnd
from taurec.server.kinds import SERVER_KINDS, KindService
from taurec.server.ranking.env import Step
from taurec.server.run_facts import SERVER_NAME, default_run_label, derive_seed, server_version
from taurec.server.seal import Admission, Seals, load_seals
from taurec.server.settings import ServerSettings
from taurec.server.trajectory_writer import TrajectoryWriter, log_path, now_utc
from taurec.tasks.errors import AgentFacingError
from taurec.tasks.ranking.pair import SUBMIT, PairEpisode, PairOutcome, PairTask
from taurec.tasks.suite import Suite, load_suite, portable_suite_spec
from taurec.tasks.trajectory.format import AgentInfo, EndReason, Header, SimulatorInfo, SuiteRef
from taurec.tasks.trajectory.signing import load_log_key

EpisodeId = Annotated[
    str, Field(min_length=1, description="The episode_id start_episode returned.")
]


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


@dataclass
class _Open:
    episode: PairEpisode
    writer: TrajectoryWriter
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    admission: Admission | None = None  # sealed mode: the planned episode it plays


class PairService:
    def __init__(self, settings: ServerSettings, suite: Suite) -> None:
        self.settings = settings
        self.suite = suite
        self.version = server_version()
        self.run_id = settings.run_label or default_run_label()
        self.suite_ref = SuiteRef(id=suite.id, spec=portable_suite_spec(suite.spec))
        self.catalog_sha256 = suite.catalog.sha256()
        self.key = load_log_key(create=True)
        self._open: dict[str, _Open] = {}
        self._ended: dict[str, str] = {}
        self.seals: Seals | None = None
        if settings.plans:
            self.seals = load_seals(
                settings.plans,
                suite,
                suite.catalog,
                settings.log_dir,
                self.key,
                server_version=self.version,
            )

    @property
    def plan_tokens(self) -> list[str]:
        return [] if self.seals is None else self.seals.tokens

    def start(
        self, task_id: str, trial: int, seed: int | None, agent_label: str | None
    ) -> PairStarted:
        task = self.suite.get(task_id)
        if task is None:
            raise ToolError(
                f"unknown task_id {task_id!r}; expected a task of suite {self.suite.id!r}"
            )
        admission = None
        if self.seals is not None:
            with _agent_errors():
                admission = self.seals.admit(task.id, trial, seed, agent_label)
            agent_label, seed = admission.label, admission.seed
        try:
            return self._start(task, trial, seed, agent_label, admission)
        except BaseException:
            if admission is not None and self.seals is not None:
                self.seals.cancel(admission)
            raise

    def _start(
        self,
        task: PairTask,
        trial: int,
        seed: int | None,
        agent_label: str | None,
        admission: Admission | None,
    ) -> PairStarted:
        episode_id = secrets.token_hex(16)
        run_id = self.run_id if admission is None else admission.run_id
        header = Header(
            run_id=run_id,
            episode_id=episode_id,
            kind="ppr",
            mode="open" if admission is None else "sealed",
            plan_id=None if admission is None else admission.plan_id,
            agent=AgentInfo(label=agent_label or self.settings.agent_label),
            task_id=task.id,
            task_sha256=task.sha256(),
            suite=self.suite_ref,
            catalog_sha256=self.catalog_sha256,
            trial=trial,
            seed=derive_seed(task.id, trial) if seed is None else seed,
            simulator=SimulatorInfo(kind="none"),
            server_version=self.version,
            started_at=now_utc(),
        )
        path = log_path(self.settings.log_dir, run_id, task.id, trial, episode_id)
        writer = TrajectoryWriter(path, header, self.key)
        episode = PairEpisode(task)
        opening = episode.opening()
        writer.user_message(opening)
        self._open[episode_id] = _Open(episode, writer, admission=admission)
        if admission is not None and self.seals is not None:
            self.seals.started(admission, episode_id, path)
        return PairStarted(episode_id=episode_id, task_id=task.id, trial=trial, opening=opening)

    def _get(self, episode_id: str) -> _Open:
        if self.seals is not None:  # in sealed mode only the plan that started it may act
            with _agent_errors():
                self.seals.check_owner(episode_id)
        hit = self._open.get(episode_id)
        if hit is None:
            ended = self._ended.get(episode_id)
            if ended is not None:
                raise ToolError(f"episode {episode_id[:12]} has ended ({ended})")
            raise ToolError(
                f"unknown episode_id {episode_id[:40]!r}; expected the id start_episode returned"
            )
        return hit

    async def submit(self, episode_id: str, answer: str) -> tuple[str, PairOutcome]:
        op = self._get(episode_id)
        async with op.lock:
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
            end = EpisodeEnd(EndReason.RECOMMENDED, detail=outcome.problem)
            await op.writer.end(end.reason, detail=end.detail)
            self._retire(episode_id, op, end)
            return text, outcome

    async def abort(self, episode_id: str, reason: EndReason, detail: str | None) -> None:
        """An agent's (or harness's) abort: its detail is marked as such."""
        op = self._get(episode_id)
        await self._abort(episode_id, op, EpisodeEnd(reason, detail=ABORTED + (detail or "")))

    async def _abort(self, episode_id: str, op: _Open, end: EpisodeEnd) -> None:
        async with op.lock:
            if op.writer.ended:
                return
            await op.writer.end(end.reason, detail=end.detail)
            self._retire(episode_id, op, end)

    def _retire(self, episode_id: str, op: _Open, end: EpisodeEnd) -> None:
        self._open.pop(episode_id, None)
        self._ended[episode_id] = end.reason.value
        if op.admission is not None and self.seals is not None:
            self.seals.ended(op.admission, episode_id, end, op.writer.chain)

    async def close_all(self) -> int:
        n = 0
        for episode_id in list(self._open):
            op = self._open.get(episode_id)
            if op is not None and not op.writer.ended:
                # the server ends it: no caller's ownership to check
                cut = EpisodeEnd(EndReason.INFRA_ERROR, detail=SHUTDOWN_DETAIL, cut_by_server=True)
                await self._abort(episode_id, op, cut)
                n += 1
        return n


@contextmanager
def _agent_errors() -> Iterator[None]:
    try:
        yield
    except AgentFacingError as exc:
        raise ToolError(str(exc)) from None


def register_pair_tools(mcp: MCPServer, service: PairService) -> None:
    async def start_episode(
        task_id: Annotated[str, Field(min_length=1, description="A ppr task id of the suite.")],
        trial: Annotated[int, Field(ge=0, description="Trial number (0, 1, ...).")] = 0,
        seed: int | None = None,
        agent_label: Annotated[str | None, Field(description="Groups episodes in reports.")] = None,
    ) -> PairStarted:
        """Start a pairwise preference episode: the user's history and items A and B."""
        return service.start(task_id, trial, seed, agent_label)

    async def submit_answer(
        episode_id: EpisodeId,
        answer: Annotated[str, Field(max_length=1000, description="'A' or 'B'.")],
    ) -> PairAnswered:
        """Answer 'A' or 'B'; this ends the episode (any other answer scores 0)."""
        text, outcome = await service.submit(episode_id, answer)
        return PairAnswered(valid=outcome.valid, message=text)

    async def abort_episode(
        episode_id: EpisodeId,
        reason: Literal["agent_error", "infra_error"],
        detail: Annotated[str | None, Field(max_length=2000)] = None,
    ) -> str:
        """For harnesses: end the episode without an answer, recording why."""
        await service.abort(episode_id, EndReason(reason), detail)
        return f"episode ended ({reason})"

    mcp.add_tool(start_episode, title="Start a PPR episode")
    mcp.add_tool(submit_answer, title="Submit the answer (A or B)")
    mcp.add_tool(abort_episode, title="Abort an episode (harnesses)")


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
        else:
            text, outcome = self.episode.submit(arguments.get("answer"))
            step = Step(text, True, outcome.reward, is_error=not outcome.valid)
        self.trajectory.append(
            {"name": name, "arguments": arguments, "observation": step.observation}
        )
        return step
