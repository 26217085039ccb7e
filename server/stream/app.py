"""The MCP surface of stream suites (BIEL): start a stream, ask, recommend, move on.

Tools: list_tasks, server_info, start_stream (also as start_episode, which harnesses
call), current_episode, ask_question, recommend_item (answers with the feedback; may
carry the agent's confidence), interim_recommendation (planning runs: a hidden pick,
scored, never answered), next_episode, abort_episode. Thin: parse, call the stream
service, shape the result. Every string argument has a schema cap (the MAX_ constants
below), so an over-long one is refused before it reaches the stream (and its log).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from taurec.catalog.errors import DataError
from taurec.server.annotations import COMMITTING, CONVERSATION, READ_ONLY
from taurec.server.kinds import SERVER_KINDS, KindService
from taurec.server.run_facts import SERVER_NAME
from taurec.server.settings import ServerSettings
from taurec.server.stream.llm_customer import LLMCustomerSettings
from taurec.server.stream.service import StreamAborted, StreamService, StreamStarted
from taurec.tasks.errors import AgentFacingError
from taurec.tasks.stream.results import (
    AnswerResult,
    Confidence,
    EpisodeView,
    InterimResult,
    RecommendationResult,
)
from taurec.tasks.suite import Suite
from taurec.tasks.trajectory.format import EndReason

#: Characters of an id argument (episode, task, item), of a question, of an abort's detail.
MAX_ID = 200
MAX_QUESTION = 2000
MAX_DETAIL = 2000

StreamId = Annotated[
    str,
    Field(min_length=1, max_length=MAX_ID, description="The episode_id start_stream returned."),
]
ItemId = Annotated[
    str, Field(min_length=1, max_length=MAX_ID, description="An id from this episode's items.")
]
StatedConfidence = Annotated[
    Confidence | None,
    Field(description="Optional: how sure you are (probabilities 0-1, predicted regret 0-100)."),
]


class StreamSummary(BaseModel):
    id: str
    setting: str
    episodes: int
    feedback: str


class StreamList(BaseModel):
    suite: str
    tasks: list[StreamSummary]


class StreamServerInfo(BaseModel):
    name: str
    version: str
    suite: str
    kind: str = "stream"
    tasks: int


INSTRUCTIONS = (
    "A stream benchmark: call start_stream(task_id) for a stream of shopping episodes. In "
    "each episode ask the customer questions (ask_question, within the budget) and "
    "recommend one item of the episode's choice set (recommend_item); its result carries "
    "the customer's feedback. Then call next_episode. The stream ends with the last "
    "episode's recommendation."
)


def _pick(item_id: str, confidence: Confidence | None) -> dict[str, Any]:
    """A pick's arguments as logged: the item, and the confidence fields stated."""
    arguments: dict[str, Any] = {"item_id": item_id}
    if confidence is not None:
        arguments["confidence"] = confidence.model_dump(mode="json", exclude_none=True)
    return arguments


async def _guarded(coro: Any) -> Any:
    try:
        return await coro
    except AgentFacingError as exc:
        raise ToolError(str(exc)) from None


