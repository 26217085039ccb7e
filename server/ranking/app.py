"""The MCP server of a ranking suite: start_episode, the seven recommendation tools,
submit_ranking and abort_episode, each call logged in the episode's trajectory.

The interaction data comes from the suite's `data.interactions` (see
taurec.catalog.interaction_sources); the collaborative model is trained on the records
before the suite's earliest target time and, under the global split (`data.split`), in
its train part; each suite user's records from their earliest target on are hidden from
every tool (see RankingData). Logs have the same format, chain and signature
as every other kind (header kind "ranking"); a submitted ranking ends the episode with
reason "recommended" and the ranking in the end record, the call past the tool budget
with reason "max_turns".
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from taurec.catalog.errors import DataError
from taurec.catalog.interaction_sources import load_interactions
from taurec.catalog.splits import scheme_of
from taurec.server.episode_end import ABORTED, SHUTDOWN_DETAIL, EpisodeEnd
from taurec.server.kinds import SERVER_KINDS, KindService
from taurec.server.ranking.episode import RankingEpisode, StepResult
from taurec.server.ranking.profiles import load_profiles, suite_folder
from taurec.server.ranking.tools import SETTINGS, TOOLS, RankingData
from taurec.server.run_facts import SERVER_NAME, default_run_label, derive_seed, server_version
from taurec.server.seal import Admission, Seals, load_seals
from taurec.server.settings import ServerSettings
from taurec.server.trajectory_writer import TrajectoryWriter, log_path, now_utc
from taurec.tasks.errors import AgentFacingError
from taurec.tasks.ranking.rules import REJECTED, REPLY, SUBMIT
from taurec.tasks.ranking.task import RankingTask
from taurec.tasks.suite import Suite, portable_suite_spec
from taurec.tasks.trajectory.format import AgentInfo, EndReason, Header, SimulatorInfo, SuiteRef
from taurec.tasks.trajectory.signing import load_log_key

EpisodeId = Annotated[
    str, Field(min_length=1, description="The episode_id start_episode returned.")
]


class RankingStarted(BaseModel):
    episode_id: str = Field(description="Pass this id to every other tool of the episode.")
    task_id: str
    trial: int
    opening: str = Field(description="The task: the user's history and the candidates.")
    max_turns: int = Field(default=0, description="Ranking episodes have no dialogue.")
    tool_budget: int
    candidates: list[str] = Field(description="The candidate ids, in the order shown (1-based).")


def ranking_data(suite: Suite) -> RankingData:
    spec = suite.data.get("interactions")
    if not spec:
        raise DataError(
            'a ranking suite needs data.interactions in suite.json (e.g. "synthetic")',
            source=suite.spec,
            field="data.interactions",
        )
    data = load_interactions(spec, suite.catalog)
    for task in suite.tasks:
        data.user_of(task.user_id)
        for item in [*task.history, *task.candidates]:
            data.item_of(item)
    # a suite without data.split predates the global split: its tasks were drawn per user
    scheme = scheme_of(suite.data.get("split", "per-user"), f"{suite.spec}: data.split")
    rd = RankingData.for_tasks(data, suite.tasks, scheme, suite.data.get("part"))
    # profiles are checked against the data the tools see (hidden records left out)
    rd.profiles = load_profiles(suite_folder(suite), suite.tasks, rd.data)
    return rd


@dataclass
class _Open:
    episode: RankingEpisode
    writer: TrajectoryWriter
    lock: anyio.Lock
    admission: Admission | None = None  # sealed mode: the planned episode it plays


class RankingService:
    def __init__(self, settings: ServerSettings, suite: Suite, rd: RankingData) -> None:
        self.settings = settings
        self.suite = suite
        self.rd = rd
        self.version = server_version()
        self.run_id = settings.run_label or default_run_label()
        self.suite_ref = SuiteRef(id=suite.id, spec=portable_suite_spec(suite.spec))
        self.catalog_sha256 = suite.catalog.sha256()
        self.data_sha256 = rd.data.sha256()
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

    def _task(self, task_id: str) -> RankingTask:
        task = self.suite.get(task_id)
        if task is None:
            raise ToolError(
                f"unknown task_id {task_id!r}; expected a task of suite {self.suite.id!r}"
            )
        return task

    def start(
        self, task_id: str, trial: int, seed: int | None, agent_label: str | None
    ) -> RankingStarted:
        task = self._task(task_id)
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
        task: RankingTask,
        trial: int,
        seed: int | None,
        agent_label: str | None,
        admission: Admission | None,
    ) -> RankingStarted:
        episode_id = secrets.token_hex(16)
        run_id = self.run_id if admission is None else admission.run_id
        header = Header(
            run_id=run_id,
            episode_id=episode_id,
            kind="ranking",
            mode="open" if admission is None else "sealed",
            plan_id=None if admission is None else admission.plan_id,
            agent=AgentInfo(label=agent_label or self.settings.agent_label),
            task_id=task.id,
            task_sha256=task.sha256(),
            suite=self.suite_ref,
            catalog_sha256=self.catalog_sha256,
            trial=trial,
            seed=derive_seed(task.id, trial) if seed is None else seed,
            simulator=SimulatorInfo(
                kind="none",
                settings={**SETTINGS, **self.rd.facts, **self.rd.profiles.settings(task.id)},
            ),
            server_version=self.version,
            started_at=now_utc(),
            interactions_sha256=self.data_sha256,  # an extra field: headers allow them
        )
        path = log_path(self.settings.log_dir, run_id, task.id, trial, episode_id)
        writer = TrajectoryWriter(path, header, self.key)
        episode = RankingEpisode(self.rd, task)
        opening = episode.opening()
        writer.user_message(opening)
        self._open[episode_id] = _Open(episode, writer, anyio.Lock(), admission)
        if admission is not None and self.seals is not None:
            self.seals.started(admission, episode_id, path)
        return RankingStarted(
            episode_id=episode_id,
            task_id=task.id,
            trial=trial,
            opening=opening,
            tool_budget=task.tool_budget,
            candidates=list(task.candidates),
        )

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

    async def call(self, episode_id: str, name: str, arguments: dict[str, Any]) -> StepResult:
        op = self._get(episode_id)
        async with op.lock:
            if op.episode.ended:
                raise ToolError(f"episode {episode_id[:12]} has ended")
            call_id = f"c{op.writer.seq + 1}"
            op.writer.tool_call(call_id, name, arguments)
            began = time.perf_counter()
            result = op.episode.call(name, arguments)
            op.writer.tool_result(
                call_id,
                result.text,
                is_error=result.is_error,
                latency_ms=(time.perf_counter() - began) * 1000,
            )
            if result.done:
                await self._end(episode_id, op)
            return result

    async def _end(self, episode_id: str, op: _Open) -> None:
        ep = op.episode
        over = ep.tool_calls > ep.task.tool_budget
        reason = EndReason.MAX_TURNS if over else EndReason.RECOMMENDED
        await op.writer.end(reason, detail=ep.detail)
        self._retire(episode_id, op, EpisodeEnd(reason, detail=ep.detail))

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


def _text(result: StepResult) -> str:
    if result.is_error and not result.done:
        raise ToolError(result.text)
    return result.text


def register_ranking_tools(mcp: MCPServer, service: RankingService) -> None:
    async def start_episode(
        task_id: Annotated[str, Field(min_length=1, description="A ranking task id of the suite.")],
        trial: Annotated[int, Field(ge=0, description="Trial number (0, 1, ...).")] = 0,
        seed: int | None = None,
        agent_label: Annotated[str | None, Field(description="Groups episodes in reports.")] = None,
    ) -> RankingStarted:
        """Start a ranking episode: the answer holds the user's history and 20 candidates."""
        return service.start(task_id, trial, seed, agent_label)

    async def submit_ranking(
        episode_id: EpisodeId,
        ranking: Annotated[
            list[str], Field(description="Exactly 10 distinct candidate ids, most likely first.")
        ],
        reply: Annotated[
            str | None,
            Field(max_length=50_000, description="Harnesses: the reply the ranking was read from."),
        ] = None,
        rejected_replies: Annotated[
            list[Annotated[str, Field(max_length=50_000)]] | None,
            Field(
                max_length=20,
                description="Harnesses that retry: earlier replies with no readable answer.",
            ),
        ] = None,
    ) -> str:
        """Submit the top-10 ranking; this ends the episode (an invalid list scores -1)."""
        arguments: dict[str, Any] = {"ranking": ranking}
        arguments |= {k: v for k, v in ((REPLY, reply), (REJECTED, rejected_replies)) if v}
        return (await service.call(episode_id, SUBMIT, arguments)).text

    async def abort_episode(
        episode_id: EpisodeId,
        reason: Literal["agent_error", "infra_error"],
        detail: Annotated[str | None, Field(max_length=2000)] = None,
    ) -> str:
        """For harnesses: end the episode without a ranking, recording why."""
        await service.abort(episode_id, EndReason(reason), detail)
        return f"episode ended ({reason})"

    mcp.add_tool(start_episode, title="Start a ranking episode")
    for name, (_, arg) in TOOLS.items():
        mcp.add_tool(_tool(service, name, arg), name=name)
    mcp.add_tool(submit_ranking, title="Submit the ranking")
    mcp.add_tool(abort_episode, title="Abort an episode (harnesses)")


