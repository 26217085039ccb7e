"""The MCP server of a ranking suite: start_episode, the seven recommendation tools,
submit_ranking and abort_episode, each call logged in the episode's trajectory.

The interaction data comes from the suite's `data.interactions` (see
taurec.catalog.interaction_sources); the collaborative model is trained on the records
before the suite's earliest target time and, under the global split (`data.split`), in
its train part; each suite user's records from their earliest target on are hidden from
every tool (see RankingData). Logs have the same format, chain and signature
as every other kind (header kind "ranking"); a submitted ranking ends the episode with
reason "recommended" and the ranking in the end record, the call past the tool budget
with reason "max_turns". Every string argument has a schema cap (tasks/ranking/rules.py's
MAX_ caps, mirrored there so the Python environment refuses the same calls), and the call
past the server's `max_tool_calls_per_episode` ends the episode as agent_error ("tool-call
limit: ..."), unlogged (it was never run, and a logged submit_ranking would read as the
answer); so one episode's log is bounded.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from taurec.catalog.errors import DataError
from taurec.catalog.interaction_sources import load_interactions
from taurec.catalog.splits import scheme_of
from taurec.server.episode_end import CALL_LIMIT, EpisodeEnd
from taurec.server.episode_service import Admitted, EpisodeService, OpenEpisode
from taurec.server.http_fairness import locked
from taurec.server.kinds import SERVER_KINDS, KindService
from taurec.server.ranking.episode import RankingEpisode, StepResult
from taurec.server.ranking.profiles import load_profiles, suite_folder
from taurec.server.ranking.tools import SETTINGS, TOOLS, RankingData
from taurec.server.run_facts import SERVER_NAME
from taurec.server.settings import ServerSettings
from taurec.tasks.ranking.rules import (
    MAX_ID,
    MAX_RANKING_IDS,
    MAX_REJECTED,
    MAX_REPLY,
    MAX_TITLE,
    REJECTED,
    REPLY,
    SUBMIT,
    TOOL_DOCS,
)
from taurec.tasks.ranking.task import RankingTask
from taurec.tasks.runs.plan import label_problem
from taurec.tasks.suite import Suite
from taurec.tasks.trajectory.format import EndReason

EpisodeId = Annotated[
    str,
    Field(min_length=1, max_length=MAX_ID, description="The episode_id start_episode returned."),
]
TaskId = Annotated[
    str, Field(min_length=1, max_length=MAX_ID, description="A task id of the suite.")
]
Trial = Annotated[int, Field(ge=0, le=2**31 - 1, description="Trial number (0, 1, ...).")]
Seed = Annotated[int | None, Field(ge=-(2**63), le=2**63 - 1, description="A 64-bit seed.")]
AgentLabel = Annotated[
    str | None, Field(min_length=1, max_length=200, description="Groups episodes in reports.")
]
#: Characters of abort_episode's detail.
MAX_DETAIL = 2000


def checked_label(agent_label: str | None) -> str | None:
    """`agent_label`, or a tool error when it is not a valid label (as every kind checks)."""
    if agent_label is not None and (problem := label_problem(agent_label)) is not None:
        raise ToolError(problem)
    return agent_label


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


class RankingService(EpisodeService[RankingEpisode]):
    kind = "ranking"

    def __init__(self, settings: ServerSettings, suite: Suite, rd: RankingData) -> None:
        super().__init__(settings, suite)
        self.rd = rd
        self.data_sha256 = rd.data.sha256()

    def start(
        self, task_id: str, trial: int, seed: int | None, agent_label: str | None
    ) -> RankingStarted:
        return self.admit(task_id, trial, seed, checked_label(agent_label), self._start)

    def _start(self, admitted: Admitted) -> RankingStarted:
        task: RankingTask = admitted.task
        episode = RankingEpisode(self.rd, task)
        opening = episode.opening()
        settings = {**SETTINGS, **self.rd.facts, **self.rd.profiles.settings(task.id)}
        episode_id = self.open_log(
            admitted, episode, opening, settings, interactions_sha256=self.data_sha256
        )
        return RankingStarted(
            episode_id=episode_id,
            task_id=task.id,
            trial=admitted.trial,
            opening=opening,
            tool_budget=task.tool_budget,
            candidates=list(task.candidates),
        )

    def revealed(self, episode: RankingEpisode) -> bool:
        return episode.tool_calls > 0

    async def call(self, episode_id: str, name: str, arguments: dict[str, Any]) -> StepResult:
        op = self.get(episode_id)
        async with locked(op.lock):  # waiting, the request's HTTP turn goes on
            if op.episode.ended:
                raise ToolError(f"episode {episode_id[:12]} has ended")
            limit = self.settings.max_tool_calls_per_episode
            if op.episode.calls >= limit:
                raise await self._end_at_call_limit(episode_id, op, name, limit)
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
                ep = op.episode
                over = ep.tool_calls > ep.task.tool_budget
                reason = EndReason.MAX_TURNS if over else EndReason.RECOMMENDED
                await self.end(episode_id, op, EpisodeEnd(reason, detail=ep.detail))
            return result

    async def _end_at_call_limit(
        self, episode_id: str, op: OpenEpisode[RankingEpisode], name: str, limit: int
    ) -> ToolError:
        """End the episode at the call past `limit` (agent_error); the error to raise."""
        detail = f"{CALL_LIMIT}{limit} tool calls made; call {limit + 1} ({name}) refused"
        with anyio.CancelScope(shield=True):
            await self.end(episode_id, op, EpisodeEnd(EndReason.AGENT_ERROR, detail=detail))
        return ToolError(
            f"episode {episode_id[:8]}... has ended (agent_error): it reached this server's "
            f"limit of {limit} tool calls per episode (max_tool_calls_per_episode), so this "
            f"{name} call was not run. Call start_episode to begin a new episode."
        )


def _text(result: StepResult) -> str:
    if result.is_error and not result.done:
        raise ToolError(result.text)
    return result.text


def add_abort_tool(mcp: MCPServer, service: EpisodeService[Any], without: str) -> None:
    """abort_episode, for harnesses: end an episode `without` its answer, recording why."""

    async def abort_episode(
        episode_id: EpisodeId,
        reason: Literal["agent_error", "infra_error"],
        detail: Annotated[str | None, Field(max_length=MAX_DETAIL)] = None,
    ) -> str:
        await service.abort(episode_id, EndReason(reason), detail)
        return f"episode ended ({reason})"

    abort_episode.__doc__ = f"For harnesses: end the episode without {without}, recording why."
    mcp.add_tool(abort_episode, title="Abort an episode (harnesses)")


def register_ranking_tools(mcp: MCPServer, service: RankingService) -> None:
    async def start_episode(
        task_id: TaskId,
        trial: Trial = 0,
        seed: Seed = None,
        agent_label: AgentLabel = None,
    ) -> RankingStarted:
        """Start a ranking episode: the answer holds the user's history and 20 candidates."""
        await service.make_room()
        return service.start(task_id, trial, seed, agent_label)

    async def submit_ranking(
        episode_id: EpisodeId,
        ranking: Annotated[
            list[Annotated[str, Field(max_length=MAX_ID)]],
            Field(
                max_length=MAX_RANKING_IDS,
                description="Exactly 10 distinct candidate ids, most likely first.",
            ),
        ],
        reply: Annotated[
            str | None,
            Field(
                max_length=MAX_REPLY, description="Harnesses: the reply the ranking was read from."
            ),
        ] = None,
        rejected_replies: Annotated[
            list[Annotated[str, Field(max_length=MAX_REPLY)]] | None,
            Field(
                max_length=MAX_REJECTED,
                description="Harnesses that retry: earlier replies with no readable answer.",
            ),
        ] = None,
    ) -> str:
        """Submit the top-10 ranking; this ends the episode (an invalid list scores -1)."""
        arguments: dict[str, Any] = {"ranking": ranking}
        arguments |= {k: v for k, v in ((REPLY, reply), (REJECTED, rejected_replies)) if v}
        return (await service.call(episode_id, SUBMIT, arguments)).text

    mcp.add_tool(start_episode, title="Start a ranking episode")
    for name, (_, arg) in TOOLS.items():
        mcp.add_tool(_tool(service, name, arg), name=name)
    mcp.add_tool(submit_ranking, title="Submit the ranking")
    add_abort_tool(mcp, service, "a ranking")


Title = Annotated[
    str, Field(pattern=r"\S", max_length=MAX_TITLE, description="An item title, as shown.")
]


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
    fn.__doc__ = TOOL_DOCS[name] + " Counts against the episode's tool budget."
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