def register_stream_tools(mcp: MCPServer, service: StreamService) -> None:
    async def list_tasks() -> StreamList:
        """The streams this server poses: ids, settings, episodes, feedback kind."""
        return StreamList(
            suite=service.suite.id,
            tasks=[
                StreamSummary(
                    id=t.id,
                    setting=t.setting.value,
                    episodes=len(t.episodes),
                    feedback=t.feedback.value,
                )
                for t in service.suite.tasks
            ],
        )

    async def server_info() -> StreamServerInfo:
        """Name, version and suite of this server."""
        return StreamServerInfo(
            name=SERVER_NAME,
            version=service.version,
            suite=service.suite.id,
            tasks=len(service.suite.tasks),
        )

    async def start_stream(
        *,
        task_id: Annotated[
            str | None, Field(max_length=MAX_ID, description="A stream id from list_tasks.")
        ] = None,
        trial: Annotated[
            int | None, Field(ge=0, le=2**31 - 1, description="Trial, 0-based.")
        ] = None,
        seed: Annotated[
            int | None, Field(ge=-(2**63), le=2**63 - 1, description="Seeds the customer's words.")
        ] = None,
        agent_label: Annotated[
            str | None, Field(min_length=1, max_length=200, description="Your name in the reports.")
        ] = None,
    ) -> StreamStarted:
        """Begin a stream. You get its episode_id (pass it to every other tool) and its
        first episode: the category, the choice set, the question budget."""
        result: StreamStarted = await _guarded(service.start(task_id, trial, seed, agent_label))
        return result

    async def current_episode(*, episode_id: StreamId) -> EpisodeView:
        """The episode in progress: its category, choice set and questions left."""
        result: EpisodeView = await _guarded(
            service.run(episode_id, "current_episode", {}, lambda s: s.view())
        )
        return result

    async def ask_question(
        *,
        episode_id: StreamId,
        question: Annotated[
            str,
            Field(min_length=1, max_length=MAX_QUESTION, description="What you ask the customer."),
        ],
    ) -> AnswerResult:
        """Ask the customer one question (uses one of this episode's question budget)."""
        result: AnswerResult = await _guarded(
            service.run(
                episode_id, "ask_question", {"question": question}, lambda s: s.ask(question)
            )
        )
        return result

    async def recommend_item(
        *, episode_id: StreamId, item_id: ItemId, confidence: StatedConfidence = None
    ) -> RecommendationResult:
        """Recommend one item of this episode's choice set; the answer carries the
        customer's feedback. Exactly one recommendation per episode."""
        result: RecommendationResult = await _guarded(
            service.run(
                episode_id,
                "recommend_item",
                _pick(item_id, confidence),
                lambda s: s.recommend(item_id, confidence),
            )
        )
        return result

    async def interim_recommendation(
        *, episode_id: StreamId, item_id: ItemId, confidence: StatedConfidence = None
    ) -> InterimResult:
        """Planning runs: the item you would recommend now, with no feedback and without
        ending the episode. It is scored (regret by questions asked), never answered."""
        result: InterimResult = await _guarded(
            service.run(
                episode_id,
                "interim_recommendation",
                _pick(item_id, confidence),
                lambda s: s.interim(item_id, confidence),
            )
        )
        return result

    async def next_episode(*, episode_id: StreamId) -> EpisodeView:
        """Move to the next episode of the stream (after this one's recommendation)."""
        result: EpisodeView = await _guarded(
            service.run(episode_id, "next_episode", {}, lambda s: s.next_episode())
        )
        return result

    async def abort_episode(
        *,
        episode_id: StreamId,
        reason: Annotated[
            Literal["agent_error", "infra_error"], Field(description="Why it stops.")
        ],
        detail: Annotated[
            str | None, Field(max_length=MAX_DETAIL, description="What went wrong.")
        ] = None,
    ) -> StreamAborted:
        """For harnesses: end the stream before its last recommendation, recording why."""
        await _guarded(service.abort(episode_id, EndReason(reason), detail))
        return StreamAborted(end_reason=EndReason(reason))

    for fn, hints, title in (
        (list_tasks, READ_ONLY, "List streams"),
        (server_info, READ_ONLY, "Server info"),
        (start_stream, CONVERSATION, "Start a stream"),
        (current_episode, READ_ONLY, "The current episode"),
        (ask_question, CONVERSATION, "Ask the customer"),
        (recommend_item, COMMITTING, "Recommend an item"),
        (interim_recommendation, CONVERSATION, "Interim pick (planning runs)"),
        (next_episode, CONVERSATION, "Next episode"),
        (abort_episode, COMMITTING, "Abort a stream (harnesses)"),
    ):
        mcp.add_tool(fn, title=title, annotations=hints)
    # the name harnesses use for any task kind: the same tool
    mcp.add_tool(
        start_stream,
        name="start_episode",
        title="Start a stream (harness name)",
        description="The same as start_stream (the name harnesses use for any task kind).",
        annotations=CONVERSATION,
    )


@SERVER_KINDS.register("stream")
def stream_server(
    settings: ServerSettings, suite: Suite, make_user: object | None
) -> tuple[MCPServer, KindService]:
    """The BIEL surface: the rule-based customer, or with `simulator: llm` the LLM
    customer (`make_user` does not apply), under the settings' stream protocol."""
    if settings.simulator not in ("rule", "llm"):
        raise DataError(
            f"simulator {settings.simulator!r} does not apply to stream suites; expected "
            "'rule' (the rule-based customer) or 'llm' (an LLM customer)",
            field="simulator",
        )
    customer = None
    if settings.simulator == "llm" and settings.simulator_model:
        customer = LLMCustomerSettings(model=settings.simulator_model)
    service = StreamService.create(settings, suite, customer, settings.stream_protocol)
    mcp: MCPServer = MCPServer(
        SERVER_NAME,
        title="taurec: stream (in-context learning) benchmark",
        version=service.version,
        instructions=INSTRUCTIONS,
        log_level=settings.log_level,
    )
    register_stream_tools(mcp, service)
    return mcp, service