_DOCS = {
    "get_user_profile": "A summary of the user's preferences from their history.",
    "item_info_search": "Look up an item by its title: categories, facts, rating, popularity.",
    "candidates_analyze": "The candidates grouped by category and by price band.",
    "get_session_behavior": "The user's interests in their two most recent sessions.",
    "get_rating_behavior": "The items the user rated five stars, neutral, and low.",
    "get_similar_items": "Items that users of the given item also took (collaborative filtering).",
    "get_similar_users": "Recent items of users with similar preferences.",
}


Title = Annotated[str, Field(min_length=1, description="An item title, as shown.")]


def _tool(service: RankingService, name: str, arg: str | None) -> Any:
    """The MCP function of one tool; its parameter is named as in the paper."""

    async def no_arg(episode_id: EpisodeId) -> str:
        return _text(await service.call(episode_id, name, {}))

    async def by_name(episode_id: EpisodeId, item_name: Title) -> str:
        return _text(await service.call(episode_id, name, {"item_name": item_name}))

    async def by_title(episode_id: EpisodeId, item_title: Title) -> str:
        return _text(await service.call(episode_id, name, {"item_title": item_title}))

    fn = {None: no_arg, "item_name": by_name, "item_title": by_title}[arg]
    fn.__name__ = name
    fn.__doc__ = _DOCS[name] + " Counts against the episode's tool budget."
    return fn


@SERVER_KINDS.register("ranking")
def ranking_server(
    settings: ServerSettings, suite: Suite, make_user: object | None
) -> tuple[MCPServer, KindService]:
    """AgenticRec: ranking episodes over the suite's interaction data."""
    service = RankingService(settings, suite, ranking_data(suite))
    mcp: MCPServer = MCPServer(
        SERVER_NAME,
        title="taurec: agentic recommendation benchmark (ranking)",
        version=service.version,
        instructions="Ranking episodes: start_episode(task_id), use the recommendation tools "
        "(at most 10 calls), then submit_ranking with 10 candidate ids.",
        log_level=settings.log_level,
    )
    register_ranking_tools(mcp, service)
    return mcp, service
