"""A small reference Agent2Agent agent for `taurec run --agent a2a`, built on a2a-sdk's
server side. For each episode it is handed (see agents/a2a.py), it connects to the MCP
URL it was given with `mcp.Client` and plays the scripted agent's policy through those
tools, then replies with how the episode ended.
"""

from __future__ import annotations

from typing import Any

from a2a.helpers import get_data_parts, new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from starlette.applications import Starlette

from taurec.clients.agents.base import Episode
from taurec.clients.agents.recommendation.scripted import ScriptedAgent

RPC_PATH = "/"


class ScriptedExecutor(AgentExecutor):
    """Plays one episode per request with the scripted policy over the given MCP URL."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        brief = _briefing(context)
        if brief is None:
            reply = 'expected a data part with "mcp_url" and "episode_id"'
        else:
            reply = await _play(brief)
        await event_queue.enqueue_event(
            new_text_message(reply, context_id=context.context_id, task_id=context.task_id)
        )

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError("an episode in play cannot be cancelled")


def _briefing(context: RequestContext) -> dict[str, Any] | None:
    parts = context.message.parts if context.message is not None else []
    for data in get_data_parts(parts):
        if isinstance(data, dict) and data.get("mcp_url") and data.get("episode_id"):
            return data
    return None


async def _play(brief: dict[str, Any]) -> str:
    async with Client(streamable_http_client(str(brief["mcp_url"]))) as client:
        tools = (await client.list_tools()).tools
        episode = Episode(
            client=client,
            episode_id=str(brief["episode_id"]),
            task_id=str(brief.get("task_id", "")),
            opening=str(brief.get("opening", "")),
            trial=int(brief.get("trial", 0)),
            max_turns=int(brief.get("max_turns", 0)),
            tools=list(tools),
        )
        await ScriptedAgent().run(episode)
        return f"episode ended: {episode.end_reason or 'still open'}"


def agent_card(url: str) -> AgentCard:
    return AgentCard(
        name="taurec reference recommender",
        description="Plays taurec episodes with the scripted policy over the MCP URL it is given.",
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0")
        ],
        version="1.0.0",
        capabilities=AgentCapabilities(streaming=False),
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=["text/plain"],
        skills=[
            AgentSkill(
                id="recommend",
                name="Recommend a film",
                description="Finds a catalog title for the user of a taurec episode.",
                tags=["recommendation"],
            )
        ],
    )


def a2a_app(url: str, executor: AgentExecutor | None = None) -> Starlette:
    """The A2A app (agent card and JSON-RPC endpoint) announcing itself at `url`; it runs
    `executor` (default: the scripted policy over the MCP URL it is handed)."""
    card = agent_card(url)
    handler = DefaultRequestHandler(
        agent_executor=executor or ScriptedExecutor(),
        task_store=InMemoryTaskStore(),
        agent_card=card,
    )
    return Starlette(
        routes=[*create_agent_card_routes(card), *create_jsonrpc_routes(handler, RPC_PATH)]
    )
